; dpverify certificate: gtm_cdf_closed_form_step
; source: Amorim, Gaboardi, Rindisbacher, Verified Differential Privacy for Finite Computers, §2 (gtpmf) and §5 (geometric_truncated_cdf_vector)
; theorem: for alpha in (0, 1), n >= 1, q in [0, n] and -1 <= y < n: CDF_q(y) = C(y) and CDF_q(y+1) = CDF_q(y) + gtpmf(q, y+1) imply CDF_q(y+1) = C(y+1), where C(y) = alpha**(q-y)/(1+alpha) for 0 <= y < q, 1 - alpha**(y+1-q)/(1+alpha) for q <= y < n, C(n) = 1
; covers: dpverify.samplers.gtm.gtpmf, dpverify.samplers.gtm.cdf_vector, dpverify.samplers.gtm._cdf_vector, dpverify.specs.gtm._offset_tables
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
(declare-fun y () Int)
(declare-fun abs_x_minus_y_plus_1 () Int)
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
 (let ((?x1 (pw 0)))
 (= ?x1 1.0)))
(assert
 (= (* inverse_of_1_plus_alpha (+ 1.0 alpha)) 1.0))
(assert
 (= (cdf (- 1)) 0.0))
(assert
 (>= y (- 1)))
(assert
 (< y n))
(assert
 (let (($x2 (< y n)))
 (let ((?x3 (ite $x2 (- 1.0 (* inverse_of_1_plus_alpha (pw (- (+ y 1) q)))) 1.0)))
 (let (($x4 (= y (- 1))))
 (let ((?x5 (ite $x4 0.0 (ite (< y q) (* inverse_of_1_plus_alpha (pw (- q y))) ?x3))))
 (let ((?x6 (cdf y)))
 (=> (and (>= y (- 1)) (<= y n)) (= ?x6 ?x5))))))))
(assert
 (let ((?x7 (+ y 1)))
 (let ((?x8 (- ?x7 q)))
 (>= abs_x_minus_y_plus_1 ?x8))))
(assert
 (let ((?x7 (+ y 1)))
 (let ((?x8 (- ?x7 q)))
 (let ((?x9 (- ?x8)))
 (>= abs_x_minus_y_plus_1 ?x9)))))
(assert
 (or (= abs_x_minus_y_plus_1 (- (+ y 1) q)) (= abs_x_minus_y_plus_1 (- (- (+ y 1) q)))))
(assert
 (= (* inverse_of_1_plus_alpha (+ 1.0 alpha)) 1.0))
(assert
 (let (($x10 (>= q 0)))
 (=> $x10 (= (pw (+ q 1)) (* alpha (pw q))))))
(assert
 (=> (>= (- n q) 0) (= (pw (+ (- n q) 1)) (* alpha (pw (- n q))))))
(assert
 (let ((?x11 (pw abs_x_minus_y_plus_1)))
 (let ((?x12 (* alpha ?x11)))
 (let (($x13 (>= abs_x_minus_y_plus_1 0)))
 (=> $x13 (= (pw (+ abs_x_minus_y_plus_1 1)) ?x12))))))
(assert
 (let ((?x11 (pw abs_x_minus_y_plus_1)))
 (let ((?x14 (ite (= (+ y 1) n) (* inverse_of_1_plus_alpha (pw (- n q))) (* (* (- 1.0 alpha) inverse_of_1_plus_alpha) ?x11))))
 (let ((?x15 (pw q)))
 (let ((?x16 (* inverse_of_1_plus_alpha ?x15)))
 (let ((?x17 (+ (cdf (- (+ y 1) 1)) (ite (= (+ y 1) 0) ?x16 ?x14))))
 (let ((?x7 (+ y 1)))
 (let ((?x18 (cdf ?x7)))
 (= ?x18 ?x17)))))))))
(assert
 (let (($x19 (= (pw (+ (- (- q y) 1) 1)) (* alpha (pw (- (- q y) 1))))))
 (=> (>= (- (- q y) 1) 0) $x19)))
(assert
 (let (($x20 (= (pw (+ (- (+ y 1) q) 1)) (* alpha (pw (- (+ y 1) q))))))
 (=> (>= (- (+ y 1) q) 0) $x20)))
(assert
 (=> (>= 0 0) (= (pw (+ 0 1)) (* alpha (pw 0)))))
(assert
 (let ((?x21 (- 1.0 (* inverse_of_1_plus_alpha (pw (- (+ (+ y 1) 1) q))))))
(let ((?x22 (ite (< (+ y 1) q) (* inverse_of_1_plus_alpha (pw (- q (+ y 1)))) (ite (< (+ y 1) n) ?x21 1.0))))
(let ((?x7 (+ y 1)))
(let ((?x18 (cdf ?x7)))
(let (($x23 (=> (and (>= ?x7 (- 1)) (<= ?x7 n)) (= ?x18 (ite (= ?x7 (- 1)) 0.0 ?x22)))))
(not $x23)))))))
(check-sat)
