; dpverify certificate: gtm/thm7.1/D=2,n=1 (catalogue instance, expected proved)
; parameters: alpha=1/2, n=1, T=6
; why: Theorem 7.1 at the smallest n: D = 2, T = 3*2
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
(assert (< i 2))
; i=0: q=0, q'=1, x=0
(assert (=> (= i 0) (and (= p 4) (= p2 2))))
; i=1: q=1, q'=0, x=0
(assert (=> (= i 1) (and (= p 2) (= p2 4))))
; the negated claim: a * p2 > b * p
(assert (> (* 1 p2) (* 2 p)))
(check-sat)
(exit)
