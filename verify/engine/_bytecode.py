"""What the engine assumes about the interpreter's bytecode and frames, in one table per CPython
minor version.

Four analyses read bytecode: renewal's program states and live variables
(:mod:`~dpverify.verify.engine._program_state`), the call sites of procedure summaries
(:mod:`~dpverify.verify.engine._procedures`), the purity scan that lets a call be summarised
(:mod:`~dpverify.verify.engine._purity`), and the source check's scan for width constants
(:mod:`~dpverify.verify.gate._source_check`).  Instruction names and stack layouts change in every
minor version: 3.12 dropped ``PRECALL`` and ``LOAD_METHOD`` and inlined comprehensions
(``LOAD_FAST_AND_CLEAR``); 3.13 fused local loads and stores (``LOAD_FAST_LOAD_FAST``,
``STORE_FAST_LOAD_FAST``, ``STORE_FAST_STORE_FAST``), moved ``NULL`` after the callable and called
with keywords through ``CALL_KW``; 3.14 borrows locals (``LOAD_FAST_BORROW``, and its fused pair),
loads small ints with ``LOAD_SMALL_INT`` (so they are no longer in ``co_consts``) and always passes
``CALL_FUNCTION_EX`` a keyword slot.
An analysis that misread one of these would not fail: it would silently stop renewing or
summarising, or, worse, miss a write.  So the analyses ask this module, never match opcode names
themselves, and this module answers only for the versions in :data:`TABLE`, each checked against
that interpreter's own ``dis`` by ``tests/test_bytecode.py`` on every version CI runs.

On any other interpreter (a newer or older minor version, PyPy, a free-threaded build)
:func:`bytecode` raises :class:`UnknownInterpreter`, and every analysis that reads bytecode is
refused with that reason instead of being run as if it applied: a check that needs one is
``inconclusive`` (:func:`~dpverify.verify.engine._intervals.check_intervals`), never a different
verdict.  Plain enumeration reads no bytecode and runs everywhere.

What is assumed about frames and tracing, on every version in the table: ``frame.f_lasti`` is the
byte offset of the instruction the frame is executing (a call, while its callee runs), which
``dis.Instruction.offset`` numbers alike; ``frame.f_locals`` reads a frame's locals by name;
``sys.settrace`` and ``sys.setprofile`` deliver ``call``, ``line``, ``return`` and ``c_call`` events as
documented.
"""

from __future__ import annotations

import dis
import sys
import sysconfig
import types
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from dpverify.samplers import DpverifyError

__all__ = ["SUPPORTED", "TABLE", "Bytecode", "UnknownInterpreter", "bytecode", "interpreter"]

Effect = Literal["read", "write"]


class UnknownInterpreter(DpverifyError):
    """The engine has no table of this interpreter's bytecode: an analysis that reads it is refused."""


