"""The state of a running sampler at a draw, as a value: equal values, equal futures.

Published rejection loops are written ``while True: ... if accepted: return z``, with no attempt
function the engine could summarise.  :mod:`dpverify.verify.engine._enumerate` (``renewal=True``)
instead notices that an execution came back, on the same path, to a program state it was in
before, and applies the renewal identity there.  This module says what "the same state" is,
conservatively: :func:`program_state` returns a hashable value such that two moments of one
execution with equal values have the same future as functions of the draws still to come, or
None where it cannot be sure.

What the value holds.  The chain of Python frames from the frame that asked for the draw up to
the engine's :func:`~dpverify.verify.engine._enumerate._enumerate` (frames of the engine's own drivers
in between are suspended at one call for the whole execution, so they are constant and left
out).  For each frame: its code object, the instruction it is suspended at, and the values of the
local variables that are *live* there (read on some path of the rest of the code before being
written; a backward data-flow analysis of the bytecode, exception handlers included; cell and
free variables always count).  Dead variables are left out, which is what lets the head of a
``while True`` loop match across iterations.  Values are compared by content: ``None``, bools,
ints, strings, bytes, floats (bit-exact), Fractions, tuples, lists, dicts and sets of these (with
their aliasing), instances of classes written in Python without slots by their class and
``__dict__``, numpy scalars by their bytes, functions, classes and modules by identity, the engine's source and a
:class:`~dpverify.verify.engine._random_compat.RandomCompat` by its parameters (its ``gauss_next`` cache
included), a :class:`~dpverify.verify.engine._lazy_uniform.LazyUniform` by its interval (an unanswered
uniform draw on ``[low, high)`` has one law whichever object it is), in order of first
appearance so that sharing is part of the value.  Any other object makes the state unknown.

When a frame's state is the whole truth.  A frame's future also depends on its value stack and
on the C code between it and the frame it called, which Python cannot see.  So a frame counts
only if it is suspended at a ``CALL`` (or ``f(*args, **kwargs)``, whose tuple and dict are dropped
when the call returns) whose stack holds nothing but the call's own callable and arguments (a
stack-depth analysis of the bytecode), and the callable, resolved statically from
the bytecode that loaded it (a global, a local, or an attribute chain on a local read with
``inspect.getattr_static``, which runs no code), is the Python function whose frame comes next
(or a class whose ``__new__``/``__init__``, or whose metaclass's ``__call__``, it is).  Then the
arguments live on as the callee's locals and no C frame holds state in between.  Anything else
(a comparison calling ``__lt__``, a ``for`` loop's iterator on the stack, a ``with`` block, a
call through ``map`` or ``sorted``) gives None, which only means "no renewal here".

What it assumes.  The sampler keeps no mutable state outside its frames that its future reads:
globals, attributes of objects reached by identity (functions, classes, modules) and closures'
objects are taken not to change during one execution.  ``random``'s and ``secrets``' own hidden
generators are redirected to the engine's source while patched, so they hold no state.
"""

from __future__ import annotations

import bisect
import builtins
import dis
import functools
import inspect
import types
from collections.abc import Hashable
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from dpverify.verify.engine._bytecode import UnknownInterpreter, bytecode
from dpverify.verify.engine._lazy_uniform import LazyUniform, _Draw
from dpverify.verify.engine._random_compat import RandomCompat

__all__ = ["EnumeratingSource", "driver_files", "program_state", "suspended_driver"]

_JUMPS = frozenset(dis.hasjrel) | frozenset(dis.hasjabs)


@dataclass(frozen=True, slots=True)
class _CodeInfo:
    offsets: tuple[int, ...]
    instructions: tuple[dis.Instruction, ...]
    depth: tuple[int | None, ...]  # stack depth before each instruction
    live: tuple[tuple[str, ...], ...]  # locals live after each instruction
    cells: tuple[str, ...]


_INFO: dict[types.CodeType, _CodeInfo | None] = {}


