"""Whether a call's output law is a function of its arguments: the check behind procedure summaries.

A procedure summary (:mod:`dpverify.verify.engine._summaries`) replaces every call ``f(args)`` by
one enumeration of ``f`` at those arguments.  That is sound only while the call keeps no state
outside its frames: nothing it does may change what the caller sees afterwards, and nothing it
reads may differ between two calls with equal arguments.  :class:`PurityWatch` checks this on
the code that actually runs.  While a summary is computed it is installed as the thread's trace
function (chained to any tracer already there), so every Python frame the call creates is seen,
including methods reached through ``self`` and callbacks passed in; each code object is scanned
once (its bytecode), and its reads of outside names are evaluated in the frame's globals.

The call is refused (and walked inside the path that makes it instead, as the code runs) when
code it runs:

- writes outside its frames: ``STORE_GLOBAL``/``DELETE_GLOBAL`` (a global counter),
  ``STORE_ATTR``/``DELETE_ATTR`` (an attribute, of anything: an argument, a module, ``self``),
  ``STORE_DEREF``/``DELETE_DEREF`` of a free variable (a ``nonlocal`` closure cell);
- reads a closure cell of an enclosing function that holds data rather than a function, class
  or module (a counter kept in a cell);
- runs a line that reads, through a global name or an attribute chain on one (``Config.scale``,
  ``np.pi``), a value that is mutable or of a type not known to be immutable (a list, a dict, an
  instance); such lines are traced one by one, so a branch the call never takes does not count;
- is ``random.Random``'s ``gauss``, ``seed`` or ``setstate``, the standard library code that keeps
  a generator's hidden state (``gauss`` caches its second normal in ``gauss_next``).

What it reads through globals and attribute chains that is immutable data (an ``int``, a
``Fraction``, a tuple of them, a string) becomes a *guard* of the summary: its value is recorded,
and the summary is used again only where every guard still has that value, so a global that the
caller rebinds between two calls gives two summaries, not a stale one.  Functions, classes and
modules read that way are compared by identity: like renewal
(:mod:`dpverify.verify.engine._program_state`), the engine assumes the code it runs is not rebound
during a run.

Not counted: garbage-collector callbacks and Python signal handlers, which run between any two
instructions of the call without being called by it.  Trusted without scanning: the standard library
(but for the three methods above) and dpverify's own engine (the enumerating source, ``RandomCompat``,
the patched ``random``), which keep no state a sampler reads.  Code in C (builtins, numpy's ufuncs)
cannot be scanned and is taken to keep no hidden state, the assumption every enumeration of such code
already makes; so is the Python layer of numpy and scipy, which wraps that C code (its lookup tables are
module-level dicts).  Their global generators are no exception to the rule that code must draw only
through the randomness it is given: a sampler that draws from ``np.random`` is not enumerable,
summarised or not.  A refusal is never unsound: it only means that call is walked, as the code runs.
"""

from __future__ import annotations

import dis
import functools
import os
import random
import sysconfig
import types
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from dpverify.verify.engine._bytecode import bytecode
from dpverify.verify.engine._program_state import _Unknown, _value

__all__ = ["PurityWatch", "Refused", "guards_hold", "immutable_value", "trusted_file"]


class Refused(BaseException):
    """A call that cannot be summarised; the message says why.  A BaseException, so that the
    sampler's own ``except Exception`` cannot swallow it while a summary is being computed."""


#: Standard library code that keeps a generator's hidden state (module docstring).
_STATEFUL = frozenset(f.__code__ for f in (random.Random.gauss, random.Random.seed, random.Random.setstate))

_ENGINE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_STDLIB_DIRS = tuple({os.path.abspath(sysconfig.get_paths()[key]) + os.sep for key in ("stdlib", "platstdlib")})


@functools.lru_cache(maxsize=4096)
def trusted_file(filename: str) -> bool:
    """Whether code from ``filename`` is trusted without scanning: the standard library (not its
    ``site-packages``) and dpverify's engine (``dpverify.verify``)."""
    if filename.startswith("<frozen "):
        return True
    path = os.path.abspath(filename)
    if path.startswith(_ENGINE_DIR + os.sep):
        return True
    site = f"{os.sep}site-packages{os.sep}"
    if site in path:
        return path.split(site, 1)[1].split(os.sep, 1)[0] in _NUMERIC_PACKAGES
    return path.startswith(_STDLIB_DIRS)


