"""The pytest plugin (``pytest --dpverify``) and the parameter search behind its search items.

The plugin runs in pytester's temporary project against a small spec module: randomized
response over ``k`` categories with the exact ratio ``alpha = a/b``, written correctly, with
an off-by-one (``u <= b``), with a claim stronger than the code gives, and the same over-claim
documented as unsafe.
"""

from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
import textwrap
import types
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.specs import Case, Spec, SpecError
from dpverify.verify.gate._search import parameter_strategy, search_spec

pytest_plugins = ["pytester"]

SPEC_MODULE = textwrap.dedent(
    """
    from fractions import Fraction

    from dpverify.specs import Case, Input, Integer, PureDp, Rational, Spec


    def rr(k, alpha, q, rng):
        a, b = alpha.numerator, alpha.denominator
        u = rng.randbelow(b + (k - 1) * a)
        if u < b:
            return q
        others = [x for x in range(k) if x != q]
        return others[(u - b) // a]


    def rr_broken(k, alpha, q, rng):
        a, b = alpha.numerator, alpha.denominator
        u = rng.randbelow(b + (k - 1) * a)
        if u <= b:
            return q
        others = [x for x in range(k) if x != q]
        return others[(u - b) // a]


    def pmf(p, q):
        k, alpha = p["k"], p["alpha"]
        total = 1 + (k - 1) * alpha
        return {x: (1 if x == q else alpha) / total for x in range(k)}


    def claim(p):
        return PureDp(alpha=p["alpha"])


    def overclaim(p):
        return PureDp(alpha=(1 + p["alpha"]) / 2)


    PARAMETERS = {"k": Integer(2, 50, search=(2, 5)), "alpha": Rational(0, 1, low_open=True, max_denominator=5)}
    INPUT = Input("q", values=lambda p: range(p["k"]), neighbours="all")
    CASES = [Case({"k": 3, "alpha": Fraction(1, 2)}), Case({"k": 2, "alpha": Fraction(1, 3)}, label="binary")]

    SPECS = (
        Spec("rr", rr, PARAMETERS, CASES, claim, input=INPUT, pmf=pmf),
        Spec("rr-broken", rr_broken, PARAMETERS, CASES[:1], claim, input=INPUT, pmf=pmf),
        Spec("rr-overclaim", rr, PARAMETERS, CASES[:1], overclaim, input=INPUT, pmf=pmf),
        Spec("rr-unsafe", rr, PARAMETERS, [Case({"k": 3, "alpha": Fraction(1, 2)}, expect="violated")],
             overclaim, input=INPUT, pmf=pmf),
    )
    """
)

BASE = ("-p", "no:cacheprovider")
RUN = ("--dpverify", "--dpverify-module", "mymod", *BASE)


def _spec_module() -> types.ModuleType:
    """The spec module imported here too, from the one source the pytester project gets."""
    module = types.ModuleType("mymod")
    exec(compile(SPEC_MODULE, "mymod.py", "exec"), module.__dict__)
    return module


def _spec(name: str) -> Spec:
    return next(spec for spec in _spec_module().SPECS if spec.name == name)


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(mymod=SPEC_MODULE)
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    return pytester


# --- the search ---------------------------------------------------------------------------------


def test_search_finds_the_smallest_failing_parameters_reproducibly() -> None:
    spec = _spec("rr-broken")
    first, second = search_spec(spec, seed=11, max_examples=10), search_spec(spec, seed=11, max_examples=10)
    assert first.verdict == "violated" and not first.broken
    # Every parameter set is broken, so shrinking reaches the simplest of all: two categories, alpha = 1.
    assert dict(first.parameters) == {"k": 2, "alpha": Fraction(1)}
    assert not first.outcome.met and first.outcome.outcome != "error"
    exactness = next(c for c in first.outcome.checks if c.check == "exactness")
    assert exactness.verdict.value == "violated" and exactness.evidence["code_p"] == "1"
    assert (second.parameters, second.examples, second.outcome.problems) == (
        first.parameters,
        first.examples,
        first.outcome.problems,
    )
    assert first.replay == "search_spec(<spec 'rr-broken'>, seed=11, max_examples=10)"


def test_search_of_a_correct_spec_proves_its_examples() -> None:
    result = search_spec(_spec("rr"), seed=3, max_examples=8)
    assert (result.verdict, result.parameters, result.outcome) == ("proved", None, None)
    assert result.examples == 8
    assert "found no failing parameter set among 8" in result.summary()


