; dpverify certificate: power_multiplicative_base
; source: Amorim, Gaboardi, Rindisbacher, Verified Differential Privacy for Finite Computers, §2 (gtpmf, alpha**k); a property of alpha**k on the naturals, by induction from alpha**0 = 1 and alpha**(k+1) = alpha * alpha**k
; theorem: for a >= 0: pw(0) = 1 implies pw(a+0) = pw(a)*pw(0) (base of: alpha**(a+b) = alpha**a * alpha**b)
; covers: (none)
; the assertions are the negated theorem: unsat means it holds
; benchmark generated from python API
(set-logic QF_UFNIRA)
(set-info :status unknown)
(declare-fun pw (Int) Real)
(declare-fun a () Int)
(assert
 (let ((?x1 (pw 0)))
 (= ?x1 1.0)))
(assert
 (>= a 0))
(assert
 (not (= (pw (+ a 0)) (* (pw a) (pw 0)))))
(check-sat)
