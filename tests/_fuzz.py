"""Shared machinery of the fuzz tests (a module, not a test file).

Two kinds of case:

- a **command line**: an argv list for ``dpverify.verify.cli.main``, drawn by walking the real
  parser (:func:`cli_argv`), so a new subcommand or option is fuzzed as soon as it exists;
- an **API call**: a public function or method of ``dpverify.samplers``, ``dpverify.specs`` or
  ``dpverify.verify`` with arguments from a pool of good and bad values (:func:`api_call`), the
  argument count taken from :func:`inspect.signature`;
- a **keyword call** (:func:`method_call`): every argument by keyword, to a public method of an
  object the API returns (:data:`RETURNED`), to a public dataclass's constructor, or to a method
  of an instance built directly from drawn fields.

Each case runs in-process under a per-case time bound (:func:`time_bound`) and is judged by
:func:`judge_cli` / :func:`judge_api`, which return the problems found as
``(category, message)`` pairs (empty: the case is fine).

How many examples: ``DPVERIFY_FUZZ_EXAMPLES`` (an int) sets the count of the ``slow`` variants;
unset, they run :data:`SLOW_DEFAULT_EXAMPLES`.  The default-suite variants run
:data:`QUICK_EXAMPLES` each.
"""

from __future__ import annotations

import argparse
import contextlib
import decimal
import enum
import inspect
import io
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from dpverify.samplers import DpverifyError, RandomSource, SeededRandomSource

#: Examples per default-suite fuzz test (CLI and API each).
QUICK_EXAMPLES = 300
#: Examples per slow fuzz test when ``DPVERIFY_FUZZ_EXAMPLES`` is unset.
SLOW_DEFAULT_EXAMPLES = 10_000
#: Seconds one case may take: the default suite, and the slow run.
QUICK_BOUND_S = 10.0
SLOW_BOUND_S = 20.0
#: No stderr line of an exit-2 error may be longer than this.
MAX_LINE = 300


#: The slow variants are split into this many shards, each with its own seed, so that a parallel
#: run (``pytest -n``) spreads them over the cores; together they run :func:`slow_examples` cases.
SLOW_SHARDS = 4


def slow_examples() -> int:
    text = os.environ.get("DPVERIFY_FUZZ_EXAMPLES")
    return SLOW_DEFAULT_EXAMPLES if not text else max(1, int(text))


def shard_seed(shard: int | None) -> Any:
    """A decorator giving slow shard ``shard`` its own fixed seed (it takes precedence over the CI
    profile's derandomisation, which would give every shard the same cases); None: no change."""
    if shard is None:
        return lambda test: test
    from hypothesis import seed

    return seed(20_261_124 + shard)


def shard_examples(shard: int) -> int:
    """Examples of slow shard ``shard`` (0-based): the total split as evenly as it goes."""
    total = slow_examples()
    return total // SLOW_SHARDS + (1 if shard < total % SLOW_SHARDS else 0)


# --- the time bound ---------------------------------------------------------------------------


class CaseTimeout(BaseException):  # noqa: N818 - a BaseException, so `except Exception` in the code under test cannot swallow it
    """Raised by the alarm when one case runs past its bound."""


def time_bound(seconds: float) -> contextlib.AbstractContextManager[None]:
    """Raise :class:`CaseTimeout` in the main thread after ``seconds`` (the engine's SIGALRM bound;
    its own exception, so a gate case's bound inside never mistakes it for its own)."""
    from dpverify.verify.gate._time_bound import time_bound as engine_bound

    return engine_bound(seconds, lambda: CaseTimeout(f"case ran past {seconds} s"))


# --- foreign exceptions ---------------------------------------------------------------------------


class UserCodeError(Exception):
    """Raised on purpose by the user code the fuzz passes in (a sampler, a RandomSource); the
    library may let it through unchanged, so it is not foreign."""


ALLOWED = (DpverifyError, UserCodeError)


def foreign(error: BaseException) -> bool:
    return not isinstance(error, ALLOWED)


def describe_error(error: BaseException) -> str:
    text = str(error)
    if len(text) > 200:
        text = text[:200] + "..."
    return f"{type(error).__module__}.{type(error).__qualname__}: {text}"


# --- broken and odd RandomSources -------------------------------------------------------------


class BadRange(RandomSource):
    """randbelow(n) returns n: one past the end."""

    def randbelow(self, n: int) -> int:
        return n

    def __repr__(self) -> str:
        return "BadRange()"


class Negative(RandomSource):
    """randbelow returns -1."""

    def randbelow(self, n: int) -> int:
        return -1

    def __repr__(self) -> str:
        return "Negative()"


class FloatDraw(RandomSource):
    """randbelow returns a float."""

    def randbelow(self, n: int) -> int:
        return 0.5  # type: ignore[return-value]

    def __repr__(self) -> str:
        return "FloatDraw()"


class Raising(RandomSource):
    """randbelow raises the user's own error."""

    def randbelow(self, n: int) -> int:
        raise UserCodeError("the source broke")

    def __repr__(self) -> str:
        return "Raising()"


