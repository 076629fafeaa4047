; dpverify certificate: power_quotient_base
; source: Amorim, Gaboardi, Rindisbacher, Verified Differential Privacy for Finite Computers, Theorem 7.1 (alpha = 1/D); a property of powers on the naturals, by induction
; theorem: for e >= 0: pw(0) = 1 implies dpw(e+0)*pw(0) = dpw(e) (base of: D**(e+j) * alpha**j = D**e for all e, j >= 0 when alpha*D = 1)
; covers: (none)
; the assertions are the negated theorem: unsat means it holds
; benchmark generated from python API
(set-logic QF_UFNIRA)
(set-info :status unknown)
(declare-fun pw (Int) Real)
(declare-fun e () Int)
(declare-fun dpw (Int) Real)
(assert
 (let ((?x1 (pw 0)))
 (= ?x1 1.0)))
(assert
 (>= e 0))
(assert
 (let (($x2 (=> (and (>= e 0) (>= 0 0)) (= (* (dpw (+ e 0)) (pw 0)) (dpw e)))))
(not $x2)))
(check-sat)
