; dpverify certificate: power_positive_base
; source: Amorim, Gaboardi, Rindisbacher, Verified Differential Privacy for Finite Computers, §2 (gtpmf, alpha**k); a property of alpha**k on the naturals, by induction from alpha**0 = 1 and alpha**(k+1) = alpha * alpha**k
; theorem: for alpha > 0: pw(0) = 1 implies pw(0) > 0 (base of: alpha**k > 0 for all k >= 0)
; covers: (none)
; the assertions are the negated theorem: unsat means it holds
; benchmark generated from python API
(set-logic QF_UFLIRA)
(set-info :status unknown)
(declare-fun alpha () Real)
(declare-fun pw (Int) Real)
(assert
 (> alpha 0.0))
(assert
 (let ((?x1 (pw 0)))
 (= ?x1 1.0)))
(assert
 (not (> (pw 0) 0.0)))
(check-sat)
