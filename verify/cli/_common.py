"""What several commands' command lines share: the parser with the project's one-line usage
error, the count option type and its limits, a bare command's usage, the GTM instance that
``pmf gtm`` and ``privacy gtm`` both read, and an audit's ``--PARAM VALUE`` pairs."""

from __future__ import annotations

import argparse
import contextlib
import math
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from typing import Any, NoReturn

from dpverify.samplers import DpverifyError, InvalidArgument, as_int
from dpverify.samplers._rational import MAX_DIGITS, MAX_TEXT, shown
from dpverify.specs import GtmSpec
from dpverify.verify.engine._arguments import MAX_SEED  # the API's: fresh seeds are 64-bit
from dpverify.verify.engine._text import short_rational

__all__ = [
    "MAX_COMPOSITIONS",
    "MAX_JOBS",
    "MAX_MUTANTS",
    "MAX_N",
    "MAX_SAMPLES",
    "MAX_SEED",
    "MAX_TABLE_BITS",
    "MAX_TIMEOUT",
    "explain_number_limit",
    "parameter_pairs",
    "progress_bar",
]


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr, with the one prefix every error has,
    and exit code 2; and a value such as ``-1e-3`` or ``-1/3`` is a value, not an option."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # argparse takes only -1 and -1.5 for numbers; a dash followed by a digit or a point
        # is never one of our options, so it is always a (negative) value
        self._negative_number_matcher = re.compile(r"^-\.?\d")

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"dpverify: error: {_clip(message)} (see '{self.prog} --help')\n")


def _clip(text: str, limit: int = 200) -> str:
    """One short line: control characters escaped, a long text cut."""
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


@contextlib.contextmanager
def progress_bar(description: str) -> Iterator[Callable[[str | None, int, int], None]]:
    """A progress bar (``rich``) on stderr when it is a terminal, moved by ``show(stage, done,
    total)`` (``stage`` None keeps the description); silent otherwise, so that a log or a pipe
    gets only the command's lines."""
    if not sys.stderr.isatty():
        yield lambda stage, done, total: None
        return
    try:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
    except ImportError:  # a dependency; an install without it still runs, without a bar
        yield lambda stage, done, total: None
        return
    with Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task(description, total=None)

        def show(stage: str | None, done: int, total: int) -> None:
            if stage is None:
                bar.update(task, completed=done, total=total)
            else:
                bar.update(task, completed=done, total=total, description=_clip(stage, 60))

        yield show


def _usage(parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], int]:
    """A bare command (``dpverify``, ``dpverify pmf``): its usage and subcommands, exit 2."""

    def show(args: argparse.Namespace) -> int:
        sys.stderr.write(parser.format_help())
        return 2

    return show


#: Upper limits of the CLI's counts, so that no option asks for work without end.
MAX_SAMPLES = 10**7
MAX_TIMEOUT = 86_400
MAX_JOBS = 1024
MAX_MUTANTS = 10**6
MAX_COMPOSITIONS = 10**6


#: An option's count: digits, or a power such as ``10^4``.  Read here, not by the samplers'
#: parsers, so that the gate starts (and reports) when the code it checks, those parsers among
#: it, is broken.  ASCII digits only, as those parsers take: int() would read "５" as 5.
_COUNT = re.compile(r"\+?(\d{1,30})(?:\s*(?:\^|\*\*)\s*(\d{1,2}))?", re.ASCII)


def _count(name: str, low: int, high: int) -> Callable[[str], int]:
    """An argparse type: an integer in ``[low, high]``, with the project's one-line message."""

    def parse(text: str) -> int:
        match = _COUNT.fullmatch(text.strip())
        # int ** int is typed Any (a negative power is a float); the power here is at least 0
        value: int | None = int(match[1]) ** int(match[2] or 1) if match else None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"{name} must be an integer with {name} >= {low} and {name} <= {high}, "
                f'such as "1000" or "10^4"; got {name}={shown(text)}.'
            )
        return value

    parse.__name__ = name  # argparse names the type in its message
    return parse


def _gtm_arguments(parser: argparse.ArgumentParser, *, with_q: bool) -> None:
    parser.add_argument("--alpha", required=True, help='privacy ratio in (0, 1), e.g. "1/3"')
    parser.add_argument("--n", required=True, help="outputs are 0..n (n >= 1)")
    parser.add_argument("--T", required=True, help='size of the uniform (>= 1); "10^100" works')
    if with_q:
        parser.add_argument("--q", required=True, help="the query answer, 0 <= q <= n")


#: The exact table has (n+1)^2 big-integer entries; past this n a query would run for minutes
#: and gigabytes, so it is refused up front instead.
MAX_N = 5000