BROKEN_SOURCES = (BadRange, Negative, FloatDraw)


# --- the CLI --------------------------------------------------------------------------------------

#: Valid-looking and hostile values for any option.
GENERIC_VALUES = (
    "0",
    "1",
    "2",
    "3",
    "5",
    "-1",
    "-3",
    "1/3",
    "2/9",
    "-1/3",
    "1/2",
    "3/2",
    "1/0",
    "0/0",
    "7/3",
    "10^100",
    "-10^100",
    "10^5000",
    "1/10^5000",
    "1e309",
    "-1e309",
    "1e-309",
    "1e99999999999",
    "999999^999999",
    "10**100",
    "2^-1",
    "0.5",
    "1.0",
    "-0.0",
    "1.5",
    "4.0",
    "nan",
    "inf",
    "-inf",
    "",
    " ",
    "--",
    "-",
    "abc",
    "1/3/4",
    "½",
    "1_000",
    "0x10",
    "(1)",
    "1/ 3",
    "٣",
    "9" * 50,
    "9" * 5000,
    "x" * 400,
)
#: Small values an expensive count may take (a huge valid count is an honest long run, not a bug).
COUNT_VALUES = ("0", "1", "2", "3", "4", "8", "-1", "1.5", "", "--", "abc", "10^5000", "9" * 5000, "1e309", "x" * 400)
#: The spec module of a cheap `check` (written by :func:`write_tiny_spec_module`).
TINY_MODULE = "dpverify_fuzz_tiny_specs"
MODULE_VALUES = (TINY_MODULE, TINY_MODULE, "dpverify_fuzz_no_such_module", "", ".", "..x", "-", "os", "x" * 400)
SPEC_VALUES = ("fuzz-flip", "fuzz-flip", "nope", "", "-", "x" * 400)

TINY_SPEC_MODULE = """
from fractions import Fraction
from dpverify.specs import Case, Input, PureDp, Rational, Spec

def flip(bit, alpha, rng):
    keep = rng.bernoulli(alpha.denominator, alpha.numerator + alpha.denominator)
    return bit if keep else 1 - bit

def pmf(p, q):
    keep = 1 / (1 + p["alpha"])
    return {q: keep, 1 - q: 1 - keep}

SPECS = (Spec("fuzz-flip", flip, {"alpha": Rational(0, 1, low_open=True)}, (Case({"alpha": "1/3"}),),
              lambda p: PureDp(alpha=p["alpha"]), input=Input("bit", lambda p: (0, 1)), pmf=pmf),)
"""


def write_tiny_spec_module(directory: Path) -> None:
    (directory / f"{TINY_MODULE}.py").write_text(TINY_SPEC_MODULE)


@dataclass(frozen=True)
class Command:
    """One leaf of the parser tree: its path of subcommand names and its options."""

    path: tuple[str, ...]
    options: tuple[argparse.Action, ...]


def commands(parser: argparse.ArgumentParser) -> tuple[Command, ...]:
    """Every leaf command of ``parser``, found by walking its subparsers recursively."""
    found: list[Command] = []

    def walk(node: argparse.ArgumentParser, path: tuple[str, ...]) -> None:
        subparsers = [a for a in node._actions if isinstance(a, argparse._SubParsersAction)]
        options = tuple(a for a in node._actions if a.option_strings and not isinstance(a, argparse._HelpAction))
        if not subparsers:
            found.append(Command(path, options))
            return
        for name, child in subparsers[0].choices.items():
            walk(child, (*path, name))

    walk(parser, ())
    return tuple(found)


def _values_for(action: argparse.Action, paths: Sequence[str]) -> st.SearchStrategy[str]:
    dest = action.dest
    if action.choices:
        return st.sampled_from([*map(str, action.choices), *GENERIC_VALUES[:5]])
    if dest == "spec_module":
        return st.sampled_from(MODULE_VALUES)
    if dest == "spec":
        return st.sampled_from(SPEC_VALUES)
    if action.metavar == "PATH" or dest in {"json", "smtlib"}:
        return st.sampled_from([*paths, "-", *GENERIC_VALUES[:3]])
    if dest in {"samples", "bits", "timeout", "seed", "jobs"}:
        return st.sampled_from(COUNT_VALUES)
    if dest == "scheduler":  # never a reachable address: connecting would wait for it
        return st.sampled_from([*GENERIC_VALUES[35:], "tcp://", "host:0", "host:99999", "tcp://[::1:8786", "ucx://h:1"])
    return st.one_of(st.sampled_from(GENERIC_VALUES), st.text(max_size=12))


def _is_flag(action: argparse.Action) -> bool:
    return action.nargs == 0


