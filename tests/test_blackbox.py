"""``dpverify audit --black-box``: Clopper–Pearson bounds, the event family, both tests, the CLI.

Statistical assertions use fixed seeds where the sampler can be seeded (numpy, ``random``) and a
bounded false-positive rate everywhere: the privacy test's ``alpha`` (default ``10**-6``) and the
distribution test's ``beta`` (``10**-9``); OpenDP draws from the OS and relies on the bound alone.
"""

from __future__ import annotations

import json
import math
import random
import time
from fractions import Fraction
from pathlib import Path

import pytest
from _terminal import default_sigint
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.samplers import InvalidArgument
from dpverify.specs import Rational
from dpverify.specs._api import Case, Input, Spec
from dpverify.specs._claims import PureDp, Zcdp
from dpverify.verify.cli import main
from dpverify.verify.engine._clopper_pearson import clopper_pearson_lower, clopper_pearson_upper
from dpverify.verify.engine._results import Verdict
from dpverify.verify.published._blackbox import BLACKBOX_SCHEMA, audit_case
from dpverify.verify.published._blackbox_distribution import check_black_box_distribution
from dpverify.verify.published._blackbox_draw import Garbage, Raised, draw, normalise
from dpverify.verify.published._blackbox_privacy import check_black_box_privacy
from dpverify.verify.published._blackbox_search import Event, _lowest_bit

ROOT = Path(__file__).resolve().parents[1]


def _tail_at_least(k: int, n: int, p: Fraction) -> Fraction:
    """``P_p(K >= k)`` for ``K ~ Binomial(n, p)``, exactly."""
    return sum((Fraction(math.comb(n, i)) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1)), Fraction(0))


# --- Clopper-Pearson against the exact binomial tails ----------------------------------------------


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 25), data=st.data(), alpha=st.sampled_from(["1/20", "1/40", "1/1000"]))
def test_clopper_pearson_bounds_are_outward_and_tight_against_exact_tails(
    n: int, data: st.DataObject, alpha: str
) -> None:
    k = data.draw(st.integers(0, n))
    a = Fraction(alpha)
    low, high = clopper_pearson_lower(k, n, a), clopper_pearson_upper(k, n, a)
    assert 0 <= low <= Fraction(k, n) <= high <= 1
    if k > 0:
        assert _tail_at_least(k, n, low) <= a  # outward: at most the exact bound
        assert _tail_at_least(k, n, low * (1 + Fraction(1, 10**6))) > a  # and tight
    if k < n:
        assert 1 - _tail_at_least(k + 1, n, high) <= a
        assert 1 - _tail_at_least(k + 1, n, high * (1 - Fraction(1, 10**6))) > a


def test_clopper_pearson_refuses_bad_arguments() -> None:
    with pytest.raises(InvalidArgument, match="successes must be at most trials"):
        clopper_pearson_lower(5, 4, "1/20")
    with pytest.raises(InvalidArgument, match="alpha"):
        clopper_pearson_upper(1, 4, 0.05)


# --- the float structure the event family relies on -----------------------------------------------


@given(st.floats(min_value=-1.0, max_value=-0.5, exclude_min=True, exclude_max=True))
def test_mironov_one_plus_noise_in_minus_one_minus_half_is_a_multiple_of_2_to_minus_53(noise: float) -> None:
    output = 1.0 + noise
    assert 0 < output < 0.5
    assert _lowest_bit(output) >= -53  # output * 2^53 is an integer: the event's complement
    assert output not in Event(0, 0.5, -53, True)


@given(st.one_of(st.integers(-(2**70), 2**70), st.floats(allow_nan=False, allow_infinity=False)))
def test_lowest_bit_is_the_exponent_of_the_odd_part(value: int | float) -> None:
    e = _lowest_bit(value)
    if value == 0:
        return
    if abs(e) < 1100:
        odd = Fraction(value) / Fraction(2) ** e
        assert odd.denominator == 1 and odd.numerator % 2 == 1


def test_normalise_keeps_numbers_and_marks_garbage() -> None:
    assert normalise(3) == 3 and normalise(0.5) == 0.5 and normalise(Fraction(1, 3)) == Fraction(1, 3)
    assert isinstance(normalise(True), Garbage)
    assert isinstance(normalise(float("nan")), Garbage)
    assert isinstance(normalise(None), Garbage)
    assert isinstance(normalise("3"), Garbage)


