; dpverify certificate: power_quotient_step
; source: Amorim, Gaboardi, Rindisbacher, Verified Differential Privacy for Finite Computers, Theorem 7.1 (alpha = 1/D); a property of powers on the naturals, by induction
; theorem: for reals alpha*D = 1 and e, j >= 0: dpw(e+j)*pw(j) = dpw(e), pw(j+1) = alpha*pw(j) and dpw(e+j+1) = D*dpw(e+j) imply dpw(e+j+1)*pw(j+1) = dpw(e) (step of: D**(e+j) * alpha**j = D**e for all e, j >= 0 when alpha*D = 1)
; covers: (none)
; the assertions are the negated theorem: unsat means it holds
; benchmark generated from python API
(set-logic QF_NRA)
(set-info :status unknown)
(declare-fun D () Real)
(declare-fun alpha () Real)
(declare-fun |dpw(e)| () Real)
(declare-fun |pw(j)| () Real)
(declare-fun |dpw(e+j)| () Real)
(declare-fun |pw(j+1)| () Real)
(declare-fun |dpw(e+j+1)| () Real)
(assert
 (= (* alpha D) 1.0))
(assert
 (let ((?x1 (* |dpw(e+j)| |pw(j)|)))
 (= ?x1 |dpw(e)|)))
(assert
 (let ((?x2 (* alpha |pw(j)|)))
 (= |pw(j+1)| ?x2)))
(assert
 (let ((?x3 (* D |dpw(e+j)|)))
 (= |dpw(e+j+1)| ?x3)))
(assert
 (not (= (* |dpw(e+j+1)| |pw(j+1)|) |dpw(e)|)))
(check-sat)
