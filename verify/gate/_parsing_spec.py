"""The gate's entry for the parameter parsing every sampler starts with.

Every exact sampler reads its rationals and integers through :func:`~dpverify.samplers.as_fraction`,
:func:`~dpverify.samplers.as_int` and ``as_open_unit_interval``: a slip there samples the right
distribution for the wrong parameter.  The ``rational-parsing`` entry states the accepted
language independently, as a table of inputs and the exact values they denote (each written
here as ``Fraction`` arithmetic, never by calling the parser), and the limits at their edges:

- text: integers, decimals, ``e`` exponents, ``num/den``, products of powers ``"11*10^40/3"``
  (``^`` or ``**``), signs and surrounding blanks, in ASCII digits only (``"５"`` is refused,
  though Python's own ``int`` and ``Fraction`` read it as 5); at most :data:`MAX_DIGITS` digits
  in the numerator and in the denominator (a value below ``10^MAX_DIGITS``), at most :data:`MAX_TEXT`
  characters, at most ``2 * MAX_DIGITS + 20`` digits written;
- ``int`` and ``Fraction`` passed directly: at most :data:`MAX_BITS` bits in each part;
- ``as_int``'s inclusive bounds (which must be ints), integral Fractions, and a refusal that
  states the range it missed;
- refusals: floats (with a hint), bools, other types, text that does not parse, and every limit;
  each with :class:`~dpverify.samplers.InvalidArgument` whose message names the parameter
  (``name=``).

The check is violated at the first input whose value or refusal differs, with the input, the
value the table states and the value (or error) the parser gave.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from numbers import Rational
from typing import Any

from dpverify.specs import Case, Params, SamplesPmf, Spec
from dpverify.verify.engine._results import CheckResult
from dpverify.verify.gate._real_runs import NoOutput, once

__all__ = [
    "MAX_BITS",
    "MAX_DIGITS",
    "MAX_TEXT",
    "PARSING_SPEC",
    "REFUSED",
    "ROW_SECONDS",
    "SPECS",
    "Row",
    "cases",
    "check_parsing",
]

#: The documented limits (samplers/_rational.py's docstring), restated.
MAX_DIGITS = 1000
MAX_TEXT = 2 * MAX_DIGITS + 100
MAX_BITS = 1 << 16
_DIGIT_TEXT = 2 * MAX_DIGITS + 20

REFUSED = "refused"


@dataclass(frozen=True)
class Row:
    """One input: the call, and the exact value it denotes or :data:`REFUSED`.  A refusal must
    name ``named`` (``named=...``; default the parameter parsed) and contain each of ``says``."""

    label: str
    function: Callable[..., Any]
    args: tuple[Any, ...]
    keywords: dict[str, Any]
    expected: Any
    named: str | None = None
    says: tuple[str, ...] = ()
    lacks: tuple[str, ...] = ()


class _Ratio:
    """A ``numbers.Rational`` that is not a Fraction (as another library's rational would be)."""

    def __init__(self, numerator: int, denominator: int) -> None:
        self.numerator, self.denominator = numerator, denominator

    def __repr__(self) -> str:
        return f"_Ratio({self.numerator}, {self.denominator})"


Rational.register(_Ratio)


def cases() -> list[Row]:
    """The table, one :class:`Row` per input.  The functions are imported when the check runs,
    so a check of a copy runs the copy's parser."""
    from dpverify.samplers import as_fraction, as_int
    from dpverify.samplers._rational import as_open_unit_interval

    nines = "9" * MAX_DIGITS
    big = 10**MAX_DIGITS
    rows: list[Row] = []

    def fraction(text: Any, expected: Any) -> None:
        rows.append(Row(f"as_fraction(x={_short(text)})", as_fraction, ("x", text), {}, expected))

    def integer(
        text: Any, expected: Any, low: Any = 0, high: Any = None, named: str | None = None, out_of_range: bool = False
    ) -> None:
        # a value out of range must be told the range it missed, and no "<= None" without an upper bound
        says = (f"t >= {low}", *([f"t <= {high}"] if high is not None else [])) if out_of_range else ()
        lacks = ("<=",) if out_of_range and high is None else ()
        rows.append(
            Row(
                f"as_int(t={_short(text)}, low={low!r}, high={high!r})",
                as_int,
                ("t", text),
                {"low": low, "high": high},
                expected,
                named,
                says,
                lacks,
            )
        )

    def unit(text: Any, expected: Any) -> None:
        rows.append(Row(f"as_open_unit_interval(a={_short(text)})", as_open_unit_interval, ("a", text), {}, expected))

    # The table's inputs and values are of every type, valid and invalid alike.
    text: Any
    value: Any
    # text: the forms the README documents
    for text, value in (
        ("1/3", Fraction(1, 3)),
        ("0.25", Fraction(1, 4)),
        ("-1/10^3", Fraction(-1, 1000)),
        ("11*10^40/3", Fraction(11 * 10**40, 3)),
        ("10**3", Fraction(1000)),
        ("2^10", Fraction(1024)),
        ("  7/2 ", Fraction(7, 2)),
        ("+5", Fraction(5)),
        ("-5", Fraction(-5)),
        ("1e-3", Fraction(1, 1000)),
        ("2.5e2", Fraction(250)),
        ("3", Fraction(3)),
        ("0", Fraction(0)),
        ("6/4", Fraction(3, 2)),
        ("2 * 3 ^ 2", Fraction(18)),
        ("00012", Fraction(12)),
        ("0^3", Fraction(0)),
        ("1^999999", Fraction(1)),
        ("2*3*5/7^2", Fraction(30, 49)),
        ("10^2/10^3", Fraction(1, 10)),
        ("-0", Fraction(0)),
        ("0010^2", Fraction(100)),
    ):
        fraction(text, value)
    for text in (
        "",
        "abc",
        "1/0",
        "1.5/2",
        "nan",
        "inf",
        "1/",
        "/3",
        "1//3",
        "--1",
        "1^",
        "^2",
        "2^1234567",
        "1 2",
        "0x10",
        "1/2/3",
        "10^-2",
        "*3",
        "3*",
        "\uff15",
        "1/\uff13",
        "\u0663.5",
        "2^\u0663",
        "1e\u0663",
    ):
        fraction(text, REFUSED)  # the last five in full-width and Arabic-Indic digits
    # text: the digit limits, at the edge and one past it
    fraction(nines, Fraction(big - 1))
    fraction("1" + "0" * MAX_DIGITS, REFUSED)
    fraction(f"1/{nines}", Fraction(1, big - 1))
    fraction(f"-{nines}/{nines}", Fraction(-1))
    fraction(f"1e{MAX_DIGITS - 1}", Fraction(big // 10))
    fraction(f"1e{MAX_DIGITS}", REFUSED)
    fraction(f"1e-{MAX_DIGITS - 1}", Fraction(10, big))
    fraction(f"1e{MAX_DIGITS + 1}", REFUSED)
    fraction(f"1e-{MAX_DIGITS + 1}", REFUSED)
    fraction(f"0.001e{MAX_DIGITS}", Fraction(big // 1000))  # the exponent may reach the limit itself
    fraction(f"1000e-{MAX_DIGITS}", Fraction(1000, big))
    fraction(f"10000e-{MAX_DIGITS + 3}", REFUSED)  # small, but its exponent passes the limit
    fraction("-1" + "0" * MAX_DIGITS, REFUSED)
    fraction("1/1" + "0" * MAX_DIGITS, REFUSED)
    fraction(f"0*10^{MAX_DIGITS}", Fraction(0))
    fraction(f"0*10^{MAX_DIGITS + 1}", REFUSED)  # a term past the limit, whatever it is multiplied by
    fraction("9" * 400 + "^999999", REFUSED)  # refused before it is computed: it has 400 million digits
    fraction(f"10^{MAX_DIGITS - 1}", Fraction(big // 10))
    fraction(f"10^{MAX_DIGITS}", REFUSED)
    fraction(f"1/10^{MAX_DIGITS - 1}", Fraction(10, big))
    fraction(f"1/10^{MAX_DIGITS}", REFUSED)
    fraction("2^3321", Fraction(2**3321))  # 2^3321 < 10^1000 < 2^3322
    fraction("2^3322", REFUSED)
    fraction(f"99^{MAX_DIGITS // 2}", Fraction(99 ** (MAX_DIGITS // 2)))
    fraction(f"3*10^{MAX_DIGITS - 1}", Fraction(3 * big // 10))
    fraction(f"10*10^{MAX_DIGITS - 1}", REFUSED)
    fraction(f"10^{MAX_DIGITS - 2}*99", Fraction(99 * big // 100))
    fraction(f"10^{MAX_DIGITS - 2}*101", REFUSED)
    fraction(f"10^{MAX_DIGITS - 2}*9", Fraction(9 * big // 100))
    # text: length and written digits
    padded = nines + "/" + nines
    fraction(padded.center(MAX_TEXT), Fraction(1))
    fraction(padded.center(MAX_TEXT + 1), REFUSED)
    many = "0" * (MAX_DIGITS + 20) + "1" + "/" + "0" * (MAX_DIGITS - 2) + "1"  # 2 * MAX_DIGITS + 20 digits
    fraction(many, Fraction(1))
    fraction("0" + many, REFUSED)
    # ints and Fractions passed directly: bits
    fraction(2**MAX_BITS - 1, Fraction(2**MAX_BITS - 1))
    fraction(2**MAX_BITS, REFUSED)
    fraction(-(2**MAX_BITS - 1), Fraction(-(2**MAX_BITS - 1)))
    fraction(Fraction(1, 2**MAX_BITS - 1), Fraction(1, 2**MAX_BITS - 1))
    fraction(Fraction(1, 2**MAX_BITS), REFUSED)
    fraction(Fraction(2**MAX_BITS, 3), REFUSED)
    fraction(Fraction(5, 7), Fraction(5, 7))
    fraction(_Ratio(3, 9), Fraction(1, 3))
    fraction(_Ratio(2**MAX_BITS, 3), REFUSED)
    for value in (0.5, float("nan"), float("inf"), True, False, None, [1], 1j):
        fraction(value, REFUSED)
    # as_int: bounds inclusive, the forms, integral Fractions
    for text, value in (
        ("1000", 1000),
        ("10^100", 10**100),
        ("10**100", 10**100),
        ("11*10^3", 11000),
        (" +5 ", 5),
        (7, 7),
        (Fraction(10, 2), 5),
        ("0", 0),
    ):
        integer(text, value)
    integer("-5", -5, low=-10)
    integer("-10^2", -100, low=-100)
    integer("-10^2", REFUSED, low=-99, out_of_range=True)
    integer("x5", REFUSED, low=-10)  # a stray first character is no sign
    integer(3, 3, low=3, high=3)
    integer(2, REFUSED, low=3, out_of_range=True)
    integer(4, REFUSED, low=3, high=3, out_of_range=True)
    integer("3", REFUSED, low=4, out_of_range=True)
    integer("5", REFUSED, low=0, high=4, out_of_range=True)
    integer("5", 5, low=0, high=5)
    integer(2**MAX_BITS - 1, 2**MAX_BITS - 1)
    integer(2**MAX_BITS, REFUSED)
    integer(nines, big - 1)
    integer("1" + "0" * MAX_DIGITS, REFUSED)
    integer(f"10^{MAX_DIGITS}", REFUSED)
    integer(" " * MAX_TEXT + "1", REFUSED)
    integer(" " * (MAX_TEXT - 1) + "1", 1)
    integer(5, REFUSED, low=1.0, named="low")
    integer(5, REFUSED, low=True, named="low")
    integer(5, REFUSED, low=0, high=True, named="high")
    integer(5, REFUSED, low=0, high="9", named="high")
    integer("10 ^ 2 * 3", 300)
    for value in ("5/1", "1.0", "2.5", "", "x", Fraction(5, 2), 2.0, True, None, "1e3", "1 2", "\uff15", "10^\uff12"):
        integer(value, REFUSED)
    # the open unit interval
    for text, value in (
        ("1/2", Fraction(1, 2)),
        ("999/1000", Fraction(999, 1000)),
        (Fraction(1, 10**100), Fraction(1, 10**100)),
        ("1/10^999", Fraction(1, 10**999)),
    ):
        unit(text, value)
    for value in (0, 1, "-1/2", "3/2", "1/1", 0.5, "0"):
        unit(value, REFUSED)
    return rows


#: Seconds one row may take.  Every row, at the limits' edges too, takes milliseconds; a parser
#: that computes a huge power before refusing it runs on (CPython checks for the bound's signal
#: between the power's steps, so it is cut off).
ROW_SECONDS = 2


def check_parsing(p: Params) -> CheckResult:
    """Every row of :func:`cases`: the stated value, or a refusal that names the parameter."""
    from dpverify.samplers import InvalidArgument
    from dpverify.verify.engine._results import Verdict

    problems = []
    rows = cases()
    for row in rows:
        label, expected, name = row.label, row.expected, row.named or row.args[0]
        try:
            got = once(partial(row.function, *row.args, **row.keywords), ROW_SECONDS)
        except NoOutput:
            problems.append(
                f"{label} was neither parsed nor refused within {ROW_SECONDS} s (a value past the limits "
                "is refused before it is computed)"
            )
            break  # the rows after it would only run on as long
        except InvalidArgument as error:
            text = str(error)
            if expected is not REFUSED:
                problems.append(f"{label} was refused ({text[:80]}); it is {_short(expected)}")
            elif f"{name}=" not in text:
                problems.append(f"{label} was refused, but the error does not name {name}: {text[:80]}")
            elif missing := [part for part in row.says if part not in text]:
                problems.append(f"{label} was refused, but the error does not state {missing[0]!r}: {text[:100]}")
            elif wrong := [part for part in row.lacks if part in text]:
                problems.append(f"{label} was refused, but the error states {wrong[0]!r}: {text[:100]}")
            continue
        except Exception as error:  # noqa: BLE001 - the parser raised something else: a finding
            problems.append(f"{label} raised {type(error).__name__} ({str(error)[:60]}), not InvalidArgument")
            continue
        if expected is REFUSED:
            problems.append(f"{label} was accepted as {_short(got)}; it is outside the language")
        elif got != expected or type(got) is not type(expected):
            problems.append(f"{label} gave {_short(got)} ({type(got).__name__}), not {_short(expected)}")
    if problems:
        return CheckResult(
            "parsing", Verdict.VIOLATED, "; ".join(problems[:3]), evidence={"problems": problems, "rows": len(rows)}
        )
    refused = sum(row.expected is REFUSED for row in rows)
    return CheckResult(
        "parsing",
        Verdict.PROVED,
        f"{len(rows)} inputs parse as stated: {len(rows) - refused} exact values, {refused} refusals "
        "that name their parameter, every limit at its edge",
    )


def _short(value: object) -> str:
    from dpverify.samplers._rational import shown

    return shown(value, 40)


PARSING_SPEC = Spec(
    name="rational-parsing",
    sampler=None,
    parameters={},
    claim=SamplesPmf(),
    checks=(check_parsing,),
    description="the parsing of every sampler's rationals and integers, against an independent table",
    citation="samplers/_rational.py: as_fraction, as_int, as_open_unit_interval",
    cases=(Case({}, "proved", "the documented language and its limits at their edges", label="limits"),),
)

#: The same, under the name ``dpverify check --spec-module dpverify.verify.gate._parsing_spec`` reads.
SPECS = (PARSING_SPEC,)
