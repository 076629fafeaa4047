"""Hostile samplers: binary randomized response, correct on every path but one.

On the path where the coin says "flip" the sampler misbehaves as the environment variable
:data:`HOSTILE` says (one of :data:`BEHAVIOURS`): it exits, kills its process, disables the time
bound, closes a stream, removes the engine's trace function...  With it unset (or ``none``)
the sampler is correct, and its spec ``hostile-rr`` proves.  A second, correct spec
``calm-rr`` comes after it, so a test can tell whether the other specs still ran.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Hashable
from fractions import Fraction

from dpverify.specs import Case, Input, Params, PureDp, Rational, Spec

#: The environment variable that chooses the misbehaviour of the "flip" path.
HOSTILE = "DPVERIFY_TEST_HOSTILE"


def _spin() -> None:
    while True:
        pass


def _ignore_signals_and_spin() -> None:
    for number in (signal.SIGALRM, signal.SIGINT, signal.SIGTERM):
        signal.signal(number, signal.SIG_IGN)
    signal.setitimer(signal.ITIMER_REAL, 0)
    _spin()


def _recurse(depth: int = 0) -> int:
    return _recurse(depth + 1) + 1


def _thread_exit() -> None:
    threading.Thread(target=lambda: os._exit(0), daemon=True).start()
    time.sleep(5)


def _raise(error: BaseException) -> None:
    raise error


BEHAVIOURS = {
    "none": lambda: None,
    "print": lambda: print("PASS: a line the sampler prints"),
    "system-exit": lambda: _raise(SystemExit),
    "sys-exit-0": lambda: sys.exit(0),
    "os-exit-0": lambda: os._exit(0),
    "sigkill": lambda: os.kill(os.getpid(), signal.SIGKILL),
    "ignore-signals-spin": _ignore_signals_and_spin,
    "disable-bound": lambda: signal.signal(signal.SIGALRM, signal.SIG_IGN),
    "close-stdout": lambda: sys.stdout.close(),
    "redirect-stdout": lambda: setattr(sys, "stdout", open(os.devnull, "w")),  # noqa: SIM115 - the point
    "keyboard-interrupt": lambda: _raise(KeyboardInterrupt),
    "generator-exit": lambda: _raise(GeneratorExit),
    "recursion": _recurse,
    "memory-error": lambda: _raise(MemoryError),
    "settrace": lambda: sys.settrace(lambda frame, event, argument: None),
    "chdir": lambda: os.chdir("/"),
    "drop-module": lambda: sys.modules.pop("dpverify.verify.gate._spec_run", None),
    "thread-os-exit": _thread_exit,
}


def randomized_response(q: int, alpha: Fraction, rng: object) -> int:
    """``q`` with probability ``1/(1+alpha)``, else ``1 - q``."""
    a, b = alpha.numerator, alpha.denominator
    if rng.randbelow(a + b) < b:  # type: ignore[attr-defined]
        return q
    BEHAVIOURS[os.environ.get(HOSTILE, "none")]()
    return 1 - q


def calm_randomized_response(q: int, alpha: Fraction, rng: object) -> int:
    a, b = alpha.numerator, alpha.denominator
    return q if rng.randbelow(a + b) < b else 1 - q  # type: ignore[attr-defined]


def _pmf(p: Params, q: Hashable) -> dict[int, Fraction]:
    keep = 1 / (1 + p["alpha"])
    return {q: keep, 1 - q: 1 - keep}  # type: ignore[operator]


def _spec(name: str, sampler: object) -> Spec:
    return Spec(
        name=name,
        sampler=sampler,
        parameters={"alpha": Rational(0, 1, low_open=True)},
        input=Input("q", values=lambda p: (0, 1), neighbours="all"),
        claim=lambda p: PureDp(alpha=p["alpha"]),
        pmf=_pmf,
        cases=(Case({"alpha": "1/3"}, "proved", "binary randomized response at epsilon = ln 3"),),
    )


SPECS = (_spec("hostile-rr", randomized_response), _spec("calm-rr", calm_randomized_response))
HOSTILE_RR, CALM_RR = SPECS


def _unpatch_random() -> None:
    import random

    random.random = random.Random().random  # the module-level draw, no longer the engine's


def published_coin(q: int) -> int:
    """Published code that draws from ``random``: ``q`` with probability 3/4 (on a 2-bit grid)."""
    import random

    if random.random() < 0.75:
        return q
    BEHAVIOURS[os.environ.get(HOSTILE, "none")]()
    return 1 - q


BEHAVIOURS["unpatch-random"] = _unpatch_random
#: The same coin, enumerated through the patched ``random`` module (its hook is what it removes).
PUBLISHED_RR = Spec(
    name="published-rr",
    sampler=published_coin,
    parameters={},
    randomness="module",
    float_bits=2,
    input=Input("q", values=lambda p: (0, 1), neighbours="all"),
    claim=PureDp(alpha="1/3"),
    pmf=lambda p, q: {q: Fraction(3, 4), 1 - q: Fraction(1, 4)},
    cases=(Case({}, "proved", "a published coin on random.random()"),),
)
