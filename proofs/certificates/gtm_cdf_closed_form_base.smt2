; dpverify certificate: gtm_cdf_closed_form_base
; source: Amorim, Gaboardi, Rindisbacher, Verified Differential Privacy for Finite Computers, §2 (gtpmf) and §5 (geometric_truncated_cdf_vector)
; theorem: CDF_q(-1) = 0 = C(-1) (base of: the running sum of gtpmf(q, .) equals the closed form C of specs.gtm on [-1, n])
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
 (let ((?x1 (cdf (- 1))))
 (= ?x1 0.0)))
(assert
 (let ((?x2 (ite (< (- 1) n) (- 1.0 (* inverse_of_1_plus_alpha (pw (- (+ (- 1) 1) q)))) 1.0)))
(let ((?x3 (ite (< (- 1) q) (* inverse_of_1_plus_alpha (pw (- q (- 1)))) ?x2)))
(let ((?x1 (cdf (- 1))))
(let (($x4 (=> (and (>= (- 1) (- 1)) (<= (- 1) n)) (= ?x1 (ite (= (- 1) (- 1)) 0.0 ?x3)))))
(not $x4))))))
(check-sat)