@st.composite
def cli_argv(draw: st.DrawFn, parser: argparse.ArgumentParser, paths: Sequence[str]) -> list[str]:
    """An argv for ``parser``: a command path (sometimes cut short or wrong), its options (required
    ones usually present, others sometimes, some duplicated or given a value they do not take),
    and now and then an unknown option, a stray positional or a ``--``."""
    leaves = commands(parser)
    command = draw(st.sampled_from(leaves))
    path = list(command.path)
    shape = draw(st.integers(0, 19))
    if shape == 0:
        path = path[: draw(st.integers(0, len(path) - 1))]  # a bare command
    elif shape == 1:
        path[draw(st.integers(0, len(path) - 1))] = draw(st.sampled_from(["bogus", "", "-h", "--", "GTM"]))
    chunks: list[list[str]] = []
    for action in command.options:
        present = draw(st.floats(0, 1)) < (0.92 if action.required else 0.35)
        if not present:
            continue
        for _ in range(draw(st.sampled_from([1, 1, 1, 1, 2]))):
            option = draw(st.sampled_from(action.option_strings))
            if _is_flag(action):
                chunks.append([option] if draw(st.integers(0, 9)) else [f"{option}=yes"])
                continue
            value = draw(_values_for(action, paths))
            if draw(st.booleans()):
                chunks.append([f"{option}={value}"])
            elif draw(st.integers(0, 14)):
                chunks.append([option, value])
            else:
                chunks.append([option])  # the value is missing
    extras = draw(st.lists(st.sampled_from(["--bogus", "-x", "stray", "--", "--alpha", "-1", "--json=-"]), max_size=2))
    chunks += [[extra] for extra in extras]
    chunks = draw(st.permutations(chunks))
    tokens = [token for chunk in chunks for token in chunk]
    if path == ["check"] and not any(t.startswith(("--spec-module", "--list", "--spec")) for t in tokens):
        # the built-in catalogue takes a minute: check the one-case module instead
        tokens += ["--spec-module", TINY_MODULE]
    return path + tokens


@dataclass
class CliRun:
    argv: list[str]
    code: object
    out: str
    err: str
    error: BaseException | None
    seconds: float


def run_cli(argv: list[str], bound: float) -> CliRun:
    """``main(argv)`` in-process, under the time bound, stdout and stderr captured; ``sys.path``
    (which ``--spec-module`` extends) restored afterwards."""
    from dpverify.verify.cli import main

    out, err = io.StringIO(), io.StringIO()
    saved_path = list(sys.path)
    code: object = None
    error: BaseException | None = None
    start = time.monotonic()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), time_bound(bound):
            try:
                code = main(argv)
            except SystemExit as exit_:
                code = ("SystemExit", exit_.code)
    except BaseException as caught:  # noqa: BLE001 - judged below; KeyboardInterrupt re-raised
        if isinstance(caught, KeyboardInterrupt):
            raise
        error = caught
    finally:
        sys.path[:] = saved_path
    return CliRun(argv, code, out.getvalue(), err.getvalue(), error, time.monotonic() - start)


def _huge(argv: Sequence[object]) -> bool:
    return any(isinstance(a, str) and ("^" in a or "e9" in a or "**" in a or len(a) > 40) for a in argv)


def _bare(argv: Sequence[str]) -> bool:
    """Whether ``argv`` is a strict prefix of some command path (``[]``, ``["pmf"]``, ...)."""
    from dpverify.verify.cli import build_parser

    paths = [command.path for command in commands(build_parser())]
    return any(len(argv) < len(path) and tuple(argv) == path[: len(argv)] for path in paths)


def judge_cli(run: CliRun) -> list[tuple[str, str]]:
    """The problems of one CLI run as ``(category, message)``; empty when it behaved."""
    problems: list[tuple[str, str]] = []
    text = run.out + run.err
    if isinstance(run.error, CaseTimeout):
        return [("huge-number" if _huge(run.argv) else "hang", f"no answer within the bound ({run.seconds:.1f} s)")]
    if run.error is not None:
        category = "foreign-exception"
        if isinstance(run.error, OSError) and any(p in run.argv for p in ("/dev/full",)):
            category = "cli-output-path"
        return [(category, f"raised {describe_error(run.error)}")]
    if isinstance(run.code, tuple):  # SystemExit from argparse
        exit_code = run.code[1]
        if exit_code not in (0, 2, None):
            problems.append(("exit-code", f"SystemExit({exit_code!r}), expected 0 or 2"))
        code = 0 if exit_code is None else exit_code
    elif isinstance(run.code, int) and not isinstance(run.code, bool):
        code = run.code
        if code not in (0, 1, 2):
            problems.append(("exit-code", f"returned {code!r}, expected 0, 1 or 2"))
    else:
        return [("exit-code", f"returned {run.code!r}, not an int")]
    if "Traceback" in text:
        problems.append(("traceback", "a traceback was printed"))
    if code == 2 and _bare(run.argv):
        # a bare command (a strict prefix of a command path, nothing else) shows its usage
        if not run.err.startswith("usage: dpverify"):
            problems.append(("error-format", f"a bare command must print its usage; stderr: {run.err[:300]!r}"))
        return problems
    if code == 2:
        lines = run.err.rstrip("\n").split(
            "\n"
        )  # only a newline ends a line (splitlines also splits at \x1c, \x85, ...)
        if len(lines) != 1 or not lines[0].startswith("dpverify: error:"):
            category = "cli-error-prefix" if isinstance(run.code, tuple) else "error-format"
            if len(lines) == 1 and ("/dev/full" in lines[0] or "Errno" in lines[0]):
                category = "cli-output-path"
            problems.append((category, f"stderr is not one 'dpverify: error:' line: {run.err[:300]!r}"))
        if any(len(line) > MAX_LINE for line in lines):
            argparse_error = lines[0].startswith(
                ("dpverify: error: argument ", "dpverify: error: unrecognized arguments")
            )
            problems.append(
                (
                    "cli-long-argparse" if argparse_error else "long-message",
                    f"an error line of {max(map(len, lines))} characters",
                )
            )
        if "[]" in run.err and any(a.endswith("=--") for a in run.argv):
            problems.append(("cli-seed-dashdash", f"option value '--' reached the code: {run.err[:200]!r}"))
    return problems