def test_search_reports_a_sampler_that_raises_on_drawn_parameters() -> None:
    spec = _spec("rr")

    def three_at_most(k: int, alpha: Fraction, q: int, rng: object) -> int:
        if k > 3:
            raise ZeroDivisionError("a bug past three categories")
        return spec.sampler(k=k, alpha=alpha, q=q, rng=rng)

    raising = dataclasses.replace(spec, sampler=three_at_most)
    result = search_spec(raising, seed=5, max_examples=25)
    assert result.verdict == "violated" and not result.broken
    assert dict(result.parameters) == {"k": 4, "alpha": Fraction(1)}
    assert any("smoke violated" in p and "ZeroDivisionError" in p for p in result.outcome.problems)


def test_parameter_strategy_keeps_only_sets_the_domain_accepts() -> None:
    spec = _spec("rr")
    # A draw mixing valid and refused sets: the refused ones (k=1, alpha=0, a missing alpha) are skipped.
    drawn = st.sampled_from(
        [{"k": 1, "alpha": Fraction(1, 2)}, {"k": 2, "alpha": Fraction(0)}, {"k": 2}, {"k": 3, "alpha": Fraction(1, 2)}]
    )
    custom = dataclasses.replace(spec, draw=lambda: drawn)
    seen = []

    @settings(max_examples=20, database=None)
    @given(parameter_strategy(custom))
    def collect(p: dict) -> None:
        seen.append(p)

    collect()
    assert seen and all(p == {"k": 3, "alpha": Fraction(1, 2)} for p in seen)


def test_a_draw_the_domain_always_refuses_is_a_spec_error() -> None:
    spec = _spec("rr")
    refused = dataclasses.replace(spec, draw=st.just({"k": 1, "alpha": Fraction(1, 2)}))
    with pytest.raises(SpecError, match="drew no parameter set the declared domains accept"):
        search_spec(refused, seed=1, max_examples=5)


# --- the plugin -------------------------------------------------------------------------------


def test_plugin_reports_cases_and_searches(project: pytest.Pytester) -> None:
    result = project.runpytest(*RUN, "--dpverify-seed", "7", "-rA")
    text = result.stdout.str()
    result.assert_outcomes(passed=5, failed=4, xfailed=1)
    assert "dpverify: seed 7 (replay with --dpverify-seed 7)" in text
    for passed in ("rr/k=3,alpha=1/2", "rr/binary", "rr/search", "rr-unsafe/k=3,alpha=1/2", "plain"):
        assert re.search(rf"PASSED \S*{re.escape(passed)}\b", text), passed
    result.stdout.fnmatch_lines(
        [
            # The off-by-one: the output and both exact probabilities.
            "*_ dpverify::rr-broken/k=3,alpha=1/2 _*",
            "dpverify: spec 'rr-broken' (module mymod), case k=3,alpha=1/2",
            "  problem: exactness violated: *",
            "  counterexample (exactness): input q=0, output=0: code P = 3/4, spec P = 1/2",
            # Its search: the shrunk parameters, the seed and the command that replays it.
            "*_ dpverify::rr-broken/search _*",
            "dpverify search of spec 'rr-broken' (module mymod): a parameter set fails its exact checks",
            "  shrunk parameters: k=2, alpha=1",
            "  seed: 7; * parameter sets checked*",
            "  counterexample (exactness): input q=0, output=0: code P = 1, spec P = 1/2",
            '  replay: pytest --dpverify --dpverify-module mymod --dpverify-seed 7 -k "rr-broken/search"',
            # The over-claim: the privacy witness, inputs q and q', with both exact probabilities.
            "*_ dpverify::rr-overclaim/k=3,alpha=1/2 _*",
            "  problem: expected privacy proved, got violated: *",
            "  counterexample (privacy*): inputs q=1, q'=0, output=0: P(output | q) = 1/4, P(output | q') = 1/2",
            "*_ dpverify::rr-overclaim/search _*",
            "  shrunk parameters: k=2, alpha=*",
        ]
    )
    assert "XFAIL dpverify::rr-unsafe/search - spec 'rr-unsafe' documents a known failure" in text
    assert "Traceback" not in text and "INTERNALERROR" not in text


def test_replay_line_reruns_the_same_search(project: pytest.Pytester) -> None:
    first = project.runpytest(*RUN, "-k", "rr-broken")
    replay = re.search(r'replay: pytest (.*) -k "(.*)"', first.stdout.str())
    assert replay is not None, first.stdout.str()
    again = project.runpytest(*replay.group(1).split(), "-k", replay.group(2), *BASE)
    again.assert_outcomes(failed=1)
    shrunk = [line for line in first.stdout.lines if line.startswith("  shrunk parameters:")]
    assert shrunk and shrunk[0] in again.stdout.lines
    assert (
        re.search(r"^dpverify: seed (\d+) \(replay", first.stdout.str(), re.M).group(1) == replay.group(1).split()[-1]
    )


