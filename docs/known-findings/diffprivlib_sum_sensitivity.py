"""diffprivlib's tools.sum computes a sum whose sensitivity exceeds the declared one (Casacuberta et
al., CCS 2022, Section 4).  Library: diffprivlib 0.6.6.  With bounds (0, 1) it adds noise for a
sensitivity of upper - lower = 1; these neighbours (one record added), found by dpverify's Z3 search
over numpy's summation order, have computed sums (epsilon = inf: the sum itself, no noise) whose
exact difference exceeds 1.  Nothing is sampled.  Usage: python diffprivlib_sum_sensitivity.py
"""

import warnings
from fractions import Fraction

from diffprivlib.tools import sum as private_sum

D = [float.fromhex(h) for h in ("0x1.b1fe1c1101f38p-4", "0x0.6db1d67c3902ep-1022", "0x0.0p+0")]
ADDED = 1.0


def main() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # epsilon = inf: diffprivlib warns that there is no privacy
        before = private_sum(D, epsilon=float("inf"), bounds=(0, 1))
        after = private_sum([*D, ADDED], epsilon=float("inf"), bounds=(0, 1))
    difference = abs(Fraction(float(after)) - Fraction(float(before)))
    print(
        f"sums {float(before)!r} and {float(after)!r}: exact difference {difference} = 1 + {float(difference - 1):.3g}"
    )
    print(f"declared sensitivity 1 exceeded: {difference > 1}")


if __name__ == "__main__":
    main()
