"""The gate's entries for the randomness itself, declared through the public spec API.

Every other entry of the gate is about a sampler's draws; these two are about the code that
makes the draws.  ``system-source`` checks :class:`~dpverify.samplers.SystemRandomSource`, whose
conversion from 64-bit OS words to ``randbelow(n)`` and ``bernoulli(num, den)`` every production
sample goes through; ``seeded-source`` checks :class:`~dpverify.samplers.SeededRandomSource`,
which every statistical check replays with.  Each runs the source's own methods over every
stream of words of a small width ``w`` (``width``, a parameter: 1, 2 and 3 are the cases) and
declares these checks, each a :class:`~dpverify.verify.engine._results.CheckResult` that must prove:

- ``randbelow_exact``: ``randbelow(n)`` is exactly uniform for every ``n`` of
  :func:`~dpverify.verify.gate._source_check.default_sizes` (one word, several words, powers of two
  and their neighbours);
- ``bernoulli_exact``: ``P[bernoulli(num, den)] = num/den`` for every pair of
  :func:`~dpverify.verify.gate._source_check.default_fractions`;
- ``successive_draws``: draws made one after the other on one source are independent;
- ``refuses``: invalid draws are refused, and a user's own source is guarded;
- ``production_words`` (system) and ``production_blocks`` (seeded): the production supplies
  themselves, as they run (see :mod:`dpverify.verify.gate._production_source`).

Why small widths say something about 64-bit words and 256-bit blocks, and what stays trusted
(the OS words and SHA-256 themselves), is argued in :mod:`dpverify.verify.gate._source_check`.
"""

from __future__ import annotations

from collections.abc import Callable

from dpverify.specs import Case, Integer, Params, SamplesPmf, Spec
from dpverify.verify.engine._results import CheckResult

__all__ = ["SEEDED_SOURCE", "SOURCE_SPECS", "SPECS", "SYSTEM_SOURCE"]

#: The widths the gate enumerates: together they take every path of the conversion.
WIDTHS = (1, 2, 3)


def _check(source: str, method: str) -> Callable[[Params], CheckResult]:
    def check(p: Params) -> CheckResult:
        from dpverify.verify.engine._results import Verdict
        from dpverify.verify.gate import _source_check, _word_sources

        try:
            run: Callable[..., CheckResult] = getattr(_source_check, method)
            return run(getattr(_word_sources, source), p["width"])
        except Exception as error:  # noqa: BLE001 - the source's code raised while being verified: a finding
            return CheckResult(
                method.removeprefix("check_"),
                Verdict.VIOLATED,
                f"the {source.lower()} source's code raised {type(error).__name__} while being verified "
                f"at width {p['width']}: {str(error)[:200]}",
            )

    check.__name__ = f"{method}_{source.lower()}"
    return check


def _production(method: str) -> Callable[[Params], CheckResult]:
    """A check of the production supply itself (the same at every width)."""

    def check(p: Params) -> CheckResult:
        from dpverify.verify.engine._results import Verdict
        from dpverify.verify.gate import _production_source

        try:
            run: Callable[[], CheckResult] = getattr(_production_source, method)
            return run()
        except Exception as error:  # noqa: BLE001 - the supply's code raised while being checked: a finding
            return CheckResult(
                method.removeprefix("check_"),
                Verdict.VIOLATED,
                f"the production supply raised {type(error).__name__}: {str(error)[:200]}",
            )

    check.__name__ = method
    return check


def _spec(name: str, source: str, what: str, description: str, cases: dict[int, str], production: str) -> Spec:
    return Spec(
        name=name,
        sampler=None,
        parameters={"width": Integer(1, 3)},
        claim=SamplesPmf(),
        checks=(
            *(
                _check(source, method)
                for method in ("check_randbelow", "check_bernoulli", "check_successive", "check_refuses")
            ),
            _production(production),
        ),
        description=description,
        citation=f"{what}; the argument for width 64 is in dpverify.verify.gate._source_check",
        cases=tuple(Case({"width": width}, "proved", why, label=f"width={width}") for width, why in cases.items()),
    )


SYSTEM_SOURCE = _spec(
    "system-source",
    "SYSTEM",
    "samplers/_random_source.py, SystemRandomSource",
    "the production source's conversion from OS words to randbelow and bernoulli, run over every stream of w-bit words",
    {
        1: "one-bit words: every k is a multiple of the width, up to 5 words per attempt",
        2: "k below, at and between multiples of the width; den below, at and above 2^w",
        3: "the widest affordable case: n up to 2^9 + 1 (4 words), den up to 2^10 + 1",
    },
    "check_production_words",
)

SEEDED_SOURCE = _spec(
    "seeded-source",
    "SEEDED",
    "samplers/_random_source.py, SeededRandomSource",
    "the replay source's bit pool over SHA-256 blocks, run over every stream of w-bit blocks",
    {
        1: "one-bit blocks: every attempt ends on a block boundary",
        2: "attempts share blocks, and unused bits carry over to the next draw",
        3: "blocks whose width divides few k: bits carried across draws and attempts",
    },
    "check_production_blocks",
)

#: The gate entries of this module, in the order the gate reports them.
SOURCE_SPECS: tuple[Spec, ...] = (SYSTEM_SOURCE, SEEDED_SOURCE)
#: The same, under the name ``dpverify check --spec-module dpverify.verify.gate._source_specs`` reads.
SPECS = SOURCE_SPECS
