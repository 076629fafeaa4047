"""The production supplies of raw randomness, checked as they run.

:mod:`dpverify.verify.gate._source_check` proves the conversion from words to draws exact over
injected words of small widths.  What it cannot enumerate is where production's words come
from, and that code is checked here, in the process that runs the gate:

- **OS words** (``production_words``): :class:`~dpverify.samplers.SystemRandomSource` takes
  64-bit words from a process-wide pool of ``os.urandom`` output, or straight from
  ``os.urandom`` where the GIL is disabled.  ``randbelow(2**64)`` returns one raw word (its
  ``k = 64`` bits, never rejected), so :data:`WORDS` draws read the words as production does,
  across refills of the pool (an ``array('Q')``, whose items cannot be wider).  The
  free-threaded supply is read raw, on every build.  Each must give ints on ``[0, 2**64)`` in
  which every one of the 64 bit positions takes both values, with no word seen twice.  On POSIX
  the process then forks with words left in the pool, and the child's next word must differ
  from the parent's (a child that reused its parent's pool would replay its parent's noise).
  :func:`~dpverify.samplers.fresh_seed`, which picks the seed a run prints, must give such
  words too.
- **SHA-256 blocks** (``production_blocks``): :class:`~dpverify.samplers.SeededRandomSource`
  must produce the blocks its docstring documents, ``SHA-256(seed bytes || counter as 16 bytes)``
  with the seed's bytes big-endian and at least one, counter 0, 1, ...  Its
  ``randbelow(2**256)`` is one whole block, so a run is compared with blocks computed here from
  that statement (a known-answer test), for seeds on both sides of each byte boundary.  A
  replay that drifts from its documented construction would make printed seeds replay
  something else.  Seeds that are not ints ``>= 0`` must be refused.

False positives.  The OS words are uniform and independent (the trusted base).  A bit position
constant over ``N`` words has probability ``2^(1-N)`` per position, so at most
``64 * 2^(1-N)`` for all; two equal words among ``N`` at most ``N^2 / 2^65``; a child's word
equal to its parent's ``2^-64``.  With ``N = 1024`` words per supply and 128 seeds the check
fails correct code with probability below ``2^-44``.  Its power: a supply whose words are narrower or wider
than 64 bits, or that hands a word out twice within the run, fails with probability 1.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable, Sized
from typing import cast

from dpverify.samplers import SeededRandomSource, SystemRandomSource, _random_source, fresh_seed
from dpverify.verify.engine._results import CheckResult, Verdict
from dpverify.verify.gate._real_runs import NoOutput, once
from dpverify.verify.gate._source_check import refusal_problem

__all__ = [
    "BLOCK_SEEDS",
    "DRAW_SECONDS",
    "SEEDS",
    "WORDS",
    "check_production_blocks",
    "check_production_words",
    "documented_block",
]

#: Words read from each supply: more than two refills of the 512-word pool.
WORDS = 1024
#: Seeds drawn from :func:`~dpverify.samplers.fresh_seed`, which must be 64-bit words too.
SEEDS = 128
#: Seconds the words of one supply may take: a draw that never returns (a conversion that rejects
#: every word) is a violation, not a wait for the case's time bound.
DRAW_SECONDS = 5
#: Seeds of the known-answer test: 0 (one zero byte), the largest one- and two-byte seeds and
#: the next ones, and a seed longer than 64 bits.
BLOCK_SEEDS = (0, 1, 255, 256, 65535, 65536, 2**64 + 1)
#: Blocks compared per seed.
BLOCKS = 3
_WIDTH = 64


def _word_problems(name: str, draw: Callable[[], int], count: int = WORDS) -> list[str]:
    try:
        words = once(lambda: [draw() for _ in range(count)], DRAW_SECONDS)
    except NoOutput:
        return [f"{name} had not given {count} words after {DRAW_SECONDS} s (they take milliseconds): a draw runs on"]
    bad = [w for w in words if not isinstance(w, int) or isinstance(w, bool) or not 0 <= w < 1 << _WIDTH]
    if bad:
        return [f"{name} gave {bad[0]!r}, not an int on [0, 2^64)"]
    problems = []
    ones = 0
    zeros = 0
    for word in words:
        ones |= word
        zeros |= ~word
    stuck = [bit for bit in range(_WIDTH) if not (ones >> bit) & 1 or not (zeros >> bit) & 1]
    if stuck:
        problems.append(f"{name}: bit position(s) {stuck[:8]} never changed over {count} words")
    if len(set(words)) < count:
        problems.append(f"{name}: {count - len(set(words))} word(s) handed out twice among {count}")
    return problems


def _fork_problem() -> str | None:
    """The child's next word against the parent's, with words left in the pool; None when they
    differ.  Raises OSError where fork fails."""
    source = SystemRandomSource()
    source.randbelow(1 << _WIDTH)
    # _POOLED: _WORDS is the pool, which has a length (only the unpooled stand-in has none)
    pool = cast(Sized, _random_source._WORDS)
    if _random_source._POOLED and not len(pool):  # the last word went: refill first
        source.randbelow(1 << _WIDTH)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child process
        try:
            os.write(write, source.randbelow(1 << _WIDTH).to_bytes(8, "big"))
        finally:
            os._exit(0)
    os.close(write)
    try:
        mine = source.randbelow(1 << _WIDTH)
        received = b""
        while len(received) < 8:
            chunk = os.read(read, 8 - len(received))
            if not chunk:
                break
            received += chunk
    finally:
        os.close(read)
        os.waitpid(pid, 0)
    if len(received) < 8:
        return "after fork the child gave no word"
    theirs = int.from_bytes(received, "big")
    return f"after fork the child drew its parent's next word {mine}" if theirs == mine else None


def check_production_words() -> CheckResult:
    """The OS-word supplies as production runs them; see the module docstring."""
    production = SystemRandomSource()
    problems = [
        *_word_problems("the pooled supply", lambda: production.randbelow(1 << _WIDTH)),
        # read raw: randbelow(2^64) would reject a too-wide word and hide it
        *_word_problems("the unpooled supply", _random_source._UnpooledWords().pop),
        *_word_problems("fresh_seed()", fresh_seed, count=SEEDS),
    ]
    forked = "fork not checked (no os.fork here)"
    if problems:  # its draws would fail the same way (or never return), in the parent and the child
        forked = "fork not checked (the supplies' own words failed)"
    elif hasattr(os, "fork") and threading.active_count() == 1:
        try:
            problem = _fork_problem()
        except OSError as error:
            forked = f"fork not checked ({error.strerror})"
        else:
            forked = "a forked child draws fresh words"
            if problem:
                problems.append(problem)
    elif hasattr(os, "fork"):
        forked = "fork not checked (other threads are running)"
    if problems:
        return CheckResult("production_words", Verdict.VIOLATED, "; ".join(problems), evidence={"problems": problems})
    return CheckResult(
        "production_words",
        Verdict.PROVED,
        f"{WORDS} words from the pool (across refills), {WORDS} from the unpooled supply and {SEEDS} "
        f"fresh seeds: ints on [0, 2^64), every bit position both ways, none twice; {forked} "
        "(false-positive probability below 2^-44)",
    )


def documented_block(seed: int, counter: int) -> int:
    """Block ``counter`` of seed ``seed`` as :class:`~dpverify.samplers.SeededRandomSource`'s
    docstring states it."""
    key = seed.to_bytes(max(1, -(-seed.bit_length() // 8)), "big")
    return int.from_bytes(hashlib.sha256(key + counter.to_bytes(16, "big")).digest(), "big")


def check_production_blocks() -> CheckResult:
    """SeededRandomSource's blocks against the documented construction; see the module docstring."""
    problems = []
    for seed in (-1, True, 1.0, "1"):
        problem = refusal_problem(f"SeededRandomSource({seed!r})", lambda: SeededRandomSource(seed))  # type: ignore[arg-type]  # noqa: B023 - invalid seeds on purpose, each called at once
        if problem:
            problems.append(problem)
    for seed in BLOCK_SEEDS:
        source = SeededRandomSource(seed)

        def blocks(source: SeededRandomSource = source) -> list[int]:
            return [source.randbelow(1 << 256) for _ in range(BLOCKS)]

        try:
            got = once(blocks, DRAW_SECONDS)
        except NoOutput:
            problems.append(
                f"seed {seed}: {BLOCKS} blocks not drawn after {DRAW_SECONDS} s (they take milliseconds): "
                "a draw runs on"
            )
            break
        expected = [documented_block(seed, counter) for counter in range(BLOCKS)]
        if got != expected:
            first = next(i for i, (g, e) in enumerate(zip(got, expected, strict=True)) if g != e)
            problems.append(f"seed {seed}: block {first} is {got[first]:#x}, documented {expected[first]:#x}")
    if problems:
        return CheckResult(
            "production_blocks", Verdict.VIOLATED, "; ".join(problems[:3]), evidence={"problems": problems}
        )
    return CheckResult(
        "production_blocks",
        Verdict.PROVED,
        f"the first {BLOCKS} blocks of seeds {', '.join(map(str, BLOCK_SEEDS[:-1]))} and 2^64+1 are "
        "SHA-256(seed bytes || counter as 16 bytes), as documented; seeds -1, True, 1.0 and '1' refused",
    )