#: Packages whose Python layer wraps their C code, trusted as their C code is (module docstring).
_NUMERIC_PACKAGES = frozenset({"numpy", "scipy"})


@dataclass(frozen=True, slots=True)
class _CodeFacts:
    """What one code object's bytecode says about the state outside its frame."""

    writes: str | None  # why it is refused outright, or None
    cells: tuple[str, ...]  # free variables it reads
    chains: tuple[tuple[str, tuple[str, ...], int | None], ...]  # global names read, attribute chains, line


_FACTS: dict[types.CodeType, _CodeFacts] = {}


def _facts(code: types.CodeType) -> _CodeFacts:
    found = _FACTS.get(code)
    if found is None:
        found = _FACTS[code] = _scan(code)
    return found


def _scan(code: types.CodeType) -> _CodeFacts:
    if code in _STATEFUL:
        return _CodeFacts(f"is random.Random.{code.co_name}, which keeps the generator's hidden state", (), ())
    table = bytecode("the purity scan of procedure summaries")
    free = set(code.co_freevars)
    cells: list[str] = []
    chains: list[tuple[str, tuple[str, ...], int | None]] = []
    instructions = list(dis.get_instructions(code))
    for i, ins in enumerate(instructions):
        name = ins.opname
        if name in table.outside_writes:
            return _CodeFacts(f"{table.outside_writes[name]} {ins.argval}", (), ())
        if name in table.cell_writes and ins.argval in free:
            return _CodeFacts(f"{table.cell_writes[name]} {ins.argval}", (), ())
        if name in table.cell_reads and ins.argval in free:
            cells.append(ins.argval)
        elif name == "LOAD_GLOBAL":
            attrs = []
            for follow in instructions[i + 1 :]:
                if follow.opname not in table.attribute_loads or follow.is_jump_target:
                    break
                attrs.append(follow.argval)
            chains.append((ins.argval, tuple(attrs), ins.positions.lineno if ins.positions else None))
    return _CodeFacts(None, tuple(dict.fromkeys(cells)), tuple(dict.fromkeys(chains)))


_CONSTANT_KINDS = (
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    types.ModuleType,
    type,
    types.MethodDescriptorType,
    types.WrapperDescriptorType,
    types.MethodWrapperType,
    types.ClassMethodDescriptorType,
    staticmethod,
    classmethod,
    property,
    functools.partial,
)


def immutable_value(value: Any) -> Hashable:
    """A hashable stand-in of an immutable data value, equal exactly when the values are (compared
    as program states compare them: floats by their bits); raises :class:`Refused` for anything
    that has an identity of its own, whose content could change."""
    parts: list[object] = []
    try:
        stand_in = _value(value, {}, parts)
    except (_Unknown, RecursionError):
        parts.append(None)
    if parts:
        raise Refused(f"holds a {type(value).__name__}, which may change")
    return stand_in


def _constant(value: object) -> bool:
    return isinstance(value, _CONSTANT_KINDS)


_MISSING = object()


def _chain_value(namespace: dict[str, Any], name: str, attrs: tuple[str, ...]) -> object:
    """The value of ``name.attr1.attr2...`` read without running code, or the last constant before
    an attribute that cannot be read statically (a property, a C slot: its read is C code's)."""
    import builtins
    import inspect

    value = namespace.get(name, _MISSING)
    if value is _MISSING:
        value = getattr(builtins, name, _MISSING)
    for attr in attrs:
        if value is _MISSING or not _constant(value):
            break
        found = inspect.getattr_static(value, attr, _MISSING)
        if found is _MISSING:
            break
        value = found
    return value


#: A guard: the globals it is read in, the name and attribute chain, the value's stand-in.
Guard = tuple[dict[str, Any], str, tuple[str, ...], Hashable]


def guards_hold(guards: tuple[Guard, ...]) -> bool:
    """Whether every guard still reads the value it recorded."""
    for namespace, name, attrs, expected in guards:
        value = _chain_value(namespace, name, attrs)
        if _constant(value) or value is _MISSING:
            return False  # it held data when recorded
        try:
            if immutable_value(value) != expected:
                return False
        except Refused:
            return False
    return True