#: The ideal table's common denominator is (a+b)*b^n for alpha = a/b; past this many bits its
#: exact probabilities could no longer be printed (CPython prints at most 4300 digits).
MAX_TABLE_BITS = 12_000


def _gtm_spec(args: argparse.Namespace) -> GtmSpec:
    n = as_int("n", args.n, low=1, high=MAX_N)
    spec = GtmSpec.create(args.alpha, n, args.T)
    bits = n * spec.alpha.denominator.bit_length()
    if bits > MAX_TABLE_BITS:
        raise DpverifyError(
            f"n={n} with alpha={shown(spec.alpha)} makes exact probabilities of about {bits * 3 // 10} digits; "
            f"the limit is {MAX_TABLE_BITS * 3 // 10}: lower n, or give alpha a smaller denominator."
        )
    return spec


def _describe(spec: GtmSpec) -> str:
    return ", ".join(f"{k}={short_rational(Fraction(v))}" for k, v in spec.parameters().items())


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


_E_EXPONENT = re.compile(r"[eE]([+-]?\d+)\s*$")
_POWER_TERM = re.compile(r"(\d+)(?:\s*\^\s*(\d{1,6}))?")


def _side_digits(text: str) -> tuple[int, bool] | None:
    """Decimal digits of ``"11*10^40"``-style text and whether the count is exact (a huge one
    is estimated from logarithms, never computed); None if it is not of that form."""
    terms = [term.strip() for term in text.replace("**", "^").split("*")]
    matches = [_POWER_TERM.fullmatch(term) for term in terms]
    if not all(matches):
        return None
    factors = [(int(m[1]), int(m[2] or 1)) for m in matches]  # type: ignore[index]  # all(matches) above: no None
    if any(base == 0 for base, _ in factors):
        return 1, True
    estimate = sum(power * math.log10(base) for base, power in factors)
    if estimate > MAX_DIGITS + 5:
        return int(estimate) + 1, False
    return _digits(math.prod(base**power for base, power in factors)), True


def _digits(value: int) -> int:
    """Decimal digits of ``value`` (``str`` refuses past 4300 digits)."""
    digits = max(1, (abs(value).bit_length() - 1) * 30103 // 100000)  # a lower bound, off by at most one
    while abs(value) >= 10**digits:
        digits += 1
    return digits


def _limit_passed(text: str) -> str | None:
    """Which of the limits on exact numbers ``text`` passes, in words; None if none is found."""
    if len(text) > MAX_TEXT:
        return f"it is {len(text)} characters long, and the limit is {MAX_TEXT}"
    body = text.strip().lstrip("+-").strip()
    exponent = _E_EXPONENT.search(body)
    if exponent is not None and abs(int(exponent[1])) > MAX_DIGITS:
        return f"its exponent {int(exponent[1])} is outside -{MAX_DIGITS}..{MAX_DIGITS}"
    try:
        value = Fraction(body)  # a decimal, possibly with an exponent within the limit: cheap
        numerator, denominator = _digits(value.numerator), _digits(value.denominator)
        exact = (True, True)
    except (ValueError, ZeroDivisionError):
        top, _, bottom = body.partition("/")
        (numerator, top_exact), (denominator, bottom_exact) = (
            _side_digits(top) or (0, True),
            _side_digits(bottom or "1") or (0, True),
        )
        exact = (top_exact, bottom_exact)
    if denominator > MAX_DIGITS and numerator <= MAX_DIGITS:
        return (
            f"its denominator has {'' if exact[1] else 'about '}{denominator} digits and the limit is "
            f"{MAX_DIGITS} digits "
            f"for a numerator or a denominator, so 1e-{MAX_DIGITS - 1} is the smallest power of ten allowed"
        )
    if numerator > MAX_DIGITS:
        return (
            f"its numerator has {'' if exact[0] else 'about '}{numerator} digits and the limit is {MAX_DIGITS} digits "
            f"for a numerator or a denominator, so 1e{MAX_DIGITS - 1} is the largest power of ten allowed"
        )
    return None


def explain_number_limit(error: InvalidArgument, given: dict[str, object]) -> InvalidArgument:
    """``error`` itself, or, when it is the generic "NAME is too large" of a number in ``given``
    (``{name: the text given}``), one line naming the limit that number passes: a tiny number is
    refused for its denominator, not for being large."""
    for name, text in given.items():
        if isinstance(text, str) and str(error).startswith(f"{name} is too large:"):
            reason = _limit_passed(text)
            if reason is not None:
                option = "--" + name.replace("_", "-")
                return InvalidArgument(f"{option} {shown(text)} is refused: {reason}.")
    return error
