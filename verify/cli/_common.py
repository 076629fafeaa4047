"""What several commands' command lines share."""

from __future__ import annotations

from collections.abc import Sequence

from dpverify.samplers import DpverifyError
from dpverify.samplers._rational import shown

__all__ = ["parameter_pairs"]


def parameter_pairs(tokens: Sequence[str]) -> list[tuple[str, str]]:
    """``--NAME VALUE`` and ``--NAME=VALUE`` pairs from the options argparse did not know."""
    pairs, index = [], 0
    while index < len(tokens):
        token = tokens[index]
        if not token.startswith("--") or len(token) == 2:
            raise DpverifyError(f"unexpected argument {shown(token)}; give the spec's parameters as --NAME VALUE.")
        name, equals, value = token[2:].partition("=")
        if not equals:
            if index + 1 >= len(tokens):
                raise DpverifyError(f"--{name} needs a value; give the spec's parameters as --NAME VALUE.")
            value = tokens[index + 1]
            index += 1
        pairs.append((name, value))
        index += 1
    return pairs
