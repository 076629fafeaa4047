; dpverify certificate: gtm_scaled_piece
; source: Amorim, Gaboardi, Rindisbacher, Verified Differential Privacy for Finite Computers, Theorem 7.1
; theorem: for reals D >= 2, alpha = 1/D and 1 <= j <= n: with T = (D+1)*D**n, T * alpha**j/(1+alpha) = D**(n-j+1) (given D**n * alpha**j = D**(n-j) and D**(n-j+1) = D*D**(n-j))
; covers: dpverify.specs.gtm._offset_tables, dpverify.specs.gtm.GtmSpec.is_theorem_7_1_instance
; the assertions are the negated theorem: unsat means it holds
; benchmark generated from python API
(set-logic QF_NRA)
(set-info :status unknown)
(declare-fun D () Real)
(declare-fun alpha () Real)
(declare-fun inverse_of_1_plus_alpha () Real)
(declare-fun |dpw(n-j)| () Real)
(declare-fun |pw(j)| () Real)
(declare-fun |dpw(n)| () Real)
(declare-fun |dpw(n-j+1)| () Real)
(assert
 (>= D 2.0))
(assert
 (= (* alpha D) 1.0))
(assert
 (= (* inverse_of_1_plus_alpha (+ 1.0 alpha)) 1.0))
(assert
 (let ((?x1 (* |dpw(n)| |pw(j)|)))
 (= ?x1 |dpw(n-j)|)))
(assert
 (let ((?x2 (* D |dpw(n-j)|)))
 (= |dpw(n-j+1)| ?x2)))
(assert
 (let (($x3 (= (* (* (* (+ D 1.0) |dpw(n)|) inverse_of_1_plus_alpha) |pw(j)|) |dpw(n-j+1)|)))
(not $x3)))
(check-sat)
