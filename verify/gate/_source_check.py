"""The production randomness, proved exact on its own code by enumerating every word it reads.

Every verdict of the engine is about a sampler's draws (``randbelow``, ``bernoulli``); this
module verifies the code that makes those draws from raw randomness:

- :class:`~dpverify.samplers.SystemRandomSource`, the production source, turns 64-bit OS words
  into ``randbelow(n)`` (the top ``k = (n-1).bit_length()`` bits of ``ceil(k/64)`` words,
  rejected while ``>= n``) and ``bernoulli(num, den)`` (a uniform ``U`` compared with
  ``p = num/den``, 64 bits at a time);
- :class:`~dpverify.samplers.SeededRandomSource`, which every statistical check replays with,
  turns 256-bit SHA-256 blocks into a pool of bits, ``randbelow(n)`` takes ``k`` bits of it
  and rejects, ``bernoulli(num, den)`` is ``randbelow(den) < num``.  A biased replay source
  would make every statistical verdict meaningless.

How.  Both sources can run their production methods over an injected supply of words of any
width ``w`` (:meth:`SystemRandomSource.from_words`, :meth:`SeededRandomSource.from_blocks`).
Here each word is ``rng.randbelow(2**w)`` of the enumerating source
(:func:`~dpverify.verify.engine._enumerate.enumerate_outputs`), so the walker runs the real code once
per word stream, every stream of up to ``D`` words, each weighted by its exact probability
``2^(-w * words)``.  Every path that reads more than ``D`` words is cut, and its mass is the
exact remainder ``U``.  ``D`` is at least one whole attempt and :data:`LOOP_BITS` bits of words
for ``randbelow``, :data:`BERNOULLI_BITS` bits for a digit-wise ``bernoulli``, and
:data:`SEQUENCE_BITS` bits for successive draws.  Three things are checked for every call, in
this order:

1. **The law, with no assumption.**  The code's probability of each output ``o`` lies in
   ``[E(o), E(o) + U]`` (``E`` the explored mass).  Violated when the ideal probability (``1/n``
   for ``randbelow(n)``, ``p`` and ``1 - p`` for ``bernoulli``, 0 for any other output) lies
   outside.  This is the whole loop checked as it runs, retries included: it catches a loop
   that returns a rejected value, redraws wrongly, or returns something else.
2. **The documented conversion, exactly.**  The joint law of (output, words read) over every
   stream of up to ``D`` words must equal that of the conversion the docstrings describe,
   computed independently: attempt ``i`` of ``randbelow`` is ``k`` fresh uniform bits,
   each value below ``n`` with mass ``2^-k (1 - n 2^-k)^(i-1)``, and it ends after ``i *
   ceil(k/w)`` words (SystemRandomSource: each attempt takes whole new words) or after
   ``ceil(i k / w)`` blocks (SeededRandomSource: unused bits stay in the pool); ``bernoulli``
   of SystemRandomSource decides at word ``j`` with True iff the word is below the ``j``-th
   ``w``-bit digit of ``p`` after ``j - 1`` ties, False on a tie that ends ``p``'s expansion.
   So the edge cases of the contract are checked too: ``randbelow(1)`` and SystemRandomSource's
   ``bernoulli(0, d)`` and ``bernoulli(d, d)`` read no word.  A mutant that reads a different
   number of words per attempt, or never accepts, is violated here even where its remaining
   mass ``U`` hides its bias from step 1.
3. **Exactness.**  ``randbelow`` (and SeededRandomSource's ``bernoulli``) loop over attempts.
   Its first attempt (for SeededRandomSource, everything read within the first attempt's
   blocks) is enumerated completely in step 2, so its exact law ``A`` is known, and the
   loop's law is ``A(z) / sum A`` by :func:`~dpverify.verify.engine._intervals.renewal`; it must be
   exactly ``1/n``.  Renewal assumes each attempt after a rejection reads fresh uniform bits,
   independent of the past: SystemRandomSource's loop keeps no state between attempts (new
   words each time); SeededRandomSource's next attempt starts with the bits the pool kept,
   which the attempt did not look at.  That premise is read from the code, not enumerated;
   what is enumerated backs it: step 2 matches the documented attempts over ``D`` words (two
   or more attempts where affordable), and :func:`check_successive` checks that the bits
   carried from one draw to the next are fresh.  ``bernoulli`` of SystemRandomSource has no
   loop: it is exact when its enumeration is exhaustive (``p``'s expansion ends within ``D``
   words, i.e. ``den`` divides ``2^(w D)``), and otherwise proved within ``U = 2^(-w D)``,
   the mass of the one stream that ties every digit: ``|P[True] - p| <= 2^(-w D)``.

Successive draws.  A source with state (SeededRandomSource's pool) could make two draws
dependent while each is uniform.  :func:`check_successive` enumerates short sequences of draws
on one source (``(randbelow(n1), randbelow(n2))``, a ``bernoulli`` then a ``randbelow``, ...)
and compares them with the product of the ideal laws: exactly for sizes that never reject
(powers of two, ``p = 1/2``), within the stated remainder ``U`` otherwise.  The same is run on
SystemRandomSource, whose words are never shared between draws.

Why small widths cover 64.  The conversion is generic in the width: it uses only shifts by
``w``, by ``w - k`` and ``w * words - k``, ors, ``divmod(num << w, den)`` and comparisons, on
Python's unbounded ints, with no constant but 0 and 1 (:func:`width_generic` checks that on the
code objects; a literal 64 would be a path the small widths never take).  So what it does
depends only on how ``k`` relates to ``w`` and on how ``p``'s expansion ends, and every case is
enumerated at the widths 1, 2 and 3:

- ``randbelow``: ``n = 1`` (no word); ``k < w`` (one word, its top bits: ``w >= 2``); ``k = w``
  (one whole word); ``k`` a multiple of ``w`` above it (several whole words); ``k`` above
  ``w`` and not a multiple (several words, the last one's low bits dropped: ``w >= 2``);
  each with ``n = 2^k`` (never rejects), ``n = 2^(k-1) + 1`` (rejects most) and sizes between,
  up to ``n = 2^(3w) + 1``, whose attempt reads 4 words (5 words at width 1);
- ``bernoulli``: ``p = 0`` and ``p = 1`` (no word); every ``num/den`` with small ``den``
  (``den <= 2^(2w) + 1`` at widths 1 and 2, ``<= 2^(w+1) + 1`` at width 3), so ``den`` below,
  at and above ``2^w``; ``den`` a power of two and its neighbours up to ``2^(3w+1)``, and an odd
  ``den`` above ``2^(3w)``, so that ``p``'s digits span several words, end after one or several
  words, or never end;
- SeededRandomSource: the same sizes at block widths 1 (every attempt ends on a block
  boundary), 2 and 3 (attempts share blocks and carry bits over), and its coins
  ``randbelow(den) < num`` for every ``num/den`` with ``den <= 2^(w+1) + 1`` and a few
  numerators of the larger sizes.

What is not covered: that the words themselves are uniform and independent is the trusted
base (os.urandom; SHA-256 in counter mode), and so is the pool around them (``_pop`` hands out
each 64-bit word once, refills on IndexError, and is emptied in a fork's child): the supply
replaces exactly those.  Each method's first lines choose the supply (production: the pool,
its refill on IndexError and ``w = 64``; an injected source: its words and width); that choice
is read, not enumerated, since the enumerated words never raise IndexError.  A mutant that
loops for ever without reading a word is out of reach
of any enumeration (a path ends at a return, a word or an exception); one that keeps reading
words is cut at ``D`` words and gets a verdict.

Where it lives.  This module holds the default cases and the checks; the sources under test
and their draws are :mod:`~dpverify.verify.gate._word_sources`, the documented conversion of
step 2 :mod:`~dpverify.verify.gate._documented_conversion` (which never imports the sources'
code), and the walk over every word stream with its findings :mod:`~dpverify.verify.gate._source_walk`.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from dpverify.samplers import InvalidArgument, RandomSource, SystemRandomSource
from dpverify.samplers._rational import shown
from dpverify.verify.engine._bytecode import UnknownInterpreter, bytecode
from dpverify.verify.engine._results import CheckResult, Verdict, fraction_text
from dpverify.verify.engine._text import short_rational
from dpverify.verify.gate._real_runs import NoOutput, once
from dpverify.verify.gate._source_walk import (
    BERNOULLI_BITS,
    LOOP_BITS,
    SEQUENCE_BITS,
    _attempt_call,
    _digit_call,
    _Finding,
    _sequence,
)
from dpverify.verify.gate._word_sources import SYSTEM, Call, WordSource, _call_text, _need_source, _need_width

__all__ = [
    "REFUSAL_SECONDS",
    "WALK_SECONDS",
    "check_bernoulli",
    "check_randbelow",
    "check_refuses",
    "check_source",
    "check_successive",
    "default_fractions",
    "default_sequences",
    "default_sizes",
    "refusal_problem",
    "width_generic",
]


# --- the default cases at one width ---------------------------------------------------------


def default_sizes(width: int) -> tuple[int, ...]:
    """The ``n`` that :func:`check_randbelow` takes at ``width``: every ``n`` up to
    ``2^(w+1) + 1``; each ``2^j - 1``, ``2^j``, ``2^j + 1`` and ``3 * 2^(j-2)`` (a size between
    two powers) up to ``j = 3w``; and ``2^(3w) + 1``, whose attempt reads 4 words.  At width 1,
    where words are cheap, ``j`` goes one further.

    >>> default_sizes(1)
    (1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 15, 16, 17)
    """
    width = _need_width(width)
    top = 3 * width + (width == 1)
    sizes = set(range(1, 2 ** (width + 1) + 2)) | {2 ** (3 * width) + 1}
    for j in range(2, top + 1):
        sizes |= {2**j - 1, 2**j, 2**j + 1, 3 * 2 ** (j - 2)}
    return tuple(sorted(sizes))


def default_fractions(width: int, *, digits: bool = True) -> tuple[tuple[int, int], ...]:
    """The ``(num, den)`` that :func:`check_bernoulli` takes at ``width``.

    With ``digits`` (a coin that compares ``p``'s ``w``-bit digits, SystemRandomSource's): every
    ``num/den`` with ``den <= 2^(2w) + 1`` (``2^(w+1) + 1`` from width 3 on); for each ``den``
    in ``2^j - 1, 2^j, 2^j + 1`` up to ``j = 3w + 1`` and the odd ``3^m`` just above
    ``2^(3w)``, the numerators ``0, 1, den/3, den/2, den - 1, den``.  Without (a coin that is
    ``randbelow(den) < num``, whose sizes :func:`check_randbelow` already covers): every
    ``num/den`` with ``den <= 2^(w+1) + 1``, and ``0, 1, den/2, den - 1, den`` for the other
    sizes of :func:`default_sizes` up to ``2^(2w) + 1``.

    >>> len(default_fractions(1)), len(default_fractions(1, digits=False))
    (56, 20)
    """
    width = _need_width(width)
    if not digits:
        small = 2 ** (width + 1) + 1
        pairs = {(num, den) for den in range(1, small + 1) for num in range(den + 1)}
        for den in default_sizes(width):
            if small < den <= 2 ** (2 * width) + 1:
                pairs |= {(num, den) for num in (0, 1, den // 2, den - 1, den)}
        return tuple(sorted(pairs, key=lambda pair: (pair[1], pair[0])))
    small = 2 ** (2 * width) + 1 if width <= 2 else 2 ** (width + 1) + 1
    pairs = {(num, den) for den in range(1, small + 1) for num in range(den + 1)}
    odd = 3
    while odd <= 2 ** (3 * width):
        odd *= 3
    dens = {odd} | {2**j + d for j in range(2, 3 * width + 2) for d in (-1, 0, 1)}
    for den in dens:
        pairs |= {(num, den) for num in (0, 1, den // 3, den // 2, den - 1, den) if 0 <= num <= den}
    return tuple(sorted(pairs, key=lambda pair: (pair[1], pair[0])))


def default_sequences(width: int) -> tuple[tuple[Call, ...], ...]:
    """Short sequences of draws on one source for :func:`check_successive` at ``width``: two
    or three draws whose bits cross a word boundary (exact: powers of two and ``p = 1/2``), and
    two with rejections (``randbelow(3)``, ``randbelow(7)``, ``bernoulli(1, 3)``)."""
    width = _need_width(width)

    def r(n: int) -> Call:
        return Call("randbelow", (n,))

    def b(num: int, den: int) -> Call:
        return Call("bernoulli", (num, den))

    return (
        (r(2), r(2), r(2)),
        (r(2 ** (width + 1)), r(4)),
        (r(4), r(2**width)),
        (b(1, 2), r(2 ** (width + 1))),
        (r(3), r(7)),
        (b(1, 3), r(3)),
    )


# --- the checks --------------------------------------------------------------------------------


def width_generic(source: WordSource) -> list[str]:
    """The integer constants other than 0 and 1 in the code of the source's conversion
    (``randbelow``, ``bernoulli`` and the pool's ``_bits``, as its class defines them); empty
    when the code is generic in the width, so that small widths take every path it has."""
    probe = source.build(lambda: 0, 1)
    found = []
    for name in ("randbelow", "bernoulli", "_bits"):
        function = getattr(type(probe), name, None)
        function = inspect.unwrap(function) if function is not None else None
        code = getattr(function, "__code__", None)
        if code is not None:
            constants = bytecode("the source check's scan for width constants").integer_constants(code)
            found += [f"{name}: {value}" for value in constants if value not in (0, 1)]
    return found


def _result(
    check: str,
    source: WordSource,
    width: int,
    findings: list[tuple[Call | tuple[Call, ...], Fraction, _Finding]],
    proved: str,
    bound: str,
) -> CheckResult:
    """One CheckResult over the findings of one method at one width: the first violation, else
    the first inconclusive finding, else proved."""
    base: dict[str, Any] = {"source": source.name, "width": width, "calls_run": len(findings)}
    try:
        constants = width_generic(source)
    except UnknownInterpreter as error:  # the scan reads bytecode: no proof rests on an unread scan
        return CheckResult(check, Verdict.INCONCLUSIVE, str(error), reason=str(error), evidence=base)
    for verdict in (Verdict.VIOLATED, Verdict.INCONCLUSIVE):
        for call, _, finding in findings:
            if finding.verdict is verdict:
                evidence = {**base, "call": _call_text(call), **finding.evidence}
                reason = finding.summary if verdict is Verdict.INCONCLUSIVE else None
                return CheckResult(check, verdict, finding.summary, reason=reason, evidence=evidence)
    if constants:
        reason = (
            f"{source.name}'s conversion holds constants other than 0 and 1 ({', '.join(constants)}): "
            "a path the small widths may never take, so they do not cover width 64"
        )
        return CheckResult(
            check, Verdict.INCONCLUSIVE, reason, reason=reason, evidence={**base, "constants": constants}
        )
    worst = max((u for _, u, _ in findings), default=Fraction(0))
    return CheckResult(
        check,
        Verdict.PROVED,
        proved,
        evidence={
            **base,
            "max_unexplored": fraction_text(worst),
            "max_unexplored_decimal": short_rational(worst),
            "bound": bound,
            "calls_checked": [_call_text(c) for c, _, _ in findings],
        },
    )


def _run_all(
    calls: Sequence[Call | tuple[Call, ...]], one: Callable[[Any], tuple[Fraction, _Finding]]
) -> list[tuple[Call | tuple[Call, ...], Fraction, _Finding]]:
    """``one(call)`` for each call in turn, stopping at the first violation, or at the first walk
    still running after :data:`WALK_SECONDS` (inconclusive: the walks after it would loop too)."""
    findings = []
    for call in calls:
        try:
            findings.append((call, *once(functools.partial(one, call), WALK_SECONDS)))
        except NoOutput:
            reason = (
                f"the walk of {_call_text(call)} had not ended after {WALK_SECONDS} s (each of the unmodified "
                "conversion's walks takes well under a second): a loop that reads no words, or one far longer "
                "than the conversion's"
            )
            findings.append((call, Fraction(1), _Finding(Verdict.INCONCLUSIVE, reason, {"reason": reason})))
            break
        if findings[-1][2].verdict is Verdict.VIOLATED:
            break
    return findings


def check_randbelow(source: WordSource, width: int, sizes: Sequence[int] | None = None) -> CheckResult:
    """``randbelow(n)`` of ``source`` at ``width``, for every ``n`` in ``sizes`` (default:
    :func:`default_sizes`): the law, the documented conversion and exactness (module docstring)."""
    source, width = _need_source(source), _need_width(width)
    sizes = default_sizes(width) if sizes is None else tuple(sizes)
    if not sizes or not all(type(n) is int and n >= 1 for n in sizes):
        raise InvalidArgument(f"sizes must hold ints n >= 1, at least one; got sizes={shown(sizes)}.")
    findings = _run_all([Call("randbelow", (n,)) for n in sizes], lambda call: _attempt_call(source, width, call))
    return _result(
        "randbelow_exact",
        source,
        width,
        findings,
        f"{source.name}.randbelow(n) at width {width} is exactly uniform for all {len(sizes)} n from "
        f"{min(sizes)} to {max(sizes)}: every stream of words up to one whole attempt (and more, up to "
        f"{LOOP_BITS} bits) gives the documented k-bit attempts exactly, and renewal over one attempt gives 1/n",
        "exact (renewal over one completely enumerated attempt); with no renewal step, "
        "|P(x) - 1/n| <= max_unexplored for the whole loop as enumerated",
    )


def check_bernoulli(source: WordSource, width: int, fractions: Sequence[tuple[int, int]] | None = None) -> CheckResult:
    """``bernoulli(num, den)`` of ``source`` at ``width`` for every pair in ``fractions``
    (default: :func:`default_fractions`): ``P[True] = num/den`` (module docstring)."""
    source, width = _need_source(source), _need_width(width)
    fractions = default_fractions(width, digits=source.digit_bernoulli) if fractions is None else tuple(fractions)
    for pair in fractions:
        if (
            not isinstance(pair, tuple)
            or len(pair) != 2
            or not all(type(v) is int for v in pair)
            or not 0 <= pair[0] <= pair[1]
            or pair[1] < 1
        ):
            raise InvalidArgument(
                f"fractions must hold pairs (num, den) of ints with 0 <= num <= den, den >= 1; got {shown(pair)}."
            )
    if not fractions:
        raise InvalidArgument("fractions must hold at least one pair (num, den); got none.")
    one = _digit_call if source.digit_bernoulli else _attempt_call
    findings = _run_all([Call("bernoulli", pair) for pair in fractions], lambda call: one(source, width, call))
    dens = sorted({den for _, den in fractions})
    if source.digit_bernoulli:
        depth = max(BERNOULLI_BITS // width, 1)
        how = f"exact where p's expansion ends within {depth} words, otherwise |P[True] - p| <= 2^-{width * depth}"
    else:
        how = "exact (randbelow(den) < num, renewal over one attempt)"
    return _result(
        "bernoulli_exact",
        source,
        width,
        findings,
        f"{source.name}.bernoulli(num, den) at width {width} has P[True] = num/den for all {len(fractions)} "
        f"pairs with den from {dens[0]} to {dens[-1]}: {how}",
        how,
    )


def check_successive(source: WordSource, width: int, sequences: Sequence[Sequence[Call]] | None = None) -> CheckResult:
    """Successive draws on one ``source`` at ``width`` are jointly distributed as the product
    of their ideal laws, for each sequence in ``sequences`` (default:
    :func:`default_sequences`): exactly where the walk is exhaustive, within its remainder
    otherwise (inconclusive above :data:`~dpverify.verify.gate._source_walk.MAX_SEQUENCE_REMAINDER`)."""
    source, width = _need_source(source), _need_width(width)
    sequences = default_sequences(width) if sequences is None else tuple(tuple(s) for s in sequences)
    if not sequences or not all(calls and all(isinstance(c, Call) for c in calls) for calls in sequences):
        raise InvalidArgument(f"sequences must hold non-empty tuples of Call, at least one; got {shown(sequences)}.")
    depth = max(SEQUENCE_BITS // width, 1)
    findings = _run_all(sequences, lambda calls: _sequence(source, width, calls, depth))
    return _result(
        "successive_draws",
        source,
        width,
        findings,
        f"successive draws on one {source.name} at width {width} are independent and exact: all "
        f"{len(sequences)} sequences have the product law (exactly where no draw rejects; within "
        f"the remainder otherwise), over every stream of {depth} words",
        "exact for sequences that never reject; |P - product| <= max_unexplored otherwise",
    )


def check_source(source: WordSource, width: int) -> tuple[CheckResult, CheckResult, CheckResult]:
    """The three checks of ``source`` at ``width`` with their default cases."""
    return check_randbelow(source, width), check_bernoulli(source, width), check_successive(source, width)


#: Seconds one walk over every word stream may take.  The enumeration bounds the words a walk reads
#: and the paths it runs (:data:`~dpverify.verify.gate._source_walk.MAX_PATHS`), but not a loop
#: that reads no words at all (an attempt of ``k = 0`` bits that is never accepted).
WALK_SECONDS = 5
#: Seconds an invalid call may take to refuse.  A refusal checks the arguments before anything is
#: drawn, which takes microseconds; a call still running after this is looping on them.
REFUSAL_SECONDS = 2


def refusal_problem(call: str, attempt: Callable[[], object]) -> str | None:
    """None when ``attempt()`` raises InvalidArgument, else what it did instead (``call`` names
    it): returned, raised something else, or was still running after :data:`REFUSAL_SECONDS`."""
    try:
        value = once(attempt, REFUSAL_SECONDS)
    except NoOutput:
        return f"{call} had not refused after {REFUSAL_SECONDS} s (a refusal comes before any draw): it runs on"
    except InvalidArgument:
        return None
    except Exception as error:  # noqa: BLE001 - the code under test
        return f"{call} raised {type(error).__name__} instead of InvalidArgument"
    return f"{call} returned {value!r} instead of refusing"


def check_refuses(source: WordSource, width: int) -> CheckResult:
    """The source refuses invalid draws with a clear error, and guards a user's source.

    ``randbelow`` needs an int ``n >= 1`` and ``bernoulli`` ints ``0 <= num <= den``, ``den >= 1``
    (bools and floats refused): each invalid call must raise
    :class:`~dpverify.samplers.InvalidArgument`, on the source built over words and, for the
    system source, on the production instance.  A subclass a user writes (not ``trusted``) has
    its draws checked: one returning a value out of range, a bool, a non-bool coin, or raising,
    must raise :class:`~dpverify.samplers.SamplerContractError`, and a correct one must pass
    through unchanged.
    """
    from dpverify.samplers import SamplerContractError

    width = _need_width(width)
    source = _need_source(source)
    built = source.build(lambda: 0, width)
    instances = [built] + ([SystemRandomSource()] if source is SYSTEM else [])
    invalid = [
        ("randbelow", (0,)),
        ("randbelow", (-1,)),
        ("randbelow", (True,)),
        ("randbelow", (2.0,)),
        ("bernoulli", (2, 1)),
        ("bernoulli", (-1, 2)),
        ("bernoulli", (1, 0)),
        ("bernoulli", (True, 2)),
        ("bernoulli", (1, 2.0)),
        ("bernoulli", (0, 0)),
    ]
    problems = []
    for instance in instances:
        for method, args in invalid:
            call = f"{type(instance).__name__}.{method}({', '.join(map(repr, args))})"
            problem = refusal_problem(call, lambda: getattr(instance, method)(*args))  # noqa: B023 - called at once
            if problem:
                problems.append(problem)

    class OutOfRange(RandomSource):
        def randbelow(self, n: int) -> int:
            return n

    class BoolDraw(RandomSource):
        def randbelow(self, n: int) -> int:
            return True  # typed as an int, yet the guard must refuse a bool

    class Raises(RandomSource):
        def randbelow(self, n: int) -> int:
            raise ValueError("no entropy")

    class IntCoin(RandomSource):
        def randbelow(self, n: int) -> int:
            return 0

        def bernoulli(self, num: int, den: int) -> bool:
            return 1  # type: ignore[return-value]  # the wrong type on purpose: the guard must refuse it

    class Negative(RandomSource):
        def randbelow(self, n: int) -> int:
            return -1

    class Fine(RandomSource):
        def randbelow(self, n: int) -> int:
            return n - 1

    class Zero(RandomSource):
        def randbelow(self, n: int) -> int:
            return 0

    class FineCoin(RandomSource):
        def randbelow(self, n: int) -> int:
            return 0

        def bernoulli(self, num: int, den: int) -> bool:
            return 2 * num > den  # not symmetric in its arguments, so the guard must pass them in order

    for broken, method, args in (
        (OutOfRange, "randbelow", (5,)),
        (BoolDraw, "randbelow", (5,)),
        (Raises, "randbelow", (5,)),
        (IntCoin, "bernoulli", (1, 2)),
        (Negative, "randbelow", (5,)),
    ):
        try:
            value = getattr(broken(), method)(*args)
        except SamplerContractError:
            continue
        except Exception as error:  # noqa: BLE001
            problems.append(
                f"a user's {broken.__name__}.{method}({', '.join(map(str, args))}) raised "
                f"{type(error).__name__}, not SamplerContractError"
            )
            continue
        problems.append(
            f"a user's {broken.__name__}.{method}({', '.join(map(str, args))}) returned {value!r} unchecked"
        )
    for bad_width in (0, True, 2.0):
        try:
            source.build(lambda: 0, bad_width)  # type: ignore[arg-type]  # invalid widths on purpose: they must be refused
        except InvalidArgument:
            pass
        else:
            problems.append(f"{source.constructor}(words, width={bad_width!r}) was accepted")
    try:
        source.build(0, width)  # type: ignore[arg-type]  # a supply that is not callable on purpose: it must be refused
    except InvalidArgument:
        pass
    else:
        problems.append(f"{source.constructor}(0, width) accepted a supply that is not callable")
    fine, zero, coin = Fine(), Zero(), FineCoin()
    passed = (
        fine.randbelow(5),
        fine.bernoulli(4, 5),
        fine.bernoulli(5, 5),
        zero.randbelow(5),
        coin.bernoulli(2, 2),
        coin.bernoulli(1, 3),
    )
    if passed != (4, False, True, 0, True, False):
        problems.append(
            f"correct user sources were changed by their guards: randbelow(5) (n - 1 and 0), bernoulli(4, 5), "
            f"bernoulli(5, 5), an own bernoulli(2, 2) and (1, 3) gave {passed}, not (4, False, True, 0, True, False)"
        )
    label = f"{source.name} at width {width}"
    if problems:
        return CheckResult(
            "refuses", Verdict.VIOLATED, f"{label}: " + "; ".join(problems[:4]), evidence={"problems": problems}
        )
    return CheckResult(
        "refuses",
        Verdict.PROVED,
        f"{label} refuses {len(invalid)} invalid draws with InvalidArgument and guards a user's source "
        "(5 contract breaks caught, correct sources unchanged)",
    )
