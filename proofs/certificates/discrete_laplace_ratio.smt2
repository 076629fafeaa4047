; dpverify certificate: discrete_laplace_ratio
; source: Canonne, Kamath, Steinke, The Discrete Gaussian for Differential Privacy (NeurIPS 2020), Algorithm 2 (discrete Laplace); its pure-DP claim epsilon = Delta/b (specs.noise.DiscreteLaplaceSpec)
; theorem: for every rational b > 0, integer Delta >= 1 and integers z, z' with |z - z'| <= Delta: e^(-Delta/b) * P(z') <= P(z) <= e^(Delta/b) * P(z'), P(z) = (e^(1/b)-1)/(e^(1/b)+1) * e^(-|z|/b); proved for r = e^(-1/b) as every real r in (0, 1)
; covers: dpverify.specs.noise.DiscreteLaplaceSpec.ideal_pmf_expr, dpverify.specs.noise.DiscreteLaplaceSpec.ideal_probability, dpverify.specs.noise.DiscreteLaplaceSpec.claim
; the assertions are the negated theorem: unsat means it holds
; benchmark generated from python API
(set-logic QF_UFNIRA)
(set-info :status unknown)
(declare-fun r () Real)
(declare-fun inverse_of_1_plus_r () Real)
(declare-fun normaliser () Real)
(declare-fun pw (Int) Real)
(declare-fun Delta () Int)
(declare-fun z_prime () Int)
(declare-fun z () Int)
(declare-fun abs_z () Int)
(declare-fun abs_z_prime () Int)
(assert
 (> r 0.0))
(assert
 (< r 1.0))
(assert
 (= (* inverse_of_1_plus_r (+ 1.0 r)) 1.0))
(assert
 (= normaliser (* (- 1.0 r) inverse_of_1_plus_r)))
(assert
 (= (pw 0) 1.0))
(assert
 (>= Delta 1))
(assert
 (<= (- z z_prime) Delta))
(assert
 (<= (- z_prime z) Delta))
(assert
 (>= abs_z z))
(assert
 (let ((?x1 (- z)))
 (>= abs_z ?x1)))
(assert
 (let (($x2 (= abs_z z)))
 (or $x2 (= abs_z (- z)))))
(assert
 (>= abs_z_prime z_prime))
(assert
 (let ((?x3 (- z_prime)))
 (>= abs_z_prime ?x3)))
(assert
 (let (($x4 (= abs_z_prime z_prime)))
 (or $x4 (= abs_z_prime (- z_prime)))))
(assert
 (let (($x5 (= (pw (+ (- Delta 0) abs_z_prime)) (* (pw (- Delta 0)) (pw abs_z_prime)))))
 (=> (and (>= (- Delta 0) 0) (>= abs_z_prime 0)) $x5)))
(assert
 (let (($x6 (= (pw (+ (- Delta 0) abs_z)) (* (pw (- Delta 0)) (pw abs_z)))))
 (=> (and (>= (- Delta 0) 0) (>= abs_z 0)) $x6)))
(assert
 (let ((?x7 (pw abs_z)))
 (let (($x8 (<= (pw (+ abs_z (- (+ abs_z_prime (- Delta 0)) abs_z))) ?x7)))
 (let (($x9 (>= abs_z 0)))
 (=> (and $x9 (>= (- (+ abs_z_prime (- Delta 0)) abs_z) 0)) $x8)))))
(assert
 (let ((?x10 (pw abs_z_prime)))
 (let (($x11 (<= (pw (+ abs_z_prime (- (+ abs_z (- Delta 0)) abs_z_prime))) ?x10)))
 (let (($x12 (>= abs_z_prime 0)))
 (=> (and $x12 (>= (- (+ abs_z (- Delta 0)) abs_z_prime) 0)) $x11)))))
(assert
 (let (($x9 (>= abs_z 0)))
 (=> $x9 (> (pw abs_z) 0.0))))
(assert
 (let (($x12 (>= abs_z_prime 0)))
 (=> $x12 (> (pw abs_z_prime) 0.0))))
(assert
 (let ((?x13 (- Delta 0)))
 (let (($x14 (>= ?x13 0)))
 (=> $x14 (> (pw ?x13) 0.0)))))
(assert
 (let ((?x10 (pw abs_z_prime)))
(let ((?x15 (* normaliser ?x10)))
(or (> (* (pw (- Delta 0)) ?x15) (* normaliser (pw abs_z))) (> (* (pw (- Delta 0)) (* normaliser (pw abs_z))) ?x15)))))
(check-sat)