def _analyse(code: types.CodeType) -> _CodeInfo | None:
    """Stack depths and live variables of ``code``, or None where its bytecode is not understood
    (an instruction on locals the interpreter's table does not model, or an unknown interpreter)."""
    try:
        table = bytecode("renewal's program states")
    except UnknownInterpreter:
        return None
    instructions = tuple(dis.get_instructions(code))
    if not instructions:
        return None
    effects = [table.local_effects(ins) for ins in instructions]
    if any(e is None for e in effects):
        return None
    offsets = tuple(ins.offset for ins in instructions)
    index = {offset: i for i, offset in enumerate(offsets)}
    handlers: list[tuple[int, int, int, int]] = []
    for entry in dis._parse_exception_table(code):  # type: ignore[attr-defined]  # private, not in typeshed
        handlers.append((entry.start, entry.end, index[entry.target], entry.depth + entry.lasti + 1))
    successors: list[list[tuple[int, int]]] = []  # (index, stack effect on that edge)
    for i, ins in enumerate(instructions):
        edges = []
        arg = ins.arg if ins.opcode >= dis.HAVE_ARGUMENT else None
        if ins.opname not in table.terminators and i + 1 < len(instructions):
            edges.append((i + 1, dis.stack_effect(ins.opcode, arg, jump=False)))
        if ins.opcode in _JUMPS:
            edges.append((index[ins.argval], dis.stack_effect(ins.opcode, arg, jump=True)))
        elif ins.opname in table.terminators and ins.opname.startswith("JUMP"):
            return None
        successors.append(edges)
    depth: list[int | None] = [None] * len(instructions)
    depth[0] = 0
    work = [0]
    for _, _, target, entry_depth in handlers:
        depth[target] = entry_depth
        work.append(target)
    while work:
        i = work.pop()
        for j, effect in successors[i]:
            after = depth[i] + effect  # type: ignore[operator]  # depth[i] is set before i is queued
            if depth[j] is None:
                depth[j] = after
                work.append(j)
            elif depth[j] != after:
                return None
    # Liveness: live_out[i] = union of live_in over successors, exception handlers included.
    handler_of = [[t for start, end, t, _ in handlers if start <= ins.offset < end] for ins in instructions]
    live_in: list[frozenset[str]] = [frozenset()] * len(instructions)
    live_out: list[frozenset[str]] = [frozenset()] * len(instructions)
    changed = True
    while changed:
        changed = False
        for i in range(len(instructions) - 1, -1, -1):
            out = frozenset().union(*(live_in[j] for j, _ in successors[i]), *(live_in[t] for t in handler_of[i]))
            inside = out
            for name, kind in reversed(effects[i] or ()):  # the last effect first, going backwards
                inside = inside - {name} if kind == "write" else inside | {name}
            if out != live_out[i] or inside != live_in[i]:
                live_out[i], live_in[i], changed = out, inside, True
    return _CodeInfo(
        offsets,
        instructions,
        tuple(depth),
        tuple(tuple(sorted(s)) for s in live_out),
        tuple(code.co_cellvars + code.co_freevars),
    )


def _info(code: types.CodeType) -> _CodeInfo | None:
    try:
        return _INFO[code]
    except KeyError:
        try:
            found = _analyse(code)
        except (KeyError, ValueError, TypeError):
            found = None
        _INFO[code] = found
        return found


def _callee_codes(obj: object) -> tuple[types.CodeType, ...]:
    """The code objects a call of ``obj`` runs first, with its arguments as their locals."""
    if isinstance(obj, (staticmethod, classmethod)):
        obj = obj.__func__
    if isinstance(obj, types.MethodType):
        obj = obj.__func__
    if isinstance(obj, types.FunctionType):
        return (obj.__code__,)
    if isinstance(obj, type):
        codes: list[types.CodeType] = []
        for name in ("__new__", "__init__"):
            found = inspect.getattr_static(obj, name, None)
            codes += _callee_codes(found)
        call = inspect.getattr_static(type(obj), "__call__", None)
        codes += _callee_codes(call)
        return tuple(codes)
    return ()


_MISSING = object()


