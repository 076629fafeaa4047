"""The interpreter's facts (verify/engine/_bytecode.py): the table of the running CPython checked
against its own ``dis``, the engine's bytecode analyses exercised on every call form and local
instruction it compiles to, and an interpreter without a table refused with the reason."""

from __future__ import annotations

import dis
import re
import sys
import types
from fractions import Fraction
from typing import Any

import pytest

from dpverify.samplers import RandomSource
from dpverify.verify.engine import _bytecode
from dpverify.verify.engine._bytecode import TABLE, UnknownInterpreter, bytecode
from dpverify.verify.engine._enumerate import enumerate_outputs
from dpverify.verify.engine._intervals import check_intervals
from dpverify.verify.engine._procedures import _called_function
from dpverify.verify.engine._program_state import _analyse

HERE = sys.version_info[:2]
known = pytest.mark.skipif(HERE not in TABLE, reason=f"no table for {HERE}: see the refusal tests")

#: Instructions that write state outside what the analyses model, and why that is sound: a module's
#: or class body's namespace (never a sampler function's frame), or a container, which the purity
#: scan never trusts (a mutable value read from outside refuses the summary) and renewal compares
#: by content.
_OTHER_WRITES = {"STORE_NAME", "DELETE_NAME", "STORE_SUBSCR", "DELETE_SUBSCR", "STORE_SLICE"}


def _real(names: object) -> set[str]:
    return {n for n in names if dis.opmap.get(n, 256) < 256}  # type: ignore[attr-defined]  # names: iterable


@known
def test_every_instruction_the_table_names_exists_on_this_interpreter() -> None:
    table = bytecode()
    named = {
        *table.locals,
        *table.fused_locals,
        *table.terminators,
        *table.calls,
        *table.attribute_loads,
        *table.constant_loads,
        *table.cell_reads,
        *table.cell_writes,
        *table.outside_writes,
    }
    assert named <= set(dis.opmap), sorted(named - set(dis.opmap))


@known
def test_every_local_call_and_write_instruction_of_this_interpreter_is_in_the_table() -> None:
    """A new instruction in a new version must not pass unseen: each one on locals, each call and
    each store or delete is modelled, or listed above with the reason it needs no model."""
    table = bytecode()
    real = _real(n for n in dis.opmap if not n.startswith("INSTRUMENTED_"))
    assert {n for n in real if "FAST" in n} == _real({*table.locals, *table.fused_locals})
    assert {n for n in real if n.startswith("CALL") and "INTRINSIC" not in n} == set(table.calls)
    writes = {n for n in real if n.startswith(("STORE_", "DELETE_"))}
    modelled = {*table.locals, *table.fused_locals, *table.cell_writes, *table.outside_writes, *_OTHER_WRITES}
    assert writes <= modelled, sorted(writes - modelled)


def _locals_code(a: int, b: int) -> Any:  # every local instruction this interpreter compiles to
    x = a + b  # noqa: F841 - a store whose value is dead: liveness must say so
    y, z = a, b
    t = [i + 1 for i in range(a)]  # inlined from 3.12 on (LOAD_FAST_AND_CLEAR), a function before
    del a
    return y, z, t


@known
def test_the_liveness_analysis_models_every_local_instruction_it_meets() -> None:
    info = _analyse(_locals_code.__code__)
    assert info is not None
    live = dict(zip(info.offsets, info.live, strict=True))
    store_x = next(ins for ins in dis.get_instructions(_locals_code) if ins.argval == "x")
    # after x = a + b, a and b are still read (y, z = a, b) and x never again
    assert {"a", "b"} <= set(live[store_x.offset]) and "x" not in live[store_x.offset]
    returned = next(ins for ins in dis.get_instructions(_locals_code) if ins.opname == "RETURN_VALUE")
    assert live[returned.offset] == ()  # nothing is read after the return


def _callee(rng: object = None, *args: object, **kwargs: object) -> types.FrameType | None:
    return _called_function(sys._getframe())  # type: ignore[return-value]  # the function running here


class _Owner:
    def method(self, *args: object, **kwargs: object) -> object:
        return _called_function(sys._getframe())

    def __call__(self, *args: object, **kwargs: object) -> object:
        return None


_OWNER = _Owner()