# --- the privacy test on draws from a seeded generator -------------------------------------------


def _randomized_response(q: int, epsilon_ratio: Fraction, rng: random.Random) -> int:
    """Truthful with probability e/(1+e) written as the exact ratio r = e^eps: P(q) = r/(1+r)."""
    keep = rng.random() < float(epsilon_ratio / (1 + epsilon_ratio))
    return q if keep else 1 - q


def test_privacy_test_passes_randomized_response_that_meets_its_claim() -> None:
    rng = random.Random(20261124)
    ratio = Fraction(3)  # epsilon = ln 3; the claim PureDp(alpha=1/3) is exact and tight
    draws0 = [_randomized_response(0, ratio, rng) for _ in range(20_000)]
    draws1 = [_randomized_response(1, ratio, rng) for _ in range(20_000)]
    result = check_black_box_privacy(draws0, draws1, (0, 1), PureDp(alpha=Fraction(1, 3)), seed=20261124)
    assert result.verdict is Verdict.PROVED, result.summary
    assert float(result.evidence["epsilon_lower_bound"]) <= math.log(3)
    # and the bound is informative: the best event's held-out bound is close to ln 3
    assert float(result.evidence["epsilon_lower_bound"]) > 0.9


def test_privacy_test_certifies_a_leak_and_names_the_event() -> None:
    rng = random.Random(7)
    draws0 = [rng.choice((0, 1, 2)) for _ in range(6_000)]
    draws1 = [rng.choice((0, 1)) for _ in range(6_000)]  # 2 never comes from input 1
    result = check_black_box_privacy(draws0, draws1, (0, 1), PureDp(epsilon=1), seed=7)
    assert result.verdict is Verdict.VIOLATED
    assert result.evidence["held_out_counts"]["less_likely"] == 0
    assert float(result.evidence["epsilon_lower_bound"]) > 1
    assert result.evidence["seed"] == 7 and result.evidence["samples_per_input"] == [6000, 6000]


def test_privacy_test_treats_exceptions_as_outputs() -> None:
    draws0 = [Raised("OverflowError", "boom")] * 500 + [0] * 9500
    draws1 = [0] * 10000
    result = check_black_box_privacy(draws0 * 2, draws1 * 2, (0, 1), PureDp(epsilon=1))
    assert result.verdict is Verdict.VIOLATED
    assert "OverflowError" in result.evidence["event"]["description"]


def test_zcdp_bound_comes_from_the_binary_renyi_divergence() -> None:
    rng = random.Random(11)
    draws0 = [rng.choice((0, 1, 2, 3)) for _ in range(8_000)]
    draws1 = [rng.choice((0, 1, 2)) for _ in range(8_000)]
    result = check_black_box_privacy(draws0, draws1, (0, 1), Zcdp(rho=Fraction(1, 100)))
    assert result.verdict is Verdict.VIOLATED
    assert float(result.evidence["rho_lower_bound"]) > Fraction(1, 100)


# --- the distribution test ------------------------------------------------------------------------

_COIN = {0: Fraction(1, 2), 1: Fraction(1, 2)}


def _coin_law(o: object) -> tuple[Fraction, Fraction]:
    p = _COIN.get(o, Fraction(0))  # type: ignore[call-overload]
    return p, p


def test_distribution_test_passes_a_fair_coin_and_states_its_power() -> None:
    rng = random.Random(5)
    result = check_black_box_distribution([rng.randrange(2) for _ in range(10_000)], _coin_law, [0, 1], exact=True)
    assert result.verdict is Verdict.PROVED, result.summary
    assert 0 < result.evidence["detectable_distance"] < 0.1


@pytest.mark.parametrize(
    ("outputs", "needle"),
    [
        ([0, 1] * 50 + [Raised("ValueError", "bad")], "raised ValueError"),
        ([0, 1] * 50 + [Garbage("NoneType", "None")], "not a finite number"),
        ([0, 1] * 50 + [0.5], "not an integer"),
        ([0, 1] * 50 + [2], "probability 0"),
    ],
)
def test_distribution_test_certain_violations(outputs: list[object], needle: str) -> None:
    result = check_black_box_distribution(outputs, _coin_law, [0, 1], exact=True)
    assert result.verdict is Verdict.VIOLATED and needle in result.summary


