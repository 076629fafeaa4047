; dpverify certificate: power_multiplicative_step
; source: Amorim, Gaboardi, Rindisbacher, Verified Differential Privacy for Finite Computers, §2 (gtpmf, alpha**k); a property of alpha**k on the naturals, by induction from alpha**0 = 1 and alpha**(k+1) = alpha * alpha**k
; theorem: for a, b >= 0: pw(a+b) = pw(a)*pw(b) and the recurrence at a+b and at b imply pw(a+b+1) = pw(a)*pw(b+1) (step of: alpha**(a+b) = alpha**a * alpha**b)
; covers: (none)
; the assertions are the negated theorem: unsat means it holds
; benchmark generated from python API
(set-logic QF_NRA)
(set-info :status unknown)
(declare-fun |pw(b)| () Real)
(declare-fun |pw(a)| () Real)
(declare-fun |pw(a+b)| () Real)
(declare-fun alpha () Real)
(declare-fun |pw(a+b+1)| () Real)
(declare-fun |pw(b+1)| () Real)
(assert
 (let ((?x1 (* |pw(a)| |pw(b)|)))
 (= |pw(a+b)| ?x1)))
(assert
 (= |pw(a+b+1)| (* alpha |pw(a+b)|)))
(assert
 (= |pw(b+1)| (* alpha |pw(b)|)))
(assert
 (not (= |pw(a+b+1)| (* |pw(a)| |pw(b+1)|))))
(check-sat)