class _Holder:
    inner = _Owner()


_HOLDER = _Holder()


def _calls() -> list[tuple[str, object, object]]:
    """Each call form as the compiler of this interpreter lays it out: (form, found, expected)."""
    local = _callee
    owner = _Owner()
    args, kwargs = (1, 2), {"k": 3}
    return [
        ("a global", _callee(), _callee),
        ("a local", local(), _callee),
        ("with keywords", local(1, key=2), _callee),
        ("a method", owner.method(), _Owner.method),
        ("a method with keywords", owner.method(1, key=2), _Owner.method),
        ("an attribute chain", _HOLDER.inner.method(), _Owner.method),
        ("f(*args)", local(*args), _callee),
        ("f(*args, **kwargs)", local(*args, **kwargs), _callee),
        ("a global method", _OWNER.method(0), _Owner.method),
    ]


@known
@pytest.mark.parametrize("index", range(9))
def test_each_call_form_is_resolved_to_its_callee(index: int) -> None:
    form, found, expected = _calls()[index]
    assert found is expected, form


@known
def test_integer_constants_are_found_wherever_this_interpreter_keeps_them() -> None:
    def width(k: int) -> object:  # 64 is a small int: LOAD_SMALL_INT on 3.14, not in co_consts
        return k > 64 or (lambda: k * 300)()

    assert {64, 300} <= set(bytecode().integer_constants(width.__code__))  # the nested code's too
    assert True not in bytecode().integer_constants((lambda: True).__code__)  # bools are not integers here


# --- an interpreter without a table ----------------------------------------------------------------


def _bernoulli_loop(rng: RandomSource) -> int:
    while True:  # a loop nobody marked: renewal is what makes it finite
        if rng.randbelow(3) == 0:
            return 1


@pytest.fixture
def unknown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_bytecode, "TABLE", {v: t for v, t in TABLE.items() if v != HERE})


def test_an_interpreter_without_a_table_is_refused_with_the_reason(unknown: None) -> None:
    with pytest.raises(
        UnknownInterpreter, match=r"validated on CPython 3\.11-3\.14 \(GIL builds\); this is CPython 3\."
    ):
        enumerate_outputs(_bernoulli_loop, min_mass=Fraction(1, 10**6), renewal=True)
    with pytest.raises(UnknownInterpreter, match="renewal and procedure summaries"):
        enumerate_outputs(_bernoulli_loop, min_mass=Fraction(1, 10**6), procedures=True)
    # the plain walk reads no bytecode and still runs, within its budget
    plain = enumerate_outputs(_bernoulli_loop, min_mass=Fraction(1, 10**6))
    assert plain.masses[1] > 0


def test_a_check_that_needs_bytecode_is_inconclusive_there_never_a_verdict(unknown: None) -> None:
    ideal = lambda output, dps: (Fraction(1), Fraction(1)) if output == 1 else (Fraction(0), Fraction(0))  # noqa: E731
    result = check_intervals(_bernoulli_loop, ideal, [1], min_mass=Fraction(1, 10**6), renew_states=True)
    assert result.verdict.value == "inconclusive"
    assert "renewal and procedure summaries are validated on CPython 3.11-3.14" in result.reason


@pytest.mark.parametrize(
    ("attribute", "value", "shown"),
    [("implementation", types.SimpleNamespace(name="pypy"), "this is PyPy"), ("gil", 1, "(free-threaded)")],
)
def test_other_implementations_and_free_threaded_builds_are_refused(
    monkeypatch: pytest.MonkeyPatch, attribute: str, value: object, shown: str
) -> None:
    if attribute == "gil":
        monkeypatch.setattr(_bytecode.sysconfig, "get_config_var", lambda name: value)
    else:
        monkeypatch.setattr(_bytecode.sys, "implementation", value)
    with pytest.raises(UnknownInterpreter, match=re.escape(shown)):
        bytecode("the analyses")


def test_a_known_interpreter_renews_the_loop_exactly() -> None:
    if HERE not in TABLE:
        pytest.skip(f"no table for {HERE}")
    found = enumerate_outputs(_bernoulli_loop, min_mass=Fraction(1, 10**6), renewal=True)
    assert found.masses == {1: Fraction(1)} and found.unexplored == 0  # renewal: exact, not bounded
