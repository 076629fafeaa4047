; dpverify certificate: theorem_6_1
; source: Amorim, Gaboardi, Rindisbacher, Verified Differential Privacy for Finite Computers, Theorem 6.1
; theorem: for every integer T >= 1, all rationals 0 <= c' <= c <= 1 and every integer j: j <= T*c iff j <= floor(T*c); 0 <= floor(T*c') <= floor(T*c) <= T; and |(floor(T*c) - floor(T*c'))/T - (c - c')| < 1/T, so with c = CDF_q(x), c' = CDF_q(x-1): |P_T(x|q) - gtpmf(q, x)| < 1/T
; covers: dpverify.samplers.gtm.inverse_transform, dpverify.samplers.gtm.cdf_vector, dpverify.samplers.gtm._cdf_vector, dpverify.specs.gtm._offset_tables, dpverify.specs.gtm.GtmSpec.pmf
; the assertions are the negated theorem: unsat means it holds
; benchmark generated from python API
(set-logic QF_NIRA)
(set-info :status unknown)
(declare-fun T () Int)
(declare-fun c_prime () Real)
(declare-fun c () Real)
(declare-fun floor_T_c () Int)
(declare-fun floor_T_c_prime () Int)
(declare-fun j () Int)
(assert
 (>= T 1))
(assert
 (>= c_prime 0.0))
(assert
 (<= c_prime c))
(assert
 (<= c 1.0))
(assert
 (let ((?x1 (to_real T)))
 (let ((?x2 (* ?x1 c)))
 (let ((?x3 (to_real floor_T_c)))
 (<= ?x3 ?x2)))))
(assert
 (let ((?x1 (to_real T)))
 (let ((?x2 (* ?x1 c)))
 (< ?x2 (+ (to_real floor_T_c) 1.0)))))
(assert
 (let ((?x1 (to_real T)))
 (let ((?x4 (* ?x1 c_prime)))
 (let ((?x5 (to_real floor_T_c_prime)))
 (<= ?x5 ?x4)))))
(assert
 (let ((?x1 (to_real T)))
 (let ((?x4 (* ?x1 c_prime)))
 (< ?x4 (+ (to_real floor_T_c_prime) 1.0)))))
(assert
 (let ((?x6 (- (to_real (- floor_T_c floor_T_c_prime)) (* (to_real T) (- c c_prime)))))
(let (($x7 (>= floor_T_c_prime 0)))
(let (($x8 (and (= (<= (to_real j) (* (to_real T) c)) (<= j floor_T_c)) (and $x7 (<= floor_T_c_prime floor_T_c) (<= floor_T_c T)) (and (> 1.0 ?x6) (> ?x6 (- 1.0))))))
(not $x8)))))
(check-sat)
