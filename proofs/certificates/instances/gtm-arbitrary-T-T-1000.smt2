; dpverify certificate: gtm/arbitrary-T/T=1000 (catalogue instance, expected violated)
; parameters: alpha=1/3, n=5, T=1000
; why: an arbitrary T rounds the CDF, so the ratio drops below alpha (paper §6)
; dpverify: a pure-DP ratio bound, negated (Amorim, Gaboardi, Rindisbacher,
;   "Verified Differential Privacy for Finite Computers", section 2).
; claim: alpha * P(x|q') <= P(x|q) for all ordered neighbours (q, q') and outputs x,
;   alpha = 1/3.
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
(assert (< i 30))
; i=0: q=0, q'=1, x=0
(assert (=> (= i 0) (and (= p 750) (= p2 250))))
; i=1: q=1, q'=0, x=0
(assert (=> (= i 1) (and (= p 250) (= p2 750))))
; i=2: q=0, q'=1, x=1
(assert (=> (= i 2) (and (= p 166) (= p2 500))))
; i=3: q=1, q'=0, x=1
(assert (=> (= i 3) (and (= p 500) (= p2 166))))
; i=4: q=0, q'=1, x=2
(assert (=> (= i 4) (and (= p 56) (= p2 166))))
; i=5: q=1, q'=0, x=2
(assert (=> (= i 5) (and (= p 166) (= p2 56))))
; i=6: q=0, q'=1, x=3
(assert (=> (= i 6) (and (= p 18) (= p2 56))))
; i=7: q=1, q'=0, x=3
(assert (=> (= i 7) (and (= p 56) (= p2 18))))
; i=8: q=0, q'=1, x=4
(assert (=> (= i 8) (and (= p 6) (= p2 18))))
; i=9: q=1, q'=0, x=4
(assert (=> (= i 9) (and (= p 18) (= p2 6))))
; i=10: q=0, q'=1, x=5
(assert (=> (= i 10) (and (= p 4) (= p2 10))))
; i=11: q=1, q'=0, x=5
(assert (=> (= i 11) (and (= p 10) (= p2 4))))
; i=12: q=1, q'=2, x=0
(assert (=> (= i 12) (and (= p 250) (= p2 83))))
; i=13: q=2, q'=1, x=0
(assert (=> (= i 13) (and (= p 83) (= p2 250))))
; i=14: q=1, q'=2, x=1
(assert (=> (= i 14) (and (= p 500) (= p2 167))))
; i=15: q=2, q'=1, x=1
(assert (=> (= i 15) (and (= p 167) (= p2 500))))
; i=16: q=1, q'=2, x=5
(assert (=> (= i 16) (and (= p 10) (= p2 28))))
; i=17: q=2, q'=1, x=5
(assert (=> (= i 17) (and (= p 28) (= p2 10))))
; i=18: q=2, q'=3, x=0
(assert (=> (= i 18) (and (= p 83) (= p2 27))))
; i=19: q=3, q'=2, x=0
(assert (=> (= i 19) (and (= p 27) (= p2 83))))
; i=20: q=2, q'=3, x=1
(assert (=> (= i 20) (and (= p 167) (= p2 56))))
; i=21: q=3, q'=2, x=1
(assert (=> (= i 21) (and (= p 56) (= p2 167))))
; i=22: q=2, q'=3, x=5
(assert (=> (= i 22) (and (= p 28) (= p2 84))))
; i=23: q=3, q'=2, x=5
(assert (=> (= i 23) (and (= p 84) (= p2 28))))
; i=24: q=3, q'=4, x=0
(assert (=> (= i 24) (and (= p 27) (= p2 9))))
; i=25: q=4, q'=3, x=0
(assert (=> (= i 25) (and (= p 9) (= p2 27))))
; i=26: q=3, q'=4, x=5
(assert (=> (= i 26) (and (= p 84) (= p2 250))))
; i=27: q=4, q'=3, x=5
(assert (=> (= i 27) (and (= p 250) (= p2 84))))
; i=28: q=4, q'=5, x=0
(assert (=> (= i 28) (and (= p 9) (= p2 3))))
; i=29: q=5, q'=4, x=0
(assert (=> (= i 29) (and (= p 3) (= p2 9))))
; the negated claim: a * p2 > b * p
(assert (> (* 1 p2) (* 3 p)))
(check-sat)
(exit)