# --- the API --------------------------------------------------------------------------------------


class Opaque:
    """An object of no type the API expects."""

    def __repr__(self) -> str:
        return "Opaque()"


class Hostile:
    """An object whose comparisons, hashing and conversions raise."""

    def __repr__(self) -> str:
        return "Hostile()"

    def _boom(self, *args: object) -> Any:
        raise UserCodeError("hostile object used")

    __eq__ = __lt__ = __le__ = __gt__ = __ge__ = __int__ = __index__ = __float__ = __len__ = __iter__ = _boom  # type: ignore[assignment]
    __hash__ = None  # type: ignore[assignment]


def _user_sampler(*args: object, **kwargs: object) -> int:
    rng = kwargs.get("rng", args[-1] if args else None)
    if isinstance(rng, RandomSource):
        return rng.randbelow(2)
    return 0


def _raising_sampler(*args: object, **kwargs: object) -> int:
    raise UserCodeError("the sampler broke")


@dataclass(frozen=True)
class Value:
    """A pool entry: a label for the report and a factory (fresh objects for each call)."""

    label: str
    make: Callable[[], Any]

    def __repr__(self) -> str:
        return self.label


def _v(label: str, make: Callable[[], Any]) -> Value:
    return Value(label, make)


def _const(value: Any, label: str | None = None) -> Value:
    return Value(label or repr(value), lambda: value)


def value_pool() -> tuple[Value, ...]:
    """Good and bad values for any argument."""
    from dpverify import specs, verify
    from dpverify.specs import GtmSpec, PureDpClaim

    def gtm() -> Any:
        return GtmSpec.create("1/3", 3, 100)

    def table() -> Any:
        spec = gtm()
        return {q: spec.pmf(q) for q in spec.inputs()}

    plain = [
        0,
        1,
        2,
        3,
        7,
        -1,
        -7,
        True,
        False,
        10**100,
        -(10**100),
        2**70000,
        0.5,
        1.0,
        -0.0,
        1e308,
        math.nan,
        math.inf,
        -math.inf,
        Fraction(1, 3),
        Fraction(-1, 3),
        Fraction(7, 2),
        Fraction(0),
        Fraction(1, 10**50),
        -(10**5000),
        Fraction(1, 10**5000),
        2**64,
        "1/3",
        "2/9",
        "3",
        "0",
        "-1",
        "1/0",
        "10^100",
        "10^5000",
        "999999^999999",
        "1e99999999999",
        "abc",
        "",
        "x" * 500,
        "9" * 5000,
        "nan",
        None,
        [],
        [1, 2],
        (),
        (0, 1),
        (0,) * 6,
        {},
        {"alpha": "1/3"},
        {0: Fraction(1)},
        {0: Fraction(1, 2)},
        {0: 2, 1: -1},
        b"1/3",
        decimal.Decimal("0.5"),
        decimal.Decimal("NaN"),
        decimal.Decimal("sNaN"),
        complex(1, 1),
        1j,
    ]
    pool = [_const(v, _short(v)) for v in plain]
    pool += [
        _v("Opaque()", Opaque),
        _v("Hostile()", Hostile),
        _v("object()", object),
        _v("SeededRandomSource(1)", lambda: SeededRandomSource(1)),
        _v("SeededRandomSource(7)", lambda: SeededRandomSource(7)),
        _v("BadRange()", BadRange),
        _v("Negative()", Negative),
        _v("FloatDraw()", FloatDraw),
        _v("Raising()", Raising),
        _const(_user_sampler, "user_sampler"),
        _const(_raising_sampler, "raising_sampler"),
        _const(len, "len"),
        _v("GtmSpec(1/3,3,100)", gtm),
        _v("gtm_table", table),
        _v("[(0,1),(1,2)]", lambda: [(0, 1), (1, 2)]),
        _v("PureDpClaim(1/3)", lambda: PureDpClaim(Fraction(1, 3))),
        _v("PureDp(alpha=1/3)", lambda: specs.PureDp(alpha="1/3")),
        _v("ApproxDp(1,1/10^6)", lambda: specs.ApproxDp(1, "1/10^6")),
        _v("Zcdp(1/2)", lambda: specs.Zcdp("1/2")),
        _v("DiscreteLaplaceSpec(1)", lambda: specs.DiscreteLaplaceSpec.create(1)),
        _v("DiscreteGaussianSpec(1)", lambda: specs.DiscreteGaussianSpec.create(1)),
        _v("BernoulliExpSpec(1/2)", lambda: specs.BernoulliExpSpec.create("1/2")),
        _v("GridLaplaceSpec(0,1,1)", lambda: specs.GridLaplaceSpec.create(0, 1, 1)),
        _v("ExactPmf(1/2,1/2)", lambda: specs.ExactPmf((0, 1), (1, 1), 2)),
        _v(
            "Enumeration",
            lambda: verify.Enumeration({0: Fraction(1, 2), 1: Fraction(1, 2)}, Fraction(0), 2, 2, "exhaustive"),
        ),
        _v("Rational(0,1)", lambda: specs.Rational(0, 1)),
        _v("Integer(1)", lambda: specs.Integer(1)),
        # built directly, past create()'s checks: each must be refused where it is built
        _v("GtmSpec(2,0,1)", lambda: GtmSpec(Fraction(2), 0, 1)),
        _v("GridLaplaceSpec(0,1,0,1)", lambda: specs.GridLaplaceSpec(0, 1, 0, 1)),
        _v("Enumeration({0:2},-1)", lambda: verify.Enumeration({0: Fraction(2)}, Fraction(-1), 0, 0, "x")),
    ]
    return tuple(pool)


