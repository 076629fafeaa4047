"""OpenDP's sum of squared deviations moves by more than its declared sensitivity when one record changes
(opendp/opendp#2923, open; the rounding of the mean is not accounted for).  Library: opendp 0.16.0.
make_sum_of_squared_deviations on 1024 records in [2**50, 2**50 + 1] releases sum((x_i - mean)**2), mean and sum
computed pairwise in binary64, and declares through map(2) (one record changed: symmetric distance 2) how far that
moves.  The doubles in the bounds are 2**50 + k/4, k = 0..4; each pairwise node rounds to its own grid, so the
computed mean is 2**50 + (a round-half-even average of the digits k, taken pairwise) / 4.  One changed record can
move it (below, from 2**50 to 2**50 + 1/2) while the other records stay, so every deviation changes.  Two pairs:
the issue's (all records 2**50 + 1/4, one moved to 2**50 + 1/2) and a wider one chosen by a dynamic programme over
the pairwise tree (its digits below; the first record, k = 0, is changed to k = 2).  Both are run through the
library and compared exactly.  Nothing is sampled.  Usage: python opendp_ssd_sensitivity.py
"""

from fractions import Fraction

import opendp.prelude as dp

LOWER, SIZE = 2.0**50, 1024
DIGITS = (
    "012041104241201044414241411020104444424144414241424120104110201044444444444142414444424144414241"
    "444142414110201042412010411020104444444444444444444442414441424144444444444142414444424144414241"
    "444442414441424142412010411020104441424141102010424120104110201044444444444444444444444444444444"
    "444444444441424144444241444142414444444444444444444442414441424144444444444142414444424144414241"
    "444444444441424144444241444142414441424141102010424120104110201044444241444142414241201041102010"
    "444142414110201042412010411020104444444444444444444444444444444444444444444444444444444444444444"
    "444444444444444444444241444142414444444444414241444442414441424144444444444444444444444444444444"
    "444444444441424144444241444142414444444444444444444442414441424144444444444142414444424144414241"
    "444444444444444444444241444142414444444444414241444442414441424144444241444142414241201041102010"
    "444142414110201042412010411020104444444444414241444442414441424144414241411020104241201041102010"
    "4444424144414241424120104110201044414241411020104241201041102010"
)


def main() -> None:
    dp.enable_features("contrib")
    ssd = dp.t.make_sum_of_squared_deviations(
        dp.vector_domain(dp.atom_domain(bounds=(LOWER, LOWER + 1), nan=False), size=SIZE), dp.symmetric_distance()
    )
    declared = Fraction(ssd.map(2))
    print(f"declared sensitivity map(2) = {float(declared)!r} (one record changed)")
    issue_x = [LOWER + 0.25] * SIZE
    wide_x = [LOWER + int(k) / 4 for k in DIGITS]
    pairs = {
        "issue's pair": (issue_x, [LOWER + 0.5, *issue_x[1:]]),
        "wider pair": (wide_x, [LOWER + 2 / 4, *wide_x[1:]]),
    }
    exceeded = False
    for name, (x, y) in pairs.items():
        assert len(x) == len(y) == SIZE and sum(a != b for a, b in zip(x, y, strict=True)) == 1
        fx, fy = ssd(x), ssd(y)
        difference = abs(Fraction(fy) - Fraction(fx))
        exceeded |= difference > declared
        print(
            f"{name}: SSD {fx!r} and {fy!r}, exact difference {difference} "
            f"= {float(difference / declared):.3g} x declared"
        )
    print(f"declared sensitivity {float(declared)!r} exceeded: {exceeded}")


if __name__ == "__main__":
    main()
