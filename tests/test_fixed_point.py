"""The fixed-point leak of Gazeau–Miller–Palamidessi, Example 1.1, in Z3 bit-vectors.

Oracles: brute force over every cell at small widths (plain Python integers, wrap-around by
``% 2^width``), the paper's own instance (cells 0 and 66 at d = 6, n = 2), and a second route
through Z3 (the SMT-LIB script parsed back, and evaluated as a whole script).
"""

from __future__ import annotations

import json

import pytest
import z3

from dpverify.samplers import InvalidArgument
from dpverify.verify.engine._results import Verdict
from dpverify.verify.precision._fixed_point import FIXED_POINT_CHECK, fixed_point_smtlib, prove_fixed_point_leak


def _run_script(text: str) -> str:
    """The whole script, commands included, as a second solver runs it (fresh context, so
    declarations of an earlier script do not clash)."""
    context = z3.Context()  # held in a name: freed while in use, it would crash the process
    return z3.Z3_eval_smtlib2_string(context.ref(), text).strip()


def _release(r: int, z: int, shift: int, width: int) -> int:
    return (r + (z << shift)) % (1 << width)


@pytest.mark.parametrize(("width", "n"), [(32, 2), (8, 1), (16, 15), (64, 5), (256, 8)])
def test_the_leak_is_proved_for_the_papers_scaling(width: int, n: int) -> None:
    result = prove_fixed_point_leak(width, n)
    assert result.check == FIXED_POINT_CHECK
    assert result.verdict is Verdict.PROVED, result.summary
    obligations = result.evidence["obligations"]
    assert [o["name"] for o in obligations] == ["low_bits_preserved", "disjoint_outputs"]
    assert all(o["negation"] == "unsat" and o["model"] is None for o in obligations)
    assert result.evidence["counterexample"] is None
    assert (result.evidence["width"], result.evidence["n"], result.evidence["noise_shift"]) == (width, n, n)
    json.dumps(result.to_json())


def test_default_is_32_bits_and_two_low_bits() -> None:
    result = prove_fixed_point_leak()
    assert result.verdict is Verdict.PROVED
    assert (result.evidence["width"], result.evidence["n"]) == (32, 2)


@pytest.mark.parametrize(("width", "n", "shift"), [(32, 2, 0), (32, 2, 1), (8, 3, 2), (64, 7, 0)])
def test_unscaled_noise_is_violated_with_checked_models(width: int, n: int, shift: int) -> None:
    result = prove_fixed_point_leak(width, n, noise_shift=shift)
    assert result.verdict is Verdict.VIOLATED, result.summary
    mask = (1 << n) - 1
    low, disjoint = result.evidence["obligations"]
    assert low["negation"] == "sat" and disjoint["negation"] == "sat"
    # the models, rechecked with Python integers
    m = low["model"]
    assert _release(m["r"], m["z"], shift, width) == m["release"]
    assert m["release"] & mask != m["r"] & mask
    m = disjoint["model"]
    assert m["r1"] & mask != m["r2"] & mask
    assert _release(m["r1"], m["z1"], shift, width) == _release(m["r2"], m["z2"], shift, width) == m["release"]
    assert result.evidence["counterexample"]["obligation"] == "low_bits_preserved"
    json.dumps(result.to_json())


def test_a_larger_shift_still_keeps_the_low_bits() -> None:
    assert prove_fixed_point_leak(16, 3, noise_shift=5).verdict is Verdict.PROVED


@pytest.mark.parametrize(("width", "n"), [(5, 2), (6, 1), (6, 3)])
def test_brute_force_agrees_with_every_shift(width: int, n: int) -> None:
    cells, mask = range(1 << width), (1 << n) - 1
    for shift in range(width):
        holds = all(_release(r, z, shift, width) & mask == r & mask for r in cells for z in cells)
        outputs = [{_release(r, z, shift, width) for z in cells} for r in range(1 << n)]
        disjoint = all(not (outputs[h] & outputs[g]) for h in range(1 << n) for g in range(h))
        assert holds == disjoint == (shift >= n)
        verdict = prove_fixed_point_leak(width, n, noise_shift=shift).verdict
        assert verdict is (Verdict.PROVED if shift >= n else Verdict.VIOLATED), (width, n, shift)


@pytest.mark.parametrize("r2_cell", [66, 14])
def test_the_papers_instance_has_disjoint_outputs(r2_cell: int) -> None:
    """d = 6, b = 2^2: r1 = 0 is cell 0; r2 = 1 + 2^-5 is cell 66 (last bits 10); Figure 1's
    r2 = 3 * 2^-4 + 2^-5 is cell 14 = 2^2 * 3 + 2."""
    d, n, width = 6, 2, 32
    assert r2_cell in (round((1 + 2**-5) * 2**d), round((3 * 2**-4 + 2**-5) * 2**d))
    z1, z2 = z3.BitVecs("z1 z2", width)
    shift = z3.BitVecVal(n, width)  # b = 2^n multiplies the noise cell by 2^n
    solver = z3.Solver()
    solver.add(z3.BitVecVal(0, width) + (z1 << shift) == z3.BitVecVal(r2_cell, width) + (z2 << shift))
    assert solver.check() == z3.unsat


def test_smtlib_parses_back_and_is_unsat() -> None:
    text = fixed_point_smtlib(32, 2)
    assert text.startswith("; dpverify: the fixed-point leak")
    assert "Example 1.1" in text and "(set-logic QF_BV)" in text and "(check-sat)" in text
    assert "(declare-const r (_ BitVec 32))" in text
    solver = z3.Solver()
    solver.add(z3.parse_smt2_string(text))
    assert solver.check() == z3.unsat
    assert _run_script(text) == "unsat"


def test_smtlib_of_the_unscaled_variant_is_sat() -> None:
    text = fixed_point_smtlib(16, 3, noise_shift=0)
    solver = z3.Solver()
    solver.add(z3.parse_smt2_string(text))
    assert solver.check() == z3.sat
    assert _run_script(text) == "sat"


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"width": 1}, "width"),
        ({"width": True}, "width"),
        ({"width": 5000}, "width"),
        ({"n": 0}, "n"),
        ({"width": 8, "n": 8}, "n"),
        ({"n": 2.0}, "n"),
        ({"noise_shift": -1}, "noise_shift"),
        ({"width": 8, "noise_shift": 8}, "noise_shift"),
        ({"timeout_ms": 0}, "timeout_ms"),
    ],
)
def test_bad_arguments_get_a_one_line_error(kwargs: dict[str, object], name: str) -> None:
    with pytest.raises(InvalidArgument) as info:
        prove_fixed_point_leak(**kwargs)  # type: ignore[arg-type]
    message = str(info.value)
    assert message.startswith(f"{name} must be") and "\n" not in message and "got" in message
    if name != "timeout_ms":
        with pytest.raises(InvalidArgument):
            fixed_point_smtlib(**{k: v for k, v in kwargs.items() if k != "timeout_ms"})  # type: ignore[arg-type]
