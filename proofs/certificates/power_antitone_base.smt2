; dpverify certificate: power_antitone_base
; source: Amorim, Gaboardi, Rindisbacher, Verified Differential Privacy for Finite Computers, §2 (gtpmf, alpha**k); a property of alpha**k on the naturals, by induction from alpha**0 = 1 and alpha**(k+1) = alpha * alpha**k
; theorem: for e >= 0: pw(e+0) <= pw(e) (base of: alpha**(e+j) <= alpha**e for all e, j >= 0)
; covers: (none)
; the assertions are the negated theorem: unsat means it holds
; benchmark generated from python API
(set-logic QF_UFLIRA)
(set-info :status unknown)
(declare-fun e () Int)
(declare-fun pw (Int) Real)
(assert
 (>= e 0))
(assert
 (not (<= (pw (+ e 0)) (pw e))))
(check-sat)
