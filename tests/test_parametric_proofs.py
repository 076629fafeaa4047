"""The parametric proofs of ``proofs/``: each proves, a wrong variant of each is refuted with a
model that the real code confirms, the registry lists them all, and every obligation goes
through SMT-LIB to cvc5, which agrees.

A refutation of an obligation with uninterpreted powers is only a candidate (``pw`` is free
where no instance pins it), so every model below is replayed with exact Fractions, and the
wrong variants are also checked against the samplers and specs directly.
"""

from __future__ import annotations

import dataclasses
import importlib
import math
import pkgutil
import re
from collections.abc import Callable, Sequence
from fractions import Fraction

import pytest
import z3

from dpverify import proofs
from dpverify.proofs import discrete_laplace_ratio, gtm_ideal_ratio, registry, theorem_6_1, theorem_6_2, theorem_7_1
from dpverify.proofs._theorem import Theorem, discharge, smtlib
from dpverify.samplers.gtm import gtpmf
from dpverify.specs.gtm import GtmSpec
from dpverify.verify.engine._results import CheckResult, Verdict

MODULES = registry.MODULES


def _variant(theorem: Theorem, obligation: Callable[[], Sequence[z3.BoolRef]]) -> CheckResult:
    return discharge(dataclasses.replace(theorem, obligation=obligation))


def _refuted(result: CheckResult) -> dict[str, str]:
    assert result.verdict is Verdict.VIOLATED, result.summary
    model = result.evidence["model"]
    assert model, "a refutation carries its model"
    return model


def _q(model: dict[str, str], name: str) -> Fraction:
    return Fraction(model[name])


def _theorems_of(module: object) -> tuple[Theorem, ...]:
    return tuple(getattr(module, "THEOREMS", (module.THEOREM,)))  # type: ignore[attr-defined]


# --- every theorem proves --------------------------------------------------------------------


@pytest.fixture(scope="module")
def all_results() -> tuple[CheckResult, ...]:
    return registry.prove_all()


def test_prove_all_proves_every_obligation(all_results: tuple[CheckResult, ...]) -> None:
    assert len(all_results) == len(registry.THEOREMS)
    for theorem, result in zip(registry.THEOREMS, all_results, strict=True):
        assert result.verdict is Verdict.PROVED, f"{theorem.name}: {result.summary}"
        assert result.evidence["theorem"] == theorem.name


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_module_prove_discharges_the_theorem_and_what_it_rests_on(module: object) -> None:
    result = module.prove()  # type: ignore[attr-defined]
    assert result.verdict is Verdict.PROVED, result.summary
    assert result.evidence["theorem"] in {t.name for t in _theorems_of(module)}


# --- wrong variants are refuted, and the model is a real counterexample ----------------------


def test_gtm_ratio_strict_bound_is_refuted_at_an_attained_ratio() -> None:
    for side in ("lower", "upper"):
        model = _refuted(
            _variant(
                gtm_ideal_ratio.THEOREM, lambda side=side: gtm_ideal_ratio.negated_ratio_bound(strict=True, side=side)
            )
        )
        alpha, n, q, q2, x = (_q(model, k) for k in ("alpha", "n", "q", "q_prime", "x"))
        ratio = gtpmf(alpha, int(n), int(q), int(x)) / gtpmf(alpha, int(n), int(q2), int(x))
        assert abs(q - q2) <= 1
        assert ratio in (alpha, 1 / alpha)  # the bound is attained, so the strict claim is false


def test_gtm_ratio_for_neighbours_two_apart_is_refuted() -> None:
    model = _refuted(_variant(gtm_ideal_ratio.THEOREM, lambda: gtm_ideal_ratio.negated_ratio_bound(reach=2)))
    alpha, n, q, q2, x = (_q(model, k) for k in ("alpha", "n", "q", "q_prime", "x"))
    ratio = gtpmf(alpha, int(n), int(q), int(x)) / gtpmf(alpha, int(n), int(q2), int(x))
    assert not alpha <= ratio <= 1 / alpha


def test_theorem_6_1_with_half_the_gap_is_refuted() -> None:
    model = _refuted(_variant(theorem_6_1.THEOREM, lambda: theorem_6_1.negated_theorem(bound=Fraction(1, 2))))
    T, c, c2 = int(model["T"]), _q(model, "c"), _q(model, "c_prime")
    assert T >= 1 and 0 <= c2 <= c <= 1
    mech = Fraction(math.floor(T * c) - math.floor(T * c2), T)
    assert abs(mech - (c - c2)) >= Fraction(1, 2 * T)