class PurityWatch:
    """The trace function that checks the code a summarised call runs (module docstring).

    ``reason`` is set at the first refusal and never cleared, so a sampler that catches the
    :class:`Refused` raised in it still has its summary refused; ``guards`` are the data reads."""

    def __init__(self, previous: Callable[..., Any] | None) -> None:
        self.previous = previous
        self.reason: str | None = None
        self._asynchronous = _asynchronous_codes()
        self.guards: dict[tuple[int, str, tuple[str, ...]], Guard] = {}
        self._risky: dict[tuple[types.CodeType, int], dict[int | None, str]] = {}

    def __call__(self, frame: types.FrameType, event: str, arg: object) -> Any:
        risky = None
        if event == "call" and self.reason is None:
            code = frame.f_code
            if (
                code.co_filename not in _TRUSTED_CACHE
                and not _trusted(code.co_filename)
                and code not in self._asynchronous
            ):
                risky = self._check(frame, code)
        inner = self.previous(frame, event, arg) if self.previous is not None else None
        return inner if not risky else self._lines(risky, inner)

    def _lines(self, risky: dict[int | None, str], inner: Any) -> Callable[..., Any]:
        """The frame's line tracer: a read of mutable state refuses the call only if its line runs
        (``check_random_state`` reads numpy's global generator only when given none)."""

        def trace(frame: types.FrameType, event: str, arg: object) -> Any:
            nonlocal inner
            if event == "line" and frame.f_lineno in risky:
                self.refuse(risky[frame.f_lineno])
            if inner is not None:
                inner = inner(frame, event, arg)
            return trace

        return trace

    def merge(self, guards: tuple[Guard, ...]) -> None:
        """Guards of a summary used inside the call: the call's law depends on them too."""
        for guard in guards:
            self.guards.setdefault((id(guard[0]), guard[1], guard[2]), guard)

    def refuse(self, reason: str) -> None:
        if self.reason is None:
            self.reason = reason
        raise Refused(reason)

    def _check(self, frame: types.FrameType, code: types.CodeType) -> dict[int | None, str]:
        """Refuse, or record the frame's guards; returns its lines that read mutable state."""
        facts = _facts(code)
        where = code.co_qualname
        if facts.writes is not None:
            self.refuse(f"{where} {facts.writes}")
        if facts.cells:
            local = frame.f_locals
            for name in facts.cells:
                if not _constant(local.get(name)):
                    self.refuse(f"{where} reads the closure cell {name}, which holds data")
        namespace = frame.f_globals
        seen = (code, id(namespace))
        risky = self._risky.get(seen)
        if risky is not None:
            return risky
        risky = self._risky[seen] = {}
        for name, attrs, line in facts.chains:
            value = _chain_value(namespace, name, attrs)
            if value is _MISSING or _constant(value):
                continue
            try:
                stand_in = immutable_value(value)
            except Refused as why:
                risky.setdefault(line, f"{where} reads {'.'.join((name, *attrs))}, which {why}")
                continue
            self.guards.setdefault((id(namespace), name, attrs), (namespace, name, attrs, stand_in))
        return risky


_TRUSTED_CACHE: set[str] = set()


def _asynchronous_codes() -> frozenset[types.CodeType]:
    """Code that runs between any two instructions without being called by them: garbage-collector
    callbacks (Hypothesis installs one) and Python signal handlers."""
    import gc
    import signal

    # gc callbacks and signal handlers (or the SIG_DFL / SIG_IGN ints, or None) alike
    handlers: list[object] = list(gc.callbacks)
    for number in signal.valid_signals():
        try:
            handlers.append(signal.getsignal(number))
        except (ValueError, OSError):
            continue
    codes = set()
    for handler in handlers:
        function = getattr(handler, "__func__", handler)
        code = getattr(function, "__code__", None)
        if isinstance(code, types.CodeType):
            codes.add(code)
    return frozenset(codes)


def _trusted(filename: str) -> bool:
    if trusted_file(filename):
        _TRUSTED_CACHE.add(filename)
        return True
    return False