def test_without_the_option_the_plugin_collects_nothing(project: pytest.Pytester) -> None:
    result = project.runpytest("--collect-only", "-q", *BASE, "--dpverify-module", "mymod")
    assert [line for line in result.stdout.lines if "::" in line] == ["test_plain.py::test_plain"]
    assert "dpverify: seed" not in result.stdout.str()


def test_collection_by_ini_option_and_entry_points(project: pytest.Pytester) -> None:
    project.makeini("[pytest]\ndpverify_modules = mymod\n")
    listed = project.runpytest("--dpverify", "--collect-only", "-q", *BASE).stdout.lines
    assert "dpverify::rr-broken/search" in listed and "dpverify::rr/binary" in listed
    project.makeini("[pytest]\n")
    # No module given: the entry points, where dpverify's own catalogue is left out unless asked for.
    own = project.runpytest("--dpverify", "--collect-only", "-q", *BASE).stdout.lines
    assert [line for line in own if line.startswith("dpverify::")] == ["dpverify::no-specs"]
    builtin = project.runpytest("--dpverify", "--dpverify-builtin", "--collect-only", "-q", *BASE).stdout.lines
    assert "dpverify::gtm/search" in builtin
    selected = project.runpytest(*RUN, "--collect-only", "-q", "-k", "rr-broken/search").stdout.lines
    assert [line for line in selected if "::" in line] == ["dpverify::rr-broken/search"]


def test_undiscoverable_specs_fail_one_item_each(project: pytest.Pytester) -> None:
    project.makepyfile(
        badname="from dpverify.specs import Case, Integer, SamplesPmf, Spec\n"
        "SPECS = (Spec('bad name', None, {}, [Case({})], SamplesPmf()),)\n"
    )
    result = project.runpytest(
        "--dpverify",
        "--dpverify-module",
        "nosuch",
        "--dpverify-module",
        "badname",
        "--dpverify-module",
        "mymod",
        "-k",
        "discovery or rr/binary",
        *BASE,
    )
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(
        [
            "dpverify: broken spec: cannot import spec module 'nosuch': ModuleNotFoundError*",
            "dpverify: broken spec: module badname: spec name must be at most 100 letters*",
        ]
    )
    assert "Traceback" not in result.stdout.str()


def test_a_fresh_seed_is_printed_when_none_is_given(project: pytest.Pytester) -> None:
    result = project.runpytest(*RUN, "-k", "rr/binary")
    result.assert_outcomes(passed=1)
    assert re.search(r"^dpverify: seed \d+ \(replay with --dpverify-seed \d+\)", result.stdout.str(), re.M)


def test_importing_the_plugin_loads_no_engine() -> None:
    # pytest imports every installed pytest11 plugin on every run, --dpverify or not.
    code = (
        "import sys, dpverify.pytest_plugin; "
        "print(sorted(m for m in ('sympy', 'z3', 'mpmath', 'hypothesis', 'dpverify.verify', 'dpverify.specs') "
        "if m in sys.modules))"
    )
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert output.strip() == "[]"


def test_the_plugin_default_search_size_is_the_search_module_default() -> None:
    # Spelled twice because the plugin may not import the engine to read it.
    from dpverify import pytest_plugin
    from dpverify.verify.gate import _search

    assert pytest_plugin.DEFAULT_EXAMPLES == _search.DEFAULT_EXAMPLES


def test_case_outcome_round_trip_through_run_case() -> None:
    # The shrunk parameters rerun on their own as the search module's docstring says.
    from dpverify.verify.gate._spec_run import run_case

    spec = _spec("rr-broken")
    result = search_spec(spec, seed=2, max_examples=5)
    again = run_case(spec, Case(result.parameters), seed=2, samples=1, statistics=False)
    assert again.problems == result.outcome.problems


def test_no_spec_found_is_a_failure_unless_allowed(project: pytest.Pytester) -> None:
    """A green run that checked nothing is the path the gate must not take silently."""
    empty = project.runpytest("--dpverify", *BASE)
    empty.assert_outcomes(passed=1, failed=1)
    empty.stdout.fnmatch_lines(
        ["dpverify: 0 spec(s), 0 item(s)", "*--dpverify found no spec (looked in: entry-points)*"]
    )
    allowed = project.runpytest("--dpverify", "--dpverify-allow-empty", *BASE)
    allowed.assert_outcomes(passed=1)
    counted = project.runpytest(*RUN, "--collect-only")
    assert "dpverify: 4 spec(s), 9 item(s)" in counted.stdout.lines, counted.stdout.str()