def test_theorem_6_2_tighter_bound_is_refuted_and_fails_on_a_real_gtm() -> None:
    model = _refuted(_variant(theorem_6_2.THEOREM, lambda: theorem_6_2.negated_theorem(slack=Fraction(1, 2))))
    alpha, eps, p, p2, m, m2 = (_q(model, k) for k in ("alpha", "eps", "p", "p_prime", "m", "m_prime"))
    D = (1 - alpha) / (1 + alpha) * _q(model, "alpha_to_n")
    D_prime = D / alpha
    hypotheses = (
        abs(m - p) < eps,
        abs(m2 - p2) < eps,
        p >= D,
        p2 >= D,
        D >= eps,
        alpha * p2 <= p,
        alpha * p <= p2,
        0 < eps <= 1,
    )
    assert all(hypotheses)
    gap = eps / 2
    assert not (m * (D_prime + gap) >= (D - gap) * m2 and m2 * (D_prime + gap) >= (D - gap) * m)
    # and the tighter bound is false for the real implementation, e.g. alpha = 1/4, n = 1, T = 9
    spec = GtmSpec.create("1/4", 1, 9)
    assert _tightest_ratio(spec) < _alpha_prime(spec, slack=Fraction(1, 2))


def test_theorem_6_2_without_the_ideal_ratio_hypothesis_is_refuted() -> None:
    _refuted(_variant(theorem_6_2.THEOREM, lambda: theorem_6_2.negated_theorem(with_ideal_ratio=False)))


def test_theorem_7_1_with_T_missing_the_factor_D_plus_1_is_refuted() -> None:
    variant = dataclasses.replace(
        theorem_7_1.SCALED_PIECE, obligation=lambda: theorem_7_1.negated_scaled_piece(size=lambda D, dn: dn)
    )
    _refuted(discharge(variant))
    # the whole proof of the variant stops at that lemma, naming it
    chained = gtm_ideal_ratio.discharge_with_lemmas(theorem_7_1.THEOREM, (variant,))
    assert chained.verdict is Verdict.VIOLATED and chained.evidence["failed_lemma"] == "gtm_scaled_piece"
    # and T = D**n really does not reproduce the ideal PMF
    for D, n in ((2, 2), (3, 1), (3, 3)):
        spec = GtmSpec.create(f"1/{D}", n, D**n)
        assert any(spec.pmf(q).as_dict() != spec.ideal_pmf(q).as_dict() for q in spec.inputs())


def test_discrete_laplace_bound_with_delta_minus_one_is_refuted() -> None:
    model = _refuted(
        _variant(discrete_laplace_ratio.THEOREM, lambda: discrete_laplace_ratio.negated_theorem(exponent_offset=1))
    )
    z, z2, delta, r = int(model["z"]), int(model["z_prime"]), int(model["Delta"]), _q(model, "r")
    assert abs(z - z2) <= delta and 0 < r < 1
    # P(z)/P(z') = r**(|z| - |z'|) exactly (the normaliser cancels): outside [r**(D-1), r**-(D-1)]
    ratio = r ** (abs(z) - abs(z2))
    assert not r ** (delta - 1) <= ratio <= r ** -(delta - 1)


# --- the proved statements agree with the real code on instances ---------------------------


def _tightest_ratio(spec: GtmSpec) -> Fraction:
    """``min P_T(x|q)/P_T(x|q')`` over ordered neighbours and outputs with ``P_T(x|q') > 0``."""
    table = {q: spec.pmf(q).as_dict() for q in spec.inputs()}
    ordered = [pair for q, q2 in spec.neighbours() for pair in ((q, q2), (q2, q))]
    return min(table[a][x] / table[b][x] for a, b in ordered for x in spec.outputs() if table[b][x] > 0)


def _alpha_prime(spec: GtmSpec, slack: Fraction = Fraction(1)) -> Fraction:
    base = (1 - spec.alpha) / (1 + spec.alpha)
    D, D_prime, gap = base * spec.alpha**spec.n, base * spec.alpha ** (spec.n - 1), slack / spec.T
    return (D - gap) / (D_prime + gap)


@pytest.mark.parametrize(("alpha", "n", "T"), [("1/2", 3, 40), ("1/3", 2, 25), ("3/4", 2, 16), ("2/5", 4, 300)])
def test_theorem_6_2_bound_holds_on_instances(alpha: str, n: int, T: int) -> None:
    spec = GtmSpec.create(alpha, n, T)
    assert T >= spec.support_bound()
    assert _alpha_prime(spec) == spec.theorem_6_2_alpha_prime()
    assert _tightest_ratio(spec) >= spec.theorem_6_2_alpha_prime()


