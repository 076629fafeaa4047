; dpverify certificate: power_positive_step
; source: Amorim, Gaboardi, Rindisbacher, Verified Differential Privacy for Finite Computers, §2 (gtpmf, alpha**k); a property of alpha**k on the naturals, by induction from alpha**0 = 1 and alpha**(k+1) = alpha * alpha**k
; theorem: for alpha > 0 and k >= 0: pw(k) > 0 and pw(k+1) = alpha*pw(k) imply pw(k+1) > 0 (step of: alpha**k > 0 for all k >= 0)
; covers: (none)
; the assertions are the negated theorem: unsat means it holds
; benchmark generated from python API
(set-logic QF_NRA)
(set-info :status unknown)
(declare-fun alpha () Real)
(declare-fun |pw(k)| () Real)
(declare-fun |pw(k+1)| () Real)
(assert
 (> alpha 0.0))
(assert
 (> |pw(k)| 0.0))
(assert
 (let ((?x1 (* alpha |pw(k)|)))
 (= |pw(k+1)| ?x1)))
(assert
 (not (> |pw(k+1)| 0.0)))
(check-sat)