def _short(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 400:
        return f"<int of {value.bit_length()} bits>"
    if isinstance(value, Fraction) and value.denominator.bit_length() > 400:
        return f"<Fraction with a denominator of {value.denominator.bit_length()} bits>"
    text = repr(value)
    return text if len(text) <= 40 else text[:30] + f"...({len(text)} chars)"


#: Parameter names whose huge *valid* values are honest long runs (samples=10^100 is a request for
#: 10^100 draws), so they draw from a pool without huge valid counts.
COUNT_NAMES = frozenset(
    {
        "samples",
        "max_paths",
        "max_depth",
        "max_examples",
        "k",
        "bits",
        "width",
        "timeout_ms",
        "dps",
        "n",
        "T",
        "noise_shift",
        "seed",
        "guard",
    }
)


def count_pool() -> tuple[Value, ...]:
    values = [
        0,
        1,
        2,
        3,
        8,
        53,
        -1,
        True,
        0.5,
        math.nan,
        Fraction(1, 2),
        "3",
        "1/2",
        "10^5000",
        "abc",
        None,
        [],
        Opaque(),
    ]
    return tuple(_const(v, _short(v)) for v in values)


@dataclass(frozen=True)
class Target:
    """One public callable: ``name`` for the report, ``make`` returning the callable (a bound
    method needs a fresh instance), and its signature."""

    name: str
    make: Callable[[], Callable[..., Any]]
    signature: inspect.Signature


#: Callables not fuzzed, with the reason.
SKIP = {
    "dpverify.verify.discover": "imports modules by name: a fuzzed name could import anything",
    "dpverify.samplers.fresh_seed": "no arguments",
}


def targets() -> tuple[Target, ...]:
    """Every public callable of the three packages' ``__all__``, the public functions of the
    sampler modules they export, and the public methods of the built-in spec classes."""
    import dpverify.samplers as samplers
    import dpverify.specs as specs
    import dpverify.verify as verify

    found: list[Target] = []

    def add(name: str, make: Callable[[], Callable[..., Any]]) -> None:
        if name in SKIP:
            return
        try:
            signature = inspect.signature(make())
        except (TypeError, ValueError):
            return
        found.append(Target(name, make, signature))

    for package in (samplers, specs, verify):
        for name in package.__all__:
            obj = getattr(package, name)
            qualified = f"{package.__name__}.{name}"
            if inspect.ismodule(obj):
                for inner in getattr(obj, "__all__", ()):
                    function = getattr(obj, inner)
                    if callable(function):
                        add(f"{qualified}.{inner}", lambda f=function: f)
            elif inspect.isclass(obj) and issubclass(obj, (BaseException, enum.Enum)):
                continue  # an exception or an enum: nothing to validate
            elif callable(obj) and not inspect.isabstract(obj):
                add(qualified, lambda o=obj: o)
    for label, factory in SPEC_INSTANCES.items():
        instance = factory()
        for name in dir(instance):
            if name.startswith("_"):
                continue
            attribute = getattr(instance, name)
            if callable(attribute) and not inspect.isclass(attribute):
                add(f"{label}.{name}", lambda f=factory, n=name: getattr(f(), n))
    return tuple(found)


def _gtm() -> Any:
    from dpverify.specs import GtmSpec

    return GtmSpec.create("1/3", 3, 100)


def _dlap() -> Any:
    from dpverify.specs import DiscreteLaplaceSpec

    return DiscreteLaplaceSpec.create("1/2", 2)


def _dgauss() -> Any:
    from dpverify.specs import DiscreteGaussianSpec

    return DiscreteGaussianSpec.create("7/3")


def _bexp() -> Any:
    from dpverify.specs import BernoulliExpSpec

    return BernoulliExpSpec.create("1/2")


def _grid() -> Any:
    from dpverify.specs import GridLaplaceSpec

    return GridLaplaceSpec.create("1/3", 1, "1/2")


def _dg_claim() -> Any:
    from dpverify.specs import DiscreteGaussianApproxDpClaim

    return DiscreteGaussianApproxDpClaim(Fraction(7, 3), 2)


def _exact_pmf() -> Any:
    from dpverify.specs import ExactPmf

    return ExactPmf((0, 1, 2), (1, 2, 1), 4)


def _rational() -> Any:
    from dpverify.specs import Rational

    return Rational(0, 1, low_open=True)


def _integer() -> Any:
    from dpverify.specs import Integer

    return Integer(1, 5)


SPEC_INSTANCES: dict[str, Callable[[], Any]] = {
    "GtmSpec(1/3,3,100)": _gtm,
    "DiscreteLaplaceSpec(1/2,2)": _dlap,
    "DiscreteGaussianSpec(7/3)": _dgauss,
    "BernoulliExpSpec(1/2)": _bexp,
    "GridLaplaceSpec(1/3,1,1/2)": _grid,
    "DiscreteGaussianApproxDpClaim(7/3,2)": _dg_claim,
    "ExactPmf((0,1,2),(1,2,1),4)": _exact_pmf,
    "Rational(0,1,open)": _rational,
    "Integer(1,5)": _integer,
}


#: The public names of specs/_api.py, which another change owns.
SPEC_API = frozenset(
    f"dpverify.specs.{name}" for name in ("Attempt", "Bisection", "Bounded", "Case", "Exhaustive", "Input", "Spec")
)

#: Constructors of the ExactPmf container: what they return sums to what the caller gave.
CONTAINERS = frozenset(
    {"dpverify.specs.ExactPmf", "ExactPmf((0,1,2),(1,2,1),4).from_fractions", "ExactPmf", "product_pmf.from_fractions"}
)


@dataclass
class ApiCall:
    target: Target
    args: list[Value]
    kwargs: dict[str, Value]

    def __repr__(self) -> str:
        parts = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return f"{self.target.name}({', '.join(parts)})"


@st.composite
def api_call(draw: st.DrawFn, all_targets: Sequence[Target], pool: Sequence[Value], counts: Sequence[Value]) -> ApiCall:
    """A call of one target: each positional parameter from the pool (a count-like one from the
    count pool), optional ones sometimes left out, now and then one argument too few or too many."""
    target = draw(st.sampled_from(all_targets))
    args: list[Value] = []
    kwargs: dict[str, Value] = {}

    def value(name: str) -> Value:
        return draw(st.sampled_from(counts if name in COUNT_NAMES else pool))

    for parameter in target.signature.parameters.values():
        if parameter.kind is parameter.VAR_POSITIONAL and not kwargs:
            args += draw(st.lists(st.sampled_from(pool), max_size=3))
            continue
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        optional = parameter.default is not parameter.empty
        if optional and draw(st.integers(0, 2)) == 0:
            continue
        if parameter.kind is parameter.KEYWORD_ONLY or (optional and draw(st.booleans())):
            kwargs[parameter.name] = value(parameter.name)
        elif not kwargs:
            args.append(value(parameter.name))
        else:
            kwargs[parameter.name] = value(parameter.name)
    return ApiCall(target, args, kwargs)


def run_api(call: ApiCall, bound: float) -> tuple[Any, BaseException | None, float]:
    start = time.monotonic()
    result: Any = None
    error: BaseException | None = None
    try:
        with time_bound(bound):
            function = call.target.make()
            args = [v.make() for v in call.args]
            kwargs = {k: v.make() for k, v in call.kwargs.items()}
            result = function(*args, **kwargs)
    except BaseException as caught:  # noqa: BLE001 - judged by the caller; KeyboardInterrupt re-raised
        if isinstance(caught, KeyboardInterrupt):
            raise
        error = caught
    return result, error, time.monotonic() - start


def _only_with_broken_sources(call: ApiCall, bound: float) -> bool:
    """True when the call fails only because of a broken RandomSource among its arguments: the
    same call with each broken source replaced by a valid one is fine."""
    broken = {cls.__name__ + "()" for cls in BROKEN_SOURCES}
    if not any(v.label in broken for v in [*call.args, *call.kwargs.values()]):
        return False
    zero = Value("SeededRandomSource(1)", lambda: SeededRandomSource(1))
    fixed = ApiCall(
        call.target,
        [zero if v.label in broken else v for v in call.args],
        {k: zero if v.label in broken else v for k, v in call.kwargs.items()},
    )
    _, error, _ = run_api(fixed, bound)
    return error is None or not foreign(error)


def judge_api(
    call: ApiCall, result: Any, error: BaseException | None, seconds: float, bound: float = QUICK_BOUND_S
) -> list[tuple[str, str]]:
    """The problems of one API call as ``(category, message)``."""
    labels = [v.label for v in [*call.args, *call.kwargs.values()]]
    return _judge_api(call, labels, result, error, seconds, bound)


def _judge_api(
    call: ApiCall, labels: list[str], result: Any, error: BaseException | None, seconds: float, bound: float
) -> list[tuple[str, str]]:
    from dpverify.specs import ExactPmf

    if isinstance(error, CaseTimeout):
        category = (
            "huge-number" if any("^" in label or "e9" in label or "bits>" in label for label in labels) else "hang"
        )
        return [(category, f"no answer within the bound ({seconds:.1f} s)")]
    if error is not None:
        if not foreign(error):
            if isinstance(error, DpverifyError) and len(str(error).splitlines()[0] if str(error) else "") > MAX_LINE:
                return [("long-message", f"message of {len(str(error))} characters")]
            return []
        return [
            (
                "rng-contract" if _only_with_broken_sources(call, bound) else "foreign-exception",
                f"raised {describe_error(error)}",
            )
        ]
    problems = []
    if call.target.name in CONTAINERS or call.target.name.endswith(".from_fractions"):
        return problems  # an ExactPmf built by the caller is a container: its total is the caller's
    pmfs = [result] if isinstance(result, ExactPmf) else []
    if isinstance(result, dict):
        pmfs += [value for value in result.values() if isinstance(value, ExactPmf)]
    for pmf in pmfs:
        if pmf.total() != 1:
            problems.append(("pmf-sum", f"returned a PMF summing to {pmf.total()}"))
    return problems


# --- methods of returned objects, and keyword calls ------------------------------------------------


def _tiny_spec() -> Any:
    namespace: dict[str, Any] = {}
    exec(TINY_SPEC_MODULE, namespace)  # noqa: S102 - the fuzz's own fixed text
    return namespace["SPECS"][0]


def _half_table() -> Any:
    spec = _gtm()
    return {q: spec.pmf(q) for q in spec.inputs()}


def _check_result() -> Any:
    from dpverify.specs import PureDpClaim
    from dpverify.verify import check_pure_dp, tightest_alpha

    spec = _gtm()
    return check_pure_dp(tightest_alpha(_half_table(), spec.neighbours()), PureDpClaim(Fraction(1, 3)))


def _timing() -> Any:
    from dpverify.verify import enumerate_outputs, timing_channel

    def sampler(rng: RandomSource) -> int:
        return rng.randbelow(2) + rng.randbelow(2)

    return timing_channel(enumerate_outputs(sampler))


def _worst_case() -> Any:
    from dpverify.verify import composed_delta

    spec = _gtm()
    return composed_delta(_half_table(), spec.neighbours(), 2, 1)


def _pld() -> Any:
    from dpverify.verify import PrivacyLossDistribution

    spec = _gtm()
    return PrivacyLossDistribution.from_pmfs(spec.pmf(0), spec.pmf(1))


def _account() -> Any:
    from dpverify.specs import account

    return account(1, "1/10^6", 3, "1/10^6")


def _mechanism() -> Any:
    from dpverify.samplers import mechanisms

    return mechanisms.compose(mechanisms.gtm("1/3", 2, 36), mechanisms.laplace(1, 1))


#: Objects the public API returns, by label: their public methods are called with keyword
#: arguments from the pool, which is where a method that trusts its arguments breaks.
RETURNED: dict[str, Callable[[], Any]] = {
    "Spec(fuzz-flip)": _tiny_spec,
    "Input(bit)": lambda: _tiny_spec().input,
    "Case(alpha=1/3)": lambda: _tiny_spec().cases[0],
    "VectorLaplaceSpec(1,1)": lambda: __import__("dpverify.specs").specs.VectorLaplaceSpec.create(1, 1),
    "VectorGaussianSpec(1,1,1)": lambda: __import__("dpverify.specs").specs.VectorGaussianSpec.create(1, 1, 1),
    "product_pmf": lambda: __import__("dpverify.specs").specs.product_pmf({0: Fraction(1, 3), 1: Fraction(2, 3)}),
    "Mechanism(compose)": _mechanism,
    "Guarantee(1/3)": lambda: _mechanism().guarantee,
    "CheckResult": _check_result,
    "TimingChannel": _timing,
    "WorstCase": _worst_case,
    "Enclosure": lambda: _worst_case().bound,
    "PrivacyLossDistribution": _pld,
    "Account": _account,
    "Bound": lambda: _account().bounds[0],
    "RandomCompat(1)": lambda: __import__("dpverify.verify").verify.RandomCompat(SeededRandomSource(1)),
    "SeededRandomSource(1)": lambda: SeededRandomSource(1),
    **SPEC_INSTANCES,
}

#: Public dataclasses not built directly here, with the reason.
RAW_SKIP = {
    "CaseOutcome": "a gate run's record; its module checks no fields yet (a known gap, tracked separately)",
}

#: Public methods not fuzzed here, with the reason.
METHOD_SKIP = {
    "RandomCompat.seed": "random.Random's own: seeding the OS source is a no-op",
    "SeededRandomSource.from_blocks": "a known gap: width is not bounded (10^100 gives OverflowError) and a blocks "
    "callable's own TypeError passes through",
}


def _own(function: object) -> bool:
    """Whether ``function`` is dpverify's code (a method inherited from ``random.Random`` is
    CPython's, with CPython's own errors)."""
    return str(getattr(function, "__module__", "") or "").startswith("dpverify")


def receiver_methods() -> tuple[tuple[str, str], ...]:
    """``(receiver label, method name)`` for each public method of dpverify's own code on the
    returned objects."""
    found = []
    for label, factory in RETURNED.items():
        instance = factory()
        for name in dir(instance):
            attribute = getattr(instance, name, None)
            if name.startswith("_") or not callable(attribute) or inspect.isclass(attribute) or not _own(attribute):
                continue
            if f"{type(instance).__name__}.{name}" in METHOD_SKIP:
                continue
            found.append((label, name))
    return tuple(found)


def public_dataclasses() -> tuple[type, ...]:
    """The public dataclasses of the three packages' ``__all__``."""
    import dataclasses

    import dpverify.samplers as samplers
    import dpverify.specs as specs
    import dpverify.verify as verify

    found = []
    for package in (samplers, specs, verify):
        for name in package.__all__:
            obj = getattr(package, name)
            if inspect.isclass(obj) and dataclasses.is_dataclass(obj) and obj.__name__ not in RAW_SKIP:
                found.append(obj)
    return tuple(found)


def _keyword_arguments(
    draw: st.DrawFn, signature: inspect.Signature, pool: Sequence[Value], counts: Sequence[Value], keep_default: int = 3
) -> tuple[list[Value], dict[str, Value]]:
    """Every parameter by keyword (positional-only ones by position), optional ones sometimes
    left out; ``*args`` get zero to three values."""
    args: list[Value] = []
    kwargs: dict[str, Value] = {}
    for parameter in signature.parameters.values():
        if parameter.name == "self":
            continue
        source = counts if parameter.name in COUNT_NAMES else pool
        if parameter.kind is parameter.VAR_POSITIONAL:
            args += draw(st.lists(st.sampled_from(source), max_size=3))
            continue
        if parameter.kind is parameter.VAR_KEYWORD:
            continue
        if parameter.default is not parameter.empty and draw(st.integers(0, keep_default)) == 0:
            continue
        if parameter.kind is parameter.POSITIONAL_ONLY:
            args.append(draw(st.sampled_from(source)))
        else:
            kwargs[parameter.name] = draw(st.sampled_from(source))
    return args, kwargs


@st.composite
def method_call(
    draw: st.DrawFn, all_targets: Sequence[Target], pool: Sequence[Value], counts: Sequence[Value]
) -> ApiCall:
    """Keyword calls: a public method of a returned object, a public dataclass built directly
    from drawn fields, or a public method of such a directly built instance (which must be as
    checked as one from ``create``); ``all_targets`` is unused (the signature matches
    :func:`api_call`'s)."""
    shape = draw(st.integers(0, 2))
    if shape == 0:
        label, name = draw(st.sampled_from(receiver_methods()))
        factory = RETURNED[label]
        method = getattr(factory(), name)
        target = Target(f"{label}.{name}", lambda f=factory, n=name: getattr(f(), n), inspect.signature(method))
        args, kwargs = _keyword_arguments(draw, target.signature, pool, counts)
        return ApiCall(target, args, kwargs)
    cls = draw(st.sampled_from(public_dataclasses()))
    fields_args, fields = _keyword_arguments(draw, inspect.signature(cls), pool, counts, keep_default=1)
    if shape == 1:
        return ApiCall(Target(f"{cls.__name__}", lambda c=cls: c, inspect.signature(cls)), fields_args, fields)
    names = [n for n in dir(cls) if not n.startswith("_") and inspect.isfunction(getattr(cls, n, None))]
    if not names:
        return ApiCall(Target(f"{cls.__name__}", lambda c=cls: c, inspect.signature(cls)), fields_args, fields)
    name = draw(st.sampled_from(sorted(names)))
    built = ", ".join(f"{k}={v!r}" for k, v in fields.items())

    def make(c: type = cls, n: str = name, a: list[Value] = fields_args, kw: dict[str, Value] = fields) -> Any:
        return getattr(c(*[v.make() for v in a], **{k: v.make() for k, v in kw.items()}), n)

    signature = inspect.signature(getattr(cls, name))
    args, kwargs = _keyword_arguments(draw, signature, pool, counts)
    return ApiCall(Target(f"{cls.__name__}({built}).{name}", make, signature), args, kwargs)