@pytest.mark.parametrize(("D", "n"), [(2, 1), (2, 4), (3, 3), (5, 2)])
def test_theorem_7_1_instances_are_exact(D: int, n: int) -> None:
    spec = GtmSpec.create(f"1/{D}", n, (D + 1) * D**n)
    assert spec.is_theorem_7_1_instance()
    assert all(spec.pmf(q).as_dict() == spec.ideal_pmf(q).as_dict() for q in spec.inputs())


# --- registry, metadata ------------------------------------------------------------------------


def test_registry_lists_every_proof_module_and_obligation() -> None:
    on_disk = {
        info.name
        for info in pkgutil.iter_modules(proofs.__path__)
        if not info.name.startswith("_") and info.name != "registry"
    }
    assert {module.__name__.rsplit(".", 1)[1] for module in MODULES} == on_disk
    names = [theorem.name for theorem in registry.THEOREMS]
    assert len(names) == len(set(names)), "obligation names are unique (they name certificates)"
    for module in MODULES:
        for theorem in (*module.LEMMAS, *_theorems_of(module)):
            assert theorem in registry.THEOREMS


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_every_obligation_comes_after_what_it_rests_on(module: object) -> None:
    position = {theorem.name: i for i, theorem in enumerate(registry.THEOREMS)}
    first = min(position[t.name] for t in _theorems_of(module))
    for required in module.REQUIRES:  # type: ignore[attr-defined]
        assert required.name in position
        assert required in _theorems_of(module) or position[required.name] < first


def test_theorem_metadata() -> None:
    for theorem in registry.THEOREMS:
        assert re.fullmatch(r"[a-z0-9_]+", theorem.name)
        assert theorem.statement and theorem.source
        assert theorem.logic.startswith("QF_")


def test_covers_are_importable_function_paths() -> None:
    for theorem in registry.THEOREMS:
        for name in theorem.covers:
            parts = name.split(".")
            module = importlib.import_module(".".join(parts[:3]))
            target: object = module
            for part in parts[3:]:
                target = getattr(target, part)
            assert callable(target), name


def test_main_theorems_cite_the_paper_and_theorem_number() -> None:
    assert theorem_6_1.THEOREM.source.endswith("Theorem 6.1")
    assert theorem_6_2.THEOREM.source.endswith("Theorem 6.2")
    assert theorem_7_1.THEOREM.source.endswith("Theorem 7.1")
    for theorem in (*gtm_ideal_ratio.THEOREMS, theorem_6_1.THEOREM, theorem_6_2.THEOREM, theorem_7_1.THEOREM):
        assert theorem.source.startswith("Amorim, Gaboardi, Rindisbacher")
    assert "Canonne, Kamath, Steinke" in discrete_laplace_ratio.THEOREM.source


def test_bounded_is_set_exactly_for_bounded_proofs(all_results: tuple[CheckResult, ...]) -> None:
    # Every proof here is symbolic (Theorem 7.1 included): none is bounded, and none says so.
    for theorem, result in zip(registry.THEOREMS, all_results, strict=True):
        assert theorem.bounded is None
        assert result.evidence["bounded"] is None and "bounded" not in result.summary
    bounded = dataclasses.replace(theorem_6_1.THEOREM, bounded="T <= 10")
    result = discharge(bounded)
    assert result.evidence["bounded"] == "T <= 10" and "(bounded: T <= 10)" in result.summary


# --- SMT-LIB round trip: Z3 from the text, and cvc5 ------------------------------------------


def _with_logic(text: str, logic: str) -> str:
    lines = text.splitlines(keepends=True)
    first = next(i for i, line in enumerate(lines) if line.startswith("("))
    return "".join([*lines[:first], f"(set-logic {logic})\n", *lines[first:]])


@pytest.mark.parametrize("theorem", registry.THEOREMS, ids=lambda t: t.name)
def test_smtlib_round_trip_z3_and_cvc5_agree(theorem: Theorem) -> None:
    text = _with_logic(smtlib(theorem), theorem.logic)
    assert "(check-sat)" in text
    solver = z3.Solver(ctx=z3.Context())
    solver.set("timeout", 20_000)
    solver.from_string(text)
    assert solver.check() == z3.unsat

    cvc5 = pytest.importorskip("cvc5")
    checker = cvc5.Solver(cvc5.TermManager())
    checker.setOption("tlimit-per", "20000")
    parser = cvc5.InputParser(checker)
    parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, text, theorem.name)
    symbols = parser.getSymbolManager()
    answers = []
    while True:
        command = parser.nextCommand()
        if command.isNull():
            break
        output = str(command.invoke(checker, symbols)).strip()
        assert not output.startswith("(error"), output
        if output:
            answers.append(output)
    assert answers == ["unsat"], f"cvc5 under (set-logic {theorem.logic}): {answers}"
