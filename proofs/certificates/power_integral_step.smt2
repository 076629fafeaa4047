; dpverify certificate: power_integral_step
; source: Amorim, Gaboardi, Rindisbacher, Verified Differential Privacy for Finite Computers, Theorem 7.1 (alpha = 1/D); a property of powers on the naturals, by induction
; theorem: for an integer D and k >= 0: dpw(k) = ipw(k), dpw(k+1) = D*dpw(k) and ipw(k+1) = D*ipw(k) imply dpw(k+1) = ipw(k+1) (step of: for an integer D, the real D**k equals the integer D**k for all k >= 0)
; covers: (none)
; the assertions are the negated theorem: unsat means it holds
; benchmark generated from python API
(set-logic QF_UFNIRA)
(set-info :status unknown)
(declare-fun k () Int)
(declare-fun ipw (Int) Int)
(declare-fun dpw (Int) Real)
(declare-fun D () Int)
(assert
 (>= k 0))
(assert
 (let (($x1 (>= k 0)))
 (=> $x1 (= (dpw k) (to_real (ipw k))))))
(assert
 (let (($x1 (>= k 0)))
 (=> $x1 (= (dpw (+ k 1)) (* (to_real D) (dpw k))))))
(assert
 (let (($x1 (>= k 0)))
 (=> $x1 (= (ipw (+ k 1)) (* D (ipw k))))))
(assert
 (let (($x2 (=> (>= (+ k 1) 0) (= (dpw (+ k 1)) (to_real (ipw (+ k 1)))))))
(not $x2)))
(check-sat)