def _resolve(frame: types.FrameType, info: _CodeInfo, i: int) -> object:
    """The callable of the call at instruction ``i``, read from the bytecode that loaded it."""
    table = bytecode("procedure summaries' call sites")
    ins = info.instructions
    base = _call_base(info, i)
    j = i - 1
    while j >= 0 and info.depth[j] != base:
        if ins[j + 1].is_jump_target:
            return _MISSING
        j -= 1
    if j < 0 or ins[j + 1].is_jump_target:
        return _MISSING
    first = ins[j]
    # LOAD_GLOBAL always has an argument: its low bit says whether it also pushes NULL
    if first.opname == "LOAD_GLOBAL" and first.arg is not None and first.arg & 1:
        obj, k = _global(frame, first.argval), j + 1
    else:
        if first.opname == "PUSH_NULL" and not table.null_after_callable:
            j += 1
            first = ins[j]
        if first.opname == "LOAD_GLOBAL" and first.arg is not None and not first.arg & 1:
            obj = _global(frame, first.argval)
        elif table.loads_local(first):
            obj = frame.f_locals.get(first.argval, _MISSING)
        else:
            return _MISSING
        k = j + 1
    while obj is not _MISSING and k < i and ins[k].opname in table.attribute_loads:
        owner = obj
        obj = inspect.getattr_static(owner, ins[k].argval, _MISSING)
        k += 1
    if table.null_after_callable and k < i and ins[k].opname == "PUSH_NULL":
        k += 1
    # Every instruction from the callable's load to the CALL must be argument loading: the
    # callable's own chain must end where the arguments begin (checked by the stack depths).
    if obj is _MISSING or info.depth[k] != base + 2:
        return _MISSING
    return obj


def _call_base(info: _CodeInfo, i: int) -> int:
    """The stack depth before the call at ``i`` started loading its callable."""
    # i is a call the frame is running, so its depth is known
    return bytecode().call_base(info.instructions, i, info.depth[i])  # type: ignore[arg-type]  # set, see above


def _global(frame: types.FrameType, name: str) -> object:
    found = frame.f_globals.get(name, _MISSING)
    if found is _MISSING:
        found = getattr(builtins, name, _MISSING)
    return found


def _filled(cell: types.CellType) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - an empty cell raises
    except ValueError:
        return False
    return True


@functools.lru_cache(maxsize=1024)
def _plain(kind: type) -> bool:
    """Whether instances of ``kind`` keep all their state in ``__dict__``: laid out like a class
    statement's with no base but ``object`` (no C fields: a ``random.Random`` or an exception has
    some), and no slots anywhere in its MRO."""
    if kind.__basicsize__ != _PLAIN_SIZE or "__dict__" not in dir(kind):
        return False
    return not any(cls.__dict__.get("__slots__") for cls in kind.__mro__)


_PLAIN_SIZE = type("_Plain", (), {}).__basicsize__


class _Unknown(Exception):
    """A value the state cannot be compared by."""


