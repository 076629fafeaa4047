; dpverify certificate: gtm/thm7.1/D=10,n=12 (catalogue instance, expected proved)
; parameters: alpha=1/10, n=12, T=11000000000000
; why: Theorem 7.1 with T = 11*10^12, beyond enumeration: the code's PMF comes from bisection
; dpverify: a pure-DP ratio bound, negated (Amorim, Gaboardi, Rindisbacher,
;   "Verified Differential Privacy for Finite Computers", section 2).
; claim: alpha * P(x|q') <= P(x|q) for all ordered neighbours (q, q') and outputs x,
;   alpha = 1/10.
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
(assert (< i 46))
; i=0: q=0, q'=1, x=0
(assert (=> (= i 0) (and (= p 10000000000000) (= p2 1000000000000))))
; i=1: q=1, q'=0, x=0
(assert (=> (= i 1) (and (= p 1000000000000) (= p2 10000000000000))))
; i=2: q=0, q'=1, x=1
(assert (=> (= i 2) (and (= p 900000000000) (= p2 9000000000000))))
; i=3: q=1, q'=0, x=1
(assert (=> (= i 3) (and (= p 9000000000000) (= p2 900000000000))))
; i=4: q=0, q'=1, x=2
(assert (=> (= i 4) (and (= p 90000000000) (= p2 900000000000))))
; i=5: q=1, q'=0, x=2
(assert (=> (= i 5) (and (= p 900000000000) (= p2 90000000000))))
; i=6: q=0, q'=1, x=3
(assert (=> (= i 6) (and (= p 9000000000) (= p2 90000000000))))
; i=7: q=1, q'=0, x=3
(assert (=> (= i 7) (and (= p 90000000000) (= p2 9000000000))))
; i=8: q=0, q'=1, x=4
(assert (=> (= i 8) (and (= p 900000000) (= p2 9000000000))))
; i=9: q=1, q'=0, x=4
(assert (=> (= i 9) (and (= p 9000000000) (= p2 900000000))))
; i=10: q=0, q'=1, x=5
(assert (=> (= i 10) (and (= p 90000000) (= p2 900000000))))
; i=11: q=1, q'=0, x=5
(assert (=> (= i 11) (and (= p 900000000) (= p2 90000000))))
; i=12: q=0, q'=1, x=6
(assert (=> (= i 12) (and (= p 9000000) (= p2 90000000))))
; i=13: q=1, q'=0, x=6
(assert (=> (= i 13) (and (= p 90000000) (= p2 9000000))))
; i=14: q=0, q'=1, x=7
(assert (=> (= i 14) (and (= p 900000) (= p2 9000000))))
; i=15: q=1, q'=0, x=7
(assert (=> (= i 15) (and (= p 9000000) (= p2 900000))))
; i=16: q=0, q'=1, x=8
(assert (=> (= i 16) (and (= p 90000) (= p2 900000))))
; i=17: q=1, q'=0, x=8
(assert (=> (= i 17) (and (= p 900000) (= p2 90000))))
; i=18: q=0, q'=1, x=9
(assert (=> (= i 18) (and (= p 9000) (= p2 90000))))
; i=19: q=1, q'=0, x=9
(assert (=> (= i 19) (and (= p 90000) (= p2 9000))))
; i=20: q=0, q'=1, x=10
(assert (=> (= i 20) (and (= p 900) (= p2 9000))))
; i=21: q=1, q'=0, x=10
(assert (=> (= i 21) (and (= p 9000) (= p2 900))))
; i=22: q=0, q'=1, x=11
(assert (=> (= i 22) (and (= p 90) (= p2 900))))
; i=23: q=1, q'=0, x=11
(assert (=> (= i 23) (and (= p 900) (= p2 90))))
; i=24: q=0, q'=1, x=12
(assert (=> (= i 24) (and (= p 10) (= p2 100))))
; i=25: q=1, q'=0, x=12
(assert (=> (= i 25) (and (= p 100) (= p2 10))))
; i=26: q=1, q'=2, x=0
(assert (=> (= i 26) (and (= p 1000000000000) (= p2 100000000000))))
; i=27: q=2, q'=1, x=0
(assert (=> (= i 27) (and (= p 100000000000) (= p2 1000000000000))))
; i=28: q=1, q'=2, x=12
(assert (=> (= i 28) (and (= p 100) (= p2 1000))))
; i=29: q=2, q'=1, x=12
(assert (=> (= i 29) (and (= p 1000) (= p2 100))))
; i=30: q=2, q'=3, x=0
(assert (=> (= i 30) (and (= p 100000000000) (= p2 10000000000))))
; i=31: q=3, q'=2, x=0
(assert (=> (= i 31) (and (= p 10000000000) (= p2 100000000000))))
; i=32: q=2, q'=3, x=12
(assert (=> (= i 32) (and (= p 1000) (= p2 10000))))
; i=33: q=3, q'=2, x=12
(assert (=> (= i 33) (and (= p 10000) (= p2 1000))))
; i=34: q=3, q'=4, x=0
(assert (=> (= i 34) (and (= p 10000000000) (= p2 1000000000))))
; i=35: q=4, q'=3, x=0
(assert (=> (= i 35) (and (= p 1000000000) (= p2 10000000000))))
; i=36: q=3, q'=4, x=12
(assert (=> (= i 36) (and (= p 10000) (= p2 100000))))
; i=37: q=4, q'=3, x=12
(assert (=> (= i 37) (and (= p 100000) (= p2 10000))))
; i=38: q=4, q'=5, x=0
(assert (=> (= i 38) (and (= p 1000000000) (= p2 100000000))))
; i=39: q=5, q'=4, x=0
(assert (=> (= i 39) (and (= p 100000000) (= p2 1000000000))))
; i=40: q=4, q'=5, x=12
(assert (=> (= i 40) (and (= p 100000) (= p2 1000000))))
; i=41: q=5, q'=4, x=12
(assert (=> (= i 41) (and (= p 1000000) (= p2 100000))))
; i=42: q=5, q'=6, x=0
(assert (=> (= i 42) (and (= p 100000000) (= p2 10000000))))
; i=43: q=6, q'=5, x=0
(assert (=> (= i 43) (and (= p 10000000) (= p2 100000000))))
; i=44: q=5, q'=6, x=12
(assert (=> (= i 44) (and (= p 1000000) (= p2 10000000))))
; i=45: q=6, q'=5, x=12
(assert (=> (= i 45) (and (= p 10000000) (= p2 1000000))))
; the negated claim: a * p2 > b * p
(assert (> (* 1 p2) (* 10 p)))
(check-sat)
(exit)
