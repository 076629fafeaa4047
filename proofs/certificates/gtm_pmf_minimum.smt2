; dpverify certificate: gtm_pmf_minimum
; source: Amorim, Gaboardi, Rindisbacher, Verified Differential Privacy for Finite Computers, Theorem 6.2 (D) and §5 (the support bound 1/D)
; theorem: for all alpha in (0, 1), n >= 1 and q, x in [0, n]: gtpmf(q, x) >= D = (1-alpha)/(1+alpha) * alpha**n
; covers: dpverify.samplers.gtm.gtpmf, dpverify.specs.gtm.GtmSpec.support_bound
; the assertions are the negated theorem: unsat means it holds
; benchmark generated from python API
(set-logic QF_UFNIRA)
(set-info :status unknown)
(declare-fun alpha () Real)
(declare-fun n () Int)
(declare-fun q () Int)
(declare-fun x () Int)
(declare-fun abs_x_minus_q () Int)
(declare-fun inverse_of_1_plus_alpha () Real)
(declare-fun middle_constant () Real)
(declare-fun pw (Int) Real)
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
 (>= x 0))
(assert
 (<= x n))
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
 (= (* inverse_of_1_plus_alpha (+ 1.0 alpha)) 1.0))
(assert
 (= middle_constant (* (- 1.0 alpha) inverse_of_1_plus_alpha)))
(assert
 (=> (and (>= q 0) (>= (- n q) 0)) (<= (pw (+ q (- n q))) (pw q))))
(assert
 (let (($x3 (>= q 0)))
 (=> $x3 (> (pw q) 0.0))))
(assert
 (=> (and (>= (- n q) 0) (>= (- n (- n q)) 0)) (<= (pw (+ (- n q) (- n (- n q)))) (pw (- n q)))))
(assert
 (let ((?x4 (- n q)))
 (let (($x5 (>= ?x4 0)))
 (=> $x5 (> (pw ?x4) 0.0)))))
(assert
 (let ((?x6 (pw abs_x_minus_q)))
 (=> (and (>= abs_x_minus_q 0) (>= (- n abs_x_minus_q) 0)) (<= (pw (+ abs_x_minus_q (- n abs_x_minus_q))) ?x6))))
(assert
 (let (($x7 (>= abs_x_minus_q 0)))
 (=> $x7 (> (pw abs_x_minus_q) 0.0))))
(assert
 (let (($x8 (>= n 0)))
 (=> $x8 (> (pw n) 0.0))))
(assert
 (let ((?x9 (pw n)))
(let ((?x10 (* middle_constant ?x9)))
(let ((?x6 (pw abs_x_minus_q)))
(let ((?x11 (* middle_constant ?x6)))
(let (($x12 (= x n)))
(let ((?x13 (pw q)))
(let ((?x14 (* inverse_of_1_plus_alpha ?x13)))
(let (($x15 (= x 0)))
(let ((?x16 (ite $x15 ?x14 (ite $x12 (* inverse_of_1_plus_alpha (pw (- n q))) ?x11))))
(< ?x16 ?x10)))))))))))
(check-sat)
