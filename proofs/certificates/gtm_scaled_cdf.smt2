; dpverify certificate: gtm_scaled_cdf
; source: Amorim, Gaboardi, Rindisbacher, Verified Differential Privacy for Finite Computers, Theorem 7.1
; theorem: for alpha in (0, 1), n >= 1, q in [0, n], -1 <= y <= n and every real T with T * alpha**j/(1+alpha) = D**(n-j+1) at j = q-y and j = y+1-q (where 1 <= j <= n): T*C(y) = W_q(y), which is 0, D**(n+1-(q-y)), T - D**(n+q-y) or T on the four pieces of C
; covers: dpverify.specs.gtm._offset_tables, dpverify.specs.gtm.GtmSpec.is_theorem_7_1_instance
; the assertions are the negated theorem: unsat means it holds
; benchmark generated from python API
(set-logic QF_UFNIRA)
(set-info :status unknown)
(declare-fun alpha () Real)
(declare-fun n () Int)
(declare-fun q () Int)
(declare-fun pw (Int) Real)
(declare-fun inverse_of_1_plus_alpha () Real)
(declare-fun cdf (Int) Real)
(declare-fun dpw (Int) Real)
(declare-fun y () Int)
(declare-fun T () Real)
(assert
 (> alpha 0.0))
(assert
 (< alpha 1.0))
(assert
 (>= n 1))
(assert
 (>= q 0))
(assert
 (<= q n))
(assert
 (= (pw 0) 1.0))
(assert
 (= (* inverse_of_1_plus_alpha (+ 1.0 alpha)) 1.0))
(assert
 (= (cdf (- 1)) 0.0))
(assert
 (let (($x1 (= (* (* T inverse_of_1_plus_alpha) (pw (- q y))) (dpw (+ (- n (- q y)) 1)))))
 (=> (and (>= (- q y) 1) (<= (- q y) n)) $x1)))
(assert
 (let (($x2 (= (* (* T inverse_of_1_plus_alpha) (pw (- (+ y 1) q))) (dpw (+ (- n (- (+ y 1) q)) 1)))))
 (let (($x3 (and (>= (- (+ y 1) q) 1) (<= (- (+ y 1) q) n))))
 (=> $x3 $x2))))
(assert
 (let (($x4 (< y q)))
(let ((?x5 (ite $x4 (dpw (- (+ n 1) (- q y))) (ite (< y n) (- T (dpw (- (+ n q) y))) T))))
(let (($x6 (= y (- 1))))
(let (($x7 (< y n)))
(let ((?x8 (ite $x7 (- 1.0 (* inverse_of_1_plus_alpha (pw (- (+ y 1) q)))) 1.0)))
(let ((?x9 (ite $x6 0.0 (ite $x4 (* inverse_of_1_plus_alpha (pw (- q y))) ?x8))))
(let (($x10 (=> (and (>= y (- 1)) (<= y n)) (= (* T ?x9) (ite $x6 (* 0.0 T) ?x5)))))
(not $x10)))))))))
(check-sat)
