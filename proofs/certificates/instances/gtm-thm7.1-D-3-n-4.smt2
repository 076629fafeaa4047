; dpverify certificate: gtm/thm7.1/D=3,n=4 (catalogue instance, expected proved)
; parameters: alpha=1/3, n=4, T=324
; why: Theorem 7.1: alpha = 1/D with T = (D+1)*D^n samples gtpmf exactly, so alpha-DP holds
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
(assert (< i 14))
; i=0: q=0, q'=1, x=0
(assert (=> (= i 0) (and (= p 243) (= p2 81))))
; i=1: q=1, q'=0, x=0
(assert (=> (= i 1) (and (= p 81) (= p2 243))))
; i=2: q=0, q'=1, x=1
(assert (=> (= i 2) (and (= p 54) (= p2 162))))
; i=3: q=1, q'=0, x=1
(assert (=> (= i 3) (and (= p 162) (= p2 54))))
; i=4: q=0, q'=1, x=2
(assert (=> (= i 4) (and (= p 18) (= p2 54))))
; i=5: q=1, q'=0, x=2
(assert (=> (= i 5) (and (= p 54) (= p2 18))))
; i=6: q=0, q'=1, x=3
(assert (=> (= i 6) (and (= p 6) (= p2 18))))
; i=7: q=1, q'=0, x=3
(assert (=> (= i 7) (and (= p 18) (= p2 6))))
; i=8: q=0, q'=1, x=4
(assert (=> (= i 8) (and (= p 3) (= p2 9))))
; i=9: q=1, q'=0, x=4
(assert (=> (= i 9) (and (= p 9) (= p2 3))))
; i=10: q=1, q'=2, x=0
(assert (=> (= i 10) (and (= p 81) (= p2 27))))
; i=11: q=2, q'=1, x=0
(assert (=> (= i 11) (and (= p 27) (= p2 81))))
; i=12: q=1, q'=2, x=4
(assert (=> (= i 12) (and (= p 9) (= p2 27))))
; i=13: q=2, q'=1, x=4
(assert (=> (= i 13) (and (= p 27) (= p2 9))))
; the negated claim: a * p2 > b * p
(assert (> (* 1 p2) (* 3 p)))
(check-sat)
(exit)