@dataclass(frozen=True, slots=True)
class Bytecode:
    """One minor version's bytecode, as the engine's analyses need it."""

    version: tuple[int, int]
    #: Instructions on one local, named by ``argval``: whether each reads it or writes it.  A
    #: ``LOAD_FAST_AND_CLEAR`` reads (its value is put back later) and ``DELETE_FAST`` counts as a
    #: read: liveness is over-approximated, never under.
    locals: Mapping[str, Effect]
    #: Fused instructions on two locals, ``argval`` a pair of names, with each one's effect in order.
    fused_locals: Mapping[str, tuple[Effect, Effect]]
    #: Instructions after which control does not fall through to the next one.
    terminators: frozenset[str]
    #: Instructions that call, with the stack items they take beyond the callable, its ``NULL`` or
    #: ``self``, and the ``arg`` positional and keyword arguments (``CALL_KW``'s names tuple: 1;
    #: ``CALL_FUNCTION_EX`` takes a tuple and maybe a dict, see :meth:`Bytecode.call_base`).
    calls: Mapping[str, int]
    #: 3.11: ``PRECALL`` takes the arguments off before ``CALL`` runs.
    precall: bool
    #: 3.13 on: ``NULL`` (or ``self``) is pushed after the callable, not before it.
    null_after_callable: bool
    #: Instructions that load an attribute of the object on the stack (method loads included).
    attribute_loads: frozenset[str]
    #: Instructions that push a constant named by ``argval`` (3.14: small ints are not in ``co_consts``).
    constant_loads: frozenset[str]
    #: Reads of a closure cell, and writes to state outside the frame, by what they do.
    cell_reads: frozenset[str]
    cell_writes: Mapping[str, str]
    outside_writes: Mapping[str, str]

    def local_effects(self, instruction: dis.Instruction) -> tuple[tuple[str, Effect], ...] | None:
        """The locals ``instruction`` reads or writes, in order; None for an instruction on locals this
        table does not model (the analysis then gives up on the code object)."""
        name = instruction.opname
        if name in self.locals:
            return ((instruction.argval, self.locals[name]),)
        if name in self.fused_locals:
            first, second = instruction.argval
            effects = self.fused_locals[name]
            return ((first, effects[0]), (second, effects[1]))
        return None if "FAST" in name else ()

    def integer_constants(self, code: types.CodeType) -> list[int]:
        """The integer constants ``code`` and the code nested in it use (bools left out), each once, in
        order of first appearance: those in ``co_consts`` and those an instruction carries itself."""
        found: dict[int, None] = {}
        for value in code.co_consts:
            if isinstance(value, types.CodeType):
                found.update(dict.fromkeys(self.integer_constants(value)))
            elif isinstance(value, int) and not isinstance(value, bool):
                found[value] = None
        for instruction in dis.get_instructions(code):
            value = instruction.argval
            if instruction.opname in self.constant_loads and isinstance(value, int) and not isinstance(value, bool):
                found[value] = None
        return list(found)

    def is_call(self, instruction: dis.Instruction) -> bool:
        return instruction.opname in self.calls

    def loads_local(self, instruction: dis.Instruction) -> bool:
        """Whether ``instruction`` pushes one local's (or closure cell's) value."""
        name = instruction.opname
        return (self.locals.get(name) == "read" and name.startswith("LOAD_")) or name == "LOAD_DEREF"

    def call_base(self, instructions: tuple[dis.Instruction, ...], i: int, depth: int) -> int:
        """The stack depth before the call at ``instructions[i]`` started loading its callable, given
        the depth ``depth`` before that instruction."""
        call = instructions[i]
        if call.opname == "CALL_FUNCTION_EX":  # f(*args) or f(*args, **kwargs): the tuple and dict
            kwargs = 1 if self.version >= (3, 14) else call.arg & 1  # type: ignore[operator]  # has an arg
            return depth - 3 - kwargs
        if self.precall and i > 0 and instructions[i - 1].opname == "PRECALL":
            return depth - 2  # PRECALL took the arguments off already
        return depth - 2 - self.calls[call.opname] - call.arg  # type: ignore[operator]  # a call has an arg


_TERMINATORS = frozenset(
    {
        "RETURN_VALUE",
        "RETURN_CONST",
        "RAISE_VARARGS",
        "RERAISE",
        "JUMP_FORWARD",
        "JUMP_BACKWARD",
        "JUMP_BACKWARD_NO_INTERRUPT",
    }
)
_OUTSIDE_WRITES = {
    "STORE_GLOBAL": "writes the global",
    "DELETE_GLOBAL": "deletes the global",
    "STORE_ATTR": "writes the attribute",
    "DELETE_ATTR": "deletes the attribute",
}
_CELL_WRITES = {"STORE_DEREF": "writes the closure cell", "DELETE_DEREF": "deletes the closure cell"}
_LOCALS_311: dict[str, Effect] = {"LOAD_FAST": "read", "DELETE_FAST": "read", "STORE_FAST": "write"}
_LOCALS_312: dict[str, Effect] = {**_LOCALS_311, "LOAD_FAST_CHECK": "read", "LOAD_FAST_AND_CLEAR": "read"}
_FUSED_313: dict[str, tuple[Effect, Effect]] = {
    "LOAD_FAST_LOAD_FAST": ("read", "read"),
    "STORE_FAST_LOAD_FAST": ("write", "read"),
    "STORE_FAST_STORE_FAST": ("write", "write"),
}

