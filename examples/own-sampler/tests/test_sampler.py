"""The maintainer's ordinary unit tests; `pytest --dpverify` adds the exact spec checks to them."""

from __future__ import annotations

import re
from collections import Counter
from fractions import Fraction

import pytest
from own_sampler.sampler import randomized_response


class Replay:
    """A source that returns the given draws in order, to pin each branch of the code."""

    def __init__(self, *draws: int) -> None:
        self.draws = list(draws)
        self.sizes: list[int] = []

    def randbelow(self, n: int) -> int:
        self.sizes.append(n)
        return self.draws.pop(0)


def test_one_draw_of_b_plus_k_minus_1_times_a() -> None:
    # alpha = 2/5, k = 3: N = 5 + 2*2 = 9; u < 5 keeps q, 5..6 the first other, 7..8 the second.
    outputs = [randomized_response(1, 3, Fraction(2, 5), Replay(u)) for u in range(9)]
    assert outputs == [1, 1, 1, 1, 1, 0, 0, 2, 2]


def test_every_draw_covers_each_output_as_the_distribution_says() -> None:
    k, alpha = 4, Fraction(2, 3)
    counts = Counter(randomized_response(2, k, alpha, Replay(u)) for u in range(3 + 3 * 2))
    assert counts == {2: 3, 0: 2, 1: 2, 3: 2}


@pytest.mark.parametrize(
    ("q", "k", "alpha", "message"),
    [
        (0, 1, Fraction(1, 2), "k must be an int >= 2"),
        (2, 2, Fraction(1, 2), "q must be an int with 0 <= q < k"),
        (True, 2, Fraction(1, 2), "q must be an int"),
        (0, 2, 0.5, "a float is not an exact ratio"),
        (0, 2, Fraction(0), "alpha must be in (0, 1]"),
        (0, 2, Fraction(3, 2), "alpha must be in (0, 1]"),
    ],
)
def test_refuses_bad_arguments(q: object, k: object, alpha: object, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        randomized_response(q, k, alpha, Replay(0))  # type: ignore[arg-type]
