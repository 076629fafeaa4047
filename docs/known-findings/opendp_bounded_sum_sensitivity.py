"""OpenDP's float bounded sum computes a sum whose sensitivity exceeds the declared one (Casacuberta, Shoemate,
Vadhan, Wagaman, CCS 2022, arXiv 2207.10635; fixed in OpenDP 0.5.0 by PR #467 "consider finite types in sum").
Library: opendp 0.4.0.  make_bounded_sum(bounds=(0., 1.)) releases the sum of the records, folded left from 0 in
binary64, and declares, through check(1, d_out), that adding or removing one record (symmetric distance 1) moves
it by at most d_out = 1.0.  Two neighbouring pairs (D' = D plus one record), one found by dpverify's Z3 search and
one built by hand, have computed sums whose exact difference exceeds 1.  Nothing is sampled.
At 0.5.0 the same script prints the relaxed declared sensitivity (map(1), which covers both pairs).
Usage: python opendp_bounded_sum_sensitivity.py
"""

import math
from fractions import Fraction

from opendp.mod import enable_features
from opendp.trans import make_bounded_sum

PAIRS = {
    "found by Z3": ([float.fromhex("0x1.fffffffffffffp-1")], 1.0),
    "built by hand": ([2.0**-53 + 2.0**-105] * 1000, 1.0),  # 1.0 first, then 1000 values just above half an ulp
}


def main() -> None:
    enable_features("contrib", "floating-point")
    trans = make_bounded_sum(bounds=(0.0, 1.0))
    declared = Fraction(trans.map(1)) if hasattr(trans, "map") else Fraction(1)
    below = math.nextafter(1.0, 0.0)
    print(
        f"check(1, 1.0) = {trans.check(1, 1.0)}, check(1, {below!r}) = {trans.check(1, below)}: "
        f"declared sensitivity d_out = {float(declared)!r}"
    )
    exceeded = False
    for name, (dataset, record) in PAIRS.items():
        neighbour = [record, *dataset] if name == "built by hand" else [*dataset, record]
        before, after = trans(dataset), trans(neighbour)
        difference = abs(Fraction(after) - Fraction(before))
        exceeded |= difference > declared
        print(
            f"{name}: {len(dataset)} records, then {len(neighbour)} with {record!r} added: sums {before!r} and "
            f"{after!r}, exact difference {difference} = 1 + {float(difference - 1):.3g}"
        )
    print(f"declared sensitivity {float(declared)!r} exceeded: {exceeded}")


if __name__ == "__main__":
    main()
