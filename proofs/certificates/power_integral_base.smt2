; dpverify certificate: power_integral_base
; source: Amorim, Gaboardi, Rindisbacher, Verified Differential Privacy for Finite Computers, Theorem 7.1 (alpha = 1/D); a property of powers on the naturals, by induction
; theorem: dpw(0) = 1 and ipw(0) = 1 imply dpw(0) = ipw(0) (base of: for an integer D, the real D**k equals the integer D**k for all k >= 0)
; covers: (none)
; the assertions are the negated theorem: unsat means it holds
; benchmark generated from python API
(set-logic QF_UFLIRA)
(set-info :status unknown)
(declare-fun dpw (Int) Real)
(declare-fun ipw (Int) Int)
(assert
 (let ((?x1 (dpw 0)))
 (= ?x1 1.0)))
(assert
 (let ((?x2 (ipw 0)))
 (= ?x2 1)))
(assert
 (not (=> (>= 0 0) (= (dpw 0) (to_real (ipw 0))))))
(check-sat)
