; dpverify certificate: power_antitone_step
; source: Amorim, Gaboardi, Rindisbacher, Verified Differential Privacy for Finite Computers, §2 (gtpmf, alpha**k); a property of alpha**k on the naturals, by induction from alpha**0 = 1 and alpha**(k+1) = alpha * alpha**k
; theorem: for 0 < alpha <= 1 and e, j >= 0: pw(e+j) <= pw(e), pw(e+j+1) = alpha*pw(e+j) and pw(e+j) > 0 imply pw(e+j+1) <= pw(e) (step of: alpha**(e+j) <= alpha**e for all e, j >= 0)
; covers: (none)
; the assertions are the negated theorem: unsat means it holds
; benchmark generated from python API
(set-logic QF_NRA)
(set-info :status unknown)
(declare-fun alpha () Real)
(declare-fun |pw(e)| () Real)
(declare-fun |pw(e+j)| () Real)
(declare-fun |pw(e+j+1)| () Real)
(assert
 (> alpha 0.0))
(assert
 (<= alpha 1.0))
(assert
 (<= |pw(e+j)| |pw(e)|))
(assert
 (let ((?x1 (* alpha |pw(e+j)|)))
 (= |pw(e+j+1)| ?x1)))
(assert
 (> |pw(e+j)| 0.0))
(assert
 (not (<= |pw(e+j+1)| |pw(e)|)))
(check-sat)
