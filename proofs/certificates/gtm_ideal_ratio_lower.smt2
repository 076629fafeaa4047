; dpverify certificate: gtm_ideal_ratio_lower
; source: Amorim, Gaboardi, Rindisbacher, Verified Differential Privacy for Finite Computers, §2 (gtpmf and its alpha-DP claim)
; theorem: for all alpha in (0, 1), n >= 1, q, q' in [0, n] with |q - q'| <= 1 and x in [0, n]: alpha * gtpmf(q', x) <= gtpmf(q, x)
; covers: dpverify.samplers.gtm.gtpmf, dpverify.specs.gtm.GtmSpec.ideal_pmf
; the assertions are the negated theorem: unsat means it holds
; benchmark generated from python API
(set-logic QF_UFNIRA)
(set-info :status unknown)
(declare-fun alpha () Real)
(declare-fun n () Int)
(declare-fun q () Int)
(declare-fun q_prime () Int)
(declare-fun x () Int)
(declare-fun pw (Int) Real)
(declare-fun abs_x_minus_q () Int)
(declare-fun inverse_of_1_plus_alpha () Real)
(declare-fun middle_constant () Real)
(declare-fun abs_x_minus_q_prime () Int)
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
 (>= q_prime 0))
(assert
 (<= q_prime n))
(assert
 (<= (- q q_prime) 1))
(assert
 (<= (- q_prime q) 1))
(assert
 (>= x 0))
(assert
 (<= x n))
(assert
 (= (pw 0) 1.0))
(assert
 (let ((?x1 (- x q)))
 (>= abs_x_minus_q ?x1)))
(assert
 (let ((?x1 (- x q)))
 (let ((?x2 (- ?x1)))
 (>= abs_x_minus_q ?x2))))
(assert
 (or (= abs_x_minus_q (- x q)) (= abs_x_minus_q (- (- x q)))))
(assert
 (= (* inverse_of_1_plus_alpha (+ 1.0 alpha)) 1.0))
(assert
 (= middle_constant (* (- 1.0 alpha) inverse_of_1_plus_alpha)))
(assert
 (let ((?x3 (- x q_prime)))
 (>= abs_x_minus_q_prime ?x3)))
(assert
 (let ((?x3 (- x q_prime)))
 (let ((?x4 (- ?x3)))
 (>= abs_x_minus_q_prime ?x4))))
(assert
 (or (= abs_x_minus_q_prime (- x q_prime)) (= abs_x_minus_q_prime (- (- x q_prime)))))
(assert
 (= (* inverse_of_1_plus_alpha (+ 1.0 alpha)) 1.0))
(assert
 (= middle_constant (* (- 1.0 alpha) inverse_of_1_plus_alpha)))
(assert
 (let (($x5 (>= q 0)))
 (=> $x5 (= (pw (+ q 1)) (* alpha (pw q))))))
(assert
 (let (($x5 (>= q 0)))
 (=> $x5 (> (pw q) 0.0))))
(assert
 (let ((?x6 (- n q)))
 (let (($x7 (>= ?x6 0)))
 (=> $x7 (= (pw (+ ?x6 1)) (* alpha (pw ?x6)))))))
(assert
 (let ((?x6 (- n q)))
 (let (($x7 (>= ?x6 0)))
 (=> $x7 (> (pw ?x6) 0.0)))))
(assert
 (let (($x8 (>= abs_x_minus_q 0)))
 (=> $x8 (= (pw (+ abs_x_minus_q 1)) (* alpha (pw abs_x_minus_q))))))
(assert
 (let (($x8 (>= abs_x_minus_q 0)))
 (=> $x8 (> (pw abs_x_minus_q) 0.0))))
(assert
 (let (($x9 (>= q_prime 0)))
 (=> $x9 (= (pw (+ q_prime 1)) (* alpha (pw q_prime))))))
(assert
 (let (($x9 (>= q_prime 0)))
 (=> $x9 (> (pw q_prime) 0.0))))
(assert
 (let (($x10 (= (pw (+ (- n q_prime) 1)) (* alpha (pw (- n q_prime))))))
 (let ((?x11 (- n q_prime)))
 (let (($x12 (>= ?x11 0)))
 (=> $x12 $x10)))))
(assert
 (let ((?x11 (- n q_prime)))
 (let (($x12 (>= ?x11 0)))
 (=> $x12 (> (pw ?x11) 0.0)))))
(assert
 (let ((?x13 (pw abs_x_minus_q_prime)))
 (let ((?x14 (* alpha ?x13)))
 (let (($x15 (>= abs_x_minus_q_prime 0)))
 (=> $x15 (= (pw (+ abs_x_minus_q_prime 1)) ?x14))))))
(assert
 (let (($x15 (>= abs_x_minus_q_prime 0)))
 (=> $x15 (> (pw abs_x_minus_q_prime) 0.0))))
(assert
 (let ((?x13 (pw abs_x_minus_q_prime)))
(let ((?x16 (* middle_constant ?x13)))
(let (($x17 (= x n)))
(let ((?x18 (pw q_prime)))
(let ((?x19 (* inverse_of_1_plus_alpha ?x18)))
(let (($x20 (= x 0)))
(let ((?x21 (ite $x20 ?x19 (ite $x17 (* inverse_of_1_plus_alpha (pw (- n q_prime))) ?x16))))
(let ((?x22 (pw abs_x_minus_q)))
(let ((?x23 (* middle_constant ?x22)))
(let ((?x24 (pw q)))
(let ((?x25 (* inverse_of_1_plus_alpha ?x24)))
(let ((?x26 (ite $x20 ?x25 (ite $x17 (* inverse_of_1_plus_alpha (pw (- n q))) ?x23))))
(< ?x26 (* alpha ?x21)))))))))))))))
(check-sat)