def _value(value: Any, seen: dict[int, int], parts: list[object]) -> object:
    # plain ``type``: mypy will not take ``type[Any]`` as Hashable for _plain's cache
    kind: type = type(value)
    if value is None or kind in (bool, int, str, bytes, complex, Decimal, range, type(Ellipsis)):
        return (kind.__name__, value)
    if kind is float:
        return ("float", value.hex())
    if kind is Fraction:
        return ("Fraction", value.numerator, value.denominator)
    if kind.__module__ == "numpy" and getattr(value, "ndim", None) == 0 and hasattr(value, "tobytes"):
        return ("numpy", str(value.dtype), value.tobytes())  # a numpy scalar: immutable, compared by its bytes
    if kind is tuple:
        return ("tuple", tuple(_value(v, seen, parts) for v in value))
    if kind is frozenset:
        return ("frozenset", frozenset(_value(v, seen, parts) for v in value))
    if kind is types.BuiltinFunctionType and not isinstance(value.__self__, (types.ModuleType, type(None))):
        return ("bound", value.__name__, _value(value.__self__, seen, parts))  # say a list's append
    if isinstance(value, (types.BuiltinFunctionType, type, types.ModuleType, types.CodeType)):
        return ("id", id(value))
    if kind is types.MethodType:
        return ("method", _value(value.__func__, seen, parts), _value(value.__self__, seen, parts))
    # Objects with identity: numbered by first appearance, their content recorded once.
    key = id(value)
    if key in seen:
        return ("ref", seen[key])
    seen[key] = len(seen)
    if kind is types.FunctionType:  # made anew in a loop, its id may be reused: compare what it runs on
        cells = tuple(
            _value(c.cell_contents, seen, parts) if _filled(c) else ("empty",) for c in value.__closure__ or ()
        )
        content: object = (
            "function",
            id(value.__code__),
            id(value.__globals__),
            _value(value.__defaults__, seen, parts),
            _value(tuple(sorted((value.__kwdefaults__ or {}).items())), seen, parts),
            cells,
        )
    elif isinstance(value, EnumeratingSource):
        content = "source"
    elif kind is RandomCompat:
        content = (
            "RandomCompat",
            value.float_bits,
            _value(value.gauss_next, seen, parts),
            _value(value.source, seen, parts),
        )
    elif kind is _Draw:
        content = ("draw", value.low, value.high, value.value, _value(value.source, seen, parts))
    elif kind is LazyUniform:
        content = ("lazy", _value(value._draw, seen, parts), value._offset)
    elif kind is list:
        content = ("list", tuple(_value(v, seen, parts) for v in value))
    elif kind is dict:
        content = ("dict", tuple((_value(k, seen, parts), _value(v, seen, parts)) for k, v in value.items()))
    elif kind is set:
        content = ("set", frozenset(_value(v, seen, parts) for v in value))
    elif _plain(kind):
        content = ("instance", id(kind), tuple((k, _value(v, seen, parts)) for k, v in sorted(vars(value).items())))
    else:
        raise _Unknown
    parts.append((seen[key], content))
    return ("ref", seen[key])


class EnumeratingSource:
    """Marks the engine's enumerating source: in a state it is "the source", one and the same
    for the whole enumeration, not an object whose content is compared."""

    __slots__ = ()


def suspended_driver(path: str) -> None:
    """Declare the module at ``path`` an engine driver: its frames between a sampler and the
    enumeration are suspended at one call for a whole execution, so they are left out of the
    state.  Each driver declares itself when it is imported (a module never imported has no
    frame on the stack), so that this module imports none of the layers above it."""
    _DRIVER_FILES.add(path)


_DRIVER_FILES: set[str] = set()


def driver_files() -> frozenset[str]:
    """The files of the engine drivers declared so far (:func:`suspended_driver`)."""
    return frozenset(_DRIVER_FILES)


def program_state(
    frame: types.FrameType | None, callee: types.FrameType, draw: Hashable, *, stop: types.CodeType
) -> Hashable | None:
    """The state of the execution whose frame ``callee`` (the engine's draw method, called by
    ``frame``) is asking for ``draw``; None where it is not known to determine the future.
    ``stop`` is the code of the enumeration that runs the executions: the chain ends there."""
    engine_files = _DRIVER_FILES
    seen: dict[int, int] = {}
    parts: list[object] = [draw]
    frames: list[object] = []
    try:
        while frame is not None:
            code = frame.f_code
            if code is stop:
                return (tuple(frames), tuple(parts))
            if code.co_filename in engine_files:
                callee, frame = frame, frame.f_back  # suspended for the whole execution: constant
                continue
            info = _info(code)
            if info is None:
                return None
            i = bisect.bisect_right(info.offsets, frame.f_lasti) - 1
            ins = info.instructions[i]
            if not bytecode().is_call(ins) or _call_base(info, i) != 0:
                return None  # something besides this call's operands is on the stack
            if not any(c is callee.f_code for c in _callee_codes(_resolve(frame, info, i))):
                return None
            local = frame.f_locals
            values = tuple(
                _value(local[name], seen, parts) if name in local else ("unbound",)
                for name in (*info.live[i], *info.cells)
            )
            frames.append((id(code), ins.offset, values))
            callee, frame = frame, frame.f_back
    except (_Unknown, RecursionError):
        return None
    except Exception:  # noqa: BLE001 - an object that cannot even be read is one the state does not know
        return None
    return None