def test_distribution_test_catches_an_atom_outside_the_listed_outputs() -> None:
    # the law: 1/2 at 0 and 1, a tiny enclosure elsewhere; the sampler piles a quarter on 10^9
    def law(o: object) -> tuple[Fraction, Fraction]:
        return (Fraction(1, 2), Fraction(1, 2)) if o in (0, 1) else (Fraction(0), Fraction(1, 10**12))

    rng = random.Random(9)
    outputs = [10**9 if rng.random() < 0.25 else rng.randrange(2) for _ in range(8_000)]
    result = check_black_box_distribution(outputs, law, [0, 1], exact=False)
    assert result.verdict is Verdict.VIOLATED
    assert "DKW" in result.summary or result.evidence["atom"] == 10**9


# --- drawing: raising, hanging, garbage ---------------------------------------------------------


def _hang() -> object:
    time.sleep(3600)
    return 0


def test_draw_turns_exceptions_and_garbage_into_outputs_and_bounds_time() -> None:
    def raising() -> object:
        raise RuntimeError("no")

    (raised, garbage, hanging) = draw([raising, lambda: "x", _hang], 50, seed=1, time_limit=3)
    assert raised.complete and all(isinstance(o, Raised) and o.error == "RuntimeError" for o in raised.outputs)
    assert garbage.complete and all(isinstance(o, Garbage) for o in garbage.outputs)
    assert not hanging.complete and hanging.outputs == ()


def test_draw_reports_a_process_that_dies() -> None:
    import os

    (died,) = draw([lambda: os._exit(3)], 10, seed=1, time_limit=20)
    assert not died.complete and not died.timed_out and died.exit_code == 3


def _spec(name: str, sampler: object) -> Spec:
    return Spec(
        name=name,
        sampler=sampler,
        parameters={"epsilon": Rational(0, low_open=True)},  # type: ignore[arg-type]
        input=Input("x", values=lambda p: (0, 1)),
        claim=lambda p: PureDp(epsilon=p["epsilon"]),
        pmf=lambda p, q: {q: Fraction(1)},
        randomness="none",
        cases=(Case({"epsilon": 1}, "violated"),),
    )


def _raising_sampler(x: int, epsilon: Fraction) -> int:
    raise ValueError("refused")


def _garbage_sampler(x: int, epsilon: Fraction) -> object:
    return None


def _hanging_sampler(x: int, epsilon: Fraction) -> int:
    time.sleep(3600)
    return x


@pytest.mark.parametrize(
    ("sampler", "outcome", "needle"),
    [
        (_raising_sampler, "violated", "raised ValueError"),
        (_garbage_sampler, "violated", "not a finite number"),
        (_hanging_sampler, "inconclusive", "hangs"),
    ],
)
def test_a_misbehaving_black_box_ends_in_a_verdict(sampler: object, outcome: str, needle: str) -> None:
    spec = _spec("misbehaving", sampler)
    result = audit_case(spec, spec.cases[0], seed=1, samples=40, time_limit=2)
    assert result.outcome == outcome
    assert any(needle in c.summary for c in result.checks), [c.summary for c in result.checks]


# --- the built-in black boxes -----------------------------------------------------------------------


def test_numpy_float_laplace_violates_its_epsilon() -> None:
    pytest.importorskip("numpy")
    from dpverify.verify.published._blackbox_specs import NUMPY_LAPLACE

    result = audit_case(NUMPY_LAPLACE, NUMPY_LAPLACE.cases[0], seed=2026, samples=20_000, alpha="1/10")
    assert result.outcome == "violated" and result.met
    (privacy,) = result.checks
    assert float(privacy.evidence["epsilon_lower_bound"]) > 0.252  # DP-Sniper's published bound at 90%
    assert "o * 2^" in privacy.evidence["event"]["description"]  # the float structure, not an interval alone
    again = audit_case(NUMPY_LAPLACE, NUMPY_LAPLACE.cases[0], seed=2026, samples=20_000, alpha="1/10")
    assert again.checks[0].evidence["held_out_counts"] == privacy.evidence["held_out_counts"]  # numpy replays


