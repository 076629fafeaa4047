; dpverify certificate: theorem_6_2
; source: Amorim, Gaboardi, Rindisbacher, Verified Differential Privacy for Finite Computers, Theorem 6.2
; theorem: for all alpha in (0, 1), n >= 1, T >= 1 with T >= 1/D, neighbours |q - q'| <= 1 and x in [0, n]: alpha' <= P_T(x|q)/P_T(x|q') <= 1/alpha' with alpha' = (D - 1/T)/(D' + 1/T), D = (1-alpha)/(1+alpha) * alpha**n, D' = (1-alpha)/(1+alpha) * alpha**(n-1)
; covers: dpverify.specs.gtm.GtmSpec.theorem_6_2_alpha_prime, dpverify.samplers.gtm.inverse_transform, dpverify.samplers.gtm.cdf_vector, dpverify.samplers.gtm._cdf_vector, dpverify.samplers.gtm.gtpmf, dpverify.specs.gtm.GtmSpec.pmf, dpverify.specs.gtm._offset_tables
; the assertions are the negated theorem: unsat means it holds
; benchmark generated from python API
(set-logic QF_NRA)
(set-info :status unknown)
(declare-fun alpha () Real)
(declare-fun T () Real)
(declare-fun eps () Real)
(declare-fun inverse_of_1_plus_alpha () Real)
(declare-fun middle_constant () Real)
(declare-fun alpha_to_n_minus_1 () Real)
(declare-fun alpha_to_n () Real)
(declare-fun p () Real)
(declare-fun m () Real)
(declare-fun p_prime () Real)
(declare-fun m_prime () Real)
(assert
 (> alpha 0.0))
(assert
 (< alpha 1.0))
(assert
 (>= T 1.0))
(assert
 (= (* eps T) 1.0))
(assert
 (= (* inverse_of_1_plus_alpha (+ 1.0 alpha)) 1.0))
(assert
 (= middle_constant (* (- 1.0 alpha) inverse_of_1_plus_alpha)))
(assert
 (let ((?x1 (* alpha alpha_to_n_minus_1)))
 (= alpha_to_n ?x1)))
(assert
 (> alpha_to_n_minus_1 0.0))
(assert
 (< (- m p) eps))
(assert
 (< (- p m) eps))
(assert
 (< (- m_prime p_prime) eps))
(assert
 (< (- p_prime m_prime) eps))
(assert
 (let ((?x2 (* middle_constant alpha_to_n)))
 (>= p ?x2)))
(assert
 (let ((?x2 (* middle_constant alpha_to_n)))
 (>= p_prime ?x2)))
(assert
 (let ((?x2 (* middle_constant alpha_to_n)))
 (>= ?x2 eps)))
(assert
 (let ((?x3 (* alpha p_prime)))
 (<= ?x3 p)))
(assert
 (let ((?x4 (* alpha p)))
 (<= ?x4 p_prime)))
(assert
 (let ((?x5 (* eps 1.0)))
(let ((?x6 (* middle_constant alpha_to_n_minus_1)))
(let ((?x7 (+ ?x6 ?x5)))
(let (($x8 (>= (* m_prime ?x7) (* (- (* middle_constant alpha_to_n) ?x5) m))))
(let (($x9 (>= (* m ?x7) (* (- (* middle_constant alpha_to_n) ?x5) m_prime))))
(not (and $x9 $x8))))))))
(check-sat)
