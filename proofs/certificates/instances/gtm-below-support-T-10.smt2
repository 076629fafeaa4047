; dpverify certificate: gtm/below-support/T=10 (catalogue instance, expected violated)
; parameters: alpha=1/2, n=5, T=10
; why: T = 10 is below the support bound 96: some output is impossible for q and possible for q', an infinite privacy loss
; dpverify: a pure-DP ratio bound, negated (Amorim, Gaboardi, Rindisbacher,
;   "Verified Differential Privacy for Finite Computers", section 2).
; claim: alpha * P(x|q') <= P(x|q) for all ordered neighbours (q, q') and outputs x,
;   alpha = 1/2.
; p, p2: P(x|q), P(x|q') times the lcm of their denominators (the same ratio).
; unsat: the claim holds for every entry of the table (proved).
; sat: it is violated; the model's i names the entry: the comment above its case
;   gives the first (q, q', x) with those probabilities, and
;   p/p2 = P(x|q)/P(x|q') < alpha (p = 0: infinite loss); (get-value (i)) shows i.
(set-option :produce-models true)
(set-logic QF_LIA)
(declare-const i Int)
(declare-const p Int)
(declare-const p2 Int)
(assert (>= i 0))
(assert (< i 15))
; i=0: q=0, q'=1, x=0
(assert (=> (= i 0) (and (= p 6) (= p2 3))))
; i=1: q=1, q'=0, x=0
(assert (=> (= i 1) (and (= p 3) (= p2 6))))
; i=2: q=0, q'=1, x=1
(assert (=> (= i 2) (and (= p 2) (= p2 3))))
; i=3: q=1, q'=0, x=1
(assert (=> (= i 3) (and (= p 3) (= p2 2))))
; i=4: q=0, q'=1, x=2
(assert (=> (= i 4) (and (= p 1) (= p2 2))))
; i=5: q=1, q'=0, x=2
(assert (=> (= i 5) (and (= p 2) (= p2 1))))
; i=6: q=0, q'=1, x=3
(assert (=> (= i 6) (and (= p 0) (= p2 1))))
; i=7: q=1, q'=0, x=3
(assert (=> (= i 7) (and (= p 1) (= p2 0))))
; i=8: q=0, q'=1, x=5
(assert (=> (= i 8) (and (= p 1) (= p2 1))))
; i=9: q=1, q'=2, x=0
(assert (=> (= i 9) (and (= p 3) (= p2 1))))
; i=10: q=2, q'=1, x=0
(assert (=> (= i 10) (and (= p 1) (= p2 3))))
; i=11: q=3, q'=4, x=5
(assert (=> (= i 11) (and (= p 2) (= p2 4))))
; i=12: q=4, q'=3, x=5
(assert (=> (= i 12) (and (= p 4) (= p2 2))))
; i=13: q=4, q'=5, x=5
(assert (=> (= i 13) (and (= p 4) (= p2 7))))
; i=14: q=5, q'=4, x=5
(assert (=> (= i 14) (and (= p 7) (= p2 4))))
; the negated claim: a * p2 > b * p
(assert (> (* 1 p2) (* 2 p)))
(check-sat)
(exit)