@pytest.mark.parametrize("name", ["opendp-dlaplace", "opendp-dgauss"])
def test_opendp_integer_mechanisms_pass_both_tests(name: str) -> None:
    pytest.importorskip("opendp")
    from dpverify.verify.published._blackbox_specs import BLACK_BOXES

    spec = BLACK_BOXES[name]
    result = audit_case(spec, spec.cases[0], seed=1, samples=3_000)
    assert result.outcome == "proved", [c.summary for c in result.checks]
    assert {c.check for c in result.checks} == {"blackbox_distribution", "blackbox_privacy"}


def test_opendp_i32_gaussian_saturates_and_fails_the_distribution_test() -> None:
    pytest.importorskip("opendp")
    from dpverify.verify.published._blackbox_specs import OPENDP_DGAUSS_I32

    case = next(c for c in OPENDP_DGAUSS_I32.cases if c.expect == "violated")
    result = audit_case(OPENDP_DGAUSS_I32, case, seed=1, samples=2_000)
    assert result.outcome == "violated"
    distribution = next(c for c in result.checks if c.check == "blackbox_distribution")
    assert distribution.verdict is Verdict.VIOLATED
    assert distribution.evidence["atom"] in (2**31 - 1, -(2**31))


# --- the command line ---------------------------------------------------------------------------------


def test_cli_black_box_writes_a_valid_document_and_fails_the_float_laplace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("numpy")
    jsonschema = pytest.importorskip("jsonschema")
    code = main(
        [
            "audit",
            "--black-box",
            "dpverify.verify.published._blackbox_specs:NUMPY_LAPLACE",
            "--epsilon",
            "0.1",
            "--seed",
            "4",
            "--samples",
            "10000",
            "--confidence",
            "0.9",
            "--out",
            str(tmp_path),
            "--json",
        ]
    )
    out, err = capsys.readouterr()
    assert code == 1, err
    document = json.loads(out)
    assert document["schema"] == BLACKBOX_SCHEMA
    schema = json.loads((ROOT / "schemas" / "blackbox-1.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(document)
    assert json.loads((tmp_path / "blackbox.json").read_text()) == document
    privacy = document["cases"][0]["checks"][0]
    assert privacy["verdict"] == "violated" and privacy["evidence"]["confidence"] == "9/10"
    assert "seed=4" in err and "--seed 4" in err


def test_cli_black_box_refuses_what_is_not_a_spec(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "--black-box", "json:dumps", "--out", str(tmp_path)]) == 2
    assert "must name a dpverify.specs.Spec" in capsys.readouterr().err
    assert main(["audit", "bernoulli", "--confidence", "0.9", "--out", str(tmp_path)]) == 2
    assert "--confidence applies only" in capsys.readouterr().err


_BUSY_MODULE = """
import os
import time
from fractions import Fraction

from dpverify.specs import Rational
from dpverify.specs._api import Case, Input, Spec
from dpverify.specs._claims import PureDp


def busy(x, epsilon):
    open(os.environ["BUSY_MARKER"] + str(os.getpid()), "a").close()  # the test waits for a worker to draw
    time.sleep(0.001)
    return x


BUSY = Spec(name="busy", sampler=busy, parameters={"epsilon": Rational(0, low_open=True)},
            input=Input("x", values=lambda p: (0, 1)), claim=lambda p: PureDp(epsilon=p["epsilon"]),
            pmf=lambda p, q: {q: Fraction(1)}, randomness="none", cases=(Case({"epsilon": 1}, "proved"),))
"""


def test_ctrl_c_during_a_black_box_audit_stops_it_without_a_worker_traceback(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys

    (tmp_path / "busy_box.py").write_text(_BUSY_MODULE)
    marker = tmp_path / "drawing-"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "dpverify",
            "audit",
            "--black-box",
            "busy_box:BUSY",
            "--epsilon",
            "1",
            "--seed",
            "1",
            "--samples",
            "10^6",
            "--time-limit",
            "600",
            "--out",
            str(tmp_path / "out"),
        ],
        preexec_fn=default_sigint,  # as from a terminal: Ctrl-C at its default
        cwd=tmp_path,
        env={**os.environ, "BUSY_MARKER": str(marker)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, which Ctrl-C signals as a whole
    )
    try:
        deadline = time.monotonic() + 120
        while len(list(tmp_path.glob("drawing-*"))) < 2 and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(list(tmp_path.glob("drawing-*"))) == 2, "both workers should be drawing"
        os.killpg(process.pid, signal.SIGINT)
        out, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == 130, err
    assert err == "dpverify: interrupted\n"