#: The versions the engine's bytecode analyses are validated on, and their tables.
TABLE: dict[tuple[int, int], Bytecode] = {
    (3, 11): Bytecode(
        version=(3, 11),
        locals=_LOCALS_311,
        fused_locals={},
        terminators=_TERMINATORS - {"RETURN_CONST"},
        calls={"CALL": 0, "CALL_FUNCTION_EX": 0},
        precall=True,
        null_after_callable=False,
        attribute_loads=frozenset({"LOAD_ATTR", "LOAD_METHOD"}),
        constant_loads=frozenset({"LOAD_CONST"}),
        cell_reads=frozenset({"LOAD_DEREF", "LOAD_CLASSDEREF"}),
        cell_writes=_CELL_WRITES,
        outside_writes=_OUTSIDE_WRITES,
    ),
    (3, 12): Bytecode(
        version=(3, 12),
        locals=_LOCALS_312,
        fused_locals={},
        terminators=_TERMINATORS,
        calls={"CALL": 0, "CALL_FUNCTION_EX": 0},
        precall=False,
        null_after_callable=False,
        attribute_loads=frozenset({"LOAD_ATTR"}),
        constant_loads=frozenset({"LOAD_CONST", "RETURN_CONST"}),
        cell_reads=frozenset({"LOAD_DEREF", "LOAD_FROM_DICT_OR_DEREF"}),
        cell_writes=_CELL_WRITES,
        outside_writes=_OUTSIDE_WRITES,
    ),
    (3, 13): Bytecode(
        version=(3, 13),
        locals=_LOCALS_312,
        fused_locals=_FUSED_313,
        terminators=_TERMINATORS,
        calls={"CALL": 0, "CALL_KW": 1, "CALL_FUNCTION_EX": 0},
        precall=False,
        null_after_callable=True,
        attribute_loads=frozenset({"LOAD_ATTR"}),
        constant_loads=frozenset({"LOAD_CONST", "RETURN_CONST"}),
        cell_reads=frozenset({"LOAD_DEREF", "LOAD_FROM_DICT_OR_DEREF"}),
        cell_writes=_CELL_WRITES,
        outside_writes=_OUTSIDE_WRITES,
    ),
    (3, 14): Bytecode(
        version=(3, 14),
        locals={**_LOCALS_312, "LOAD_FAST_BORROW": "read"},
        fused_locals={**_FUSED_313, "LOAD_FAST_BORROW_LOAD_FAST_BORROW": ("read", "read")},
        terminators=_TERMINATORS - {"RETURN_CONST"},
        calls={"CALL": 0, "CALL_KW": 1, "CALL_FUNCTION_EX": 0},
        precall=False,
        null_after_callable=True,
        attribute_loads=frozenset({"LOAD_ATTR"}),
        constant_loads=frozenset({"LOAD_CONST", "LOAD_SMALL_INT"}),
        cell_reads=frozenset({"LOAD_DEREF", "LOAD_FROM_DICT_OR_DEREF"}),
        cell_writes=_CELL_WRITES,
        outside_writes=_OUTSIDE_WRITES,
    ),
}
#: The CPython minor versions whose bytecode the engine reads, as text.
SUPPORTED = f"CPython {min(TABLE)[0]}.{min(TABLE)[1]}-{max(TABLE)[0]}.{max(TABLE)[1]} (GIL builds)"


def interpreter() -> str:
    """This interpreter, as the reasons name it: ``CPython 3.13.0``, ``PyPy 3.10.14``, ``... free-threaded``."""
    name = {"cpython": "CPython", "pypy": "PyPy"}.get(sys.implementation.name, sys.implementation.name)
    free = " (free-threaded)" if sysconfig.get_config_var("Py_GIL_DISABLED") else ""
    return f"{name} {sys.version.split()[0]}{free}"


def bytecode(purpose: str = "the engine's bytecode analyses") -> Bytecode:
    """This interpreter's table, or :class:`UnknownInterpreter` naming ``purpose``, the versions the
    analyses are validated on and this one."""
    found = TABLE.get(sys.version_info[:2])
    if sys.implementation.name != "cpython" or sysconfig.get_config_var("Py_GIL_DISABLED") or found is None:
        raise UnknownInterpreter(f"{purpose} are validated on {SUPPORTED}; this is {interpreter()}")
    return found
