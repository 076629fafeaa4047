"""Which calls of the enumerated code are summarised, and how the engine takes them over.

Procedure summaries (:mod:`dpverify.verify.engine._summaries`) work on unmodified code: the
engine finds the functions that draw, and for the length of one enumeration answers their calls
itself.

Finding them.  Before the enumeration, a short walk of the same sampler
(:data:`DISCOVERY_PATHS` executions, coarse mass budget) looks at the Python frames on the stack
at every draw: each is a call of a function that draws.  The functions whose frame encloses
*every* draw and that no execution calls twice are the sampler itself and its wrappers;
summarising them would be the whole enumeration again, so they are walked.  The others are
candidates: functions and closures (not generators or coroutines) outside the standard library and
dpverify's engine.  A function that draws only on paths the short walk did not reach is walked as
the code runs.

Taking a call over.  A candidate's ``__code__`` is swapped, for the enumeration, for a small
trampoline (its ``__defaults__`` and ``__kwdefaults__`` with it; all three are restored in a
``finally``), so every call of the function object, however it is reached (a global name, an
import in another module, a method through ``self``), comes to :func:`_dispatch` with its
arguments.  There the current enumeration answers it with one choice over the summarised outputs,
or calls a copy of the original function (the same code, globals, defaults) to walk it.  Outside
an enumeration, or on another thread, the trampoline just calls the copy.  The trampoline and
dispatcher frames hand the callee's value straight back, so they hold no state: program states
(:mod:`dpverify.verify.engine._program_state`) skip them like the engine's other drivers.

The key of a call.  Its arguments are compared by content, as program states compare locals
(``_value``): the enumerating source and a ``RandomCompat`` over it are "the randomness", numbers,
strings, Fractions and tuples by value, functions by what they run on.  Arguments that are
mutable (lists, dicts, sets, whatever they are reached through), a lazy uniform draw not yet
answered, or objects of unknown type make the call unsummarisable: it is walked.
"""

from __future__ import annotations

import bisect
import functools
import gc
import threading
import types
from collections.abc import Hashable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, cast

from dpverify.verify.engine._bytecode import bytecode
from dpverify.verify.engine._program_state import _info, _resolve, _Unknown, _value, suspended_driver
from dpverify.verify.engine._purity import Refused, trusted_file

__all__ = ["DISCOVERY_PATHS", "Discovery", "active", "hooked", "procedure_key", "pushed"]

suspended_driver(__file__)  # the trampoline and the dispatcher pass the callee's value straight back

#: Executions of the short walk that finds the functions that draw.
DISCOVERY_PATHS = 256

_NOT_SUMMARISED = frozenset({"list", "dict", "set", "draw", "lazy"})
_UNSUITABLE_FLAGS = 0x20 | 0x80 | 0x100 | 0x200  # generator, coroutine, iterable coroutine, async generator


def procedure_key(args: tuple[object, ...], kwargs: dict[str, object]) -> Hashable:
    """The arguments of a call by content (module docstring); raises :class:`Refused` where they
    do not determine the call's law."""
    seen: dict[int, int] = {}
    parts: list[object] = []
    try:
        top = (_value(args, seen, parts), tuple((k, _value(v, seen, parts)) for k, v in sorted(kwargs.items())))
    except (_Unknown, RecursionError, TypeError):
        raise Refused("an argument is of a type whose content the engine does not compare") from None
    # _value appends only (number, content) pairs (parts is list[object] for program_state's draw)
    for _, content in cast("list[tuple[int, object]]", parts):
        if isinstance(content, tuple) and content[0] in _NOT_SUMMARISED:
            raise Refused(f"an argument holds a {content[0]}, which the call could change or which is not drawn yet")
        if isinstance(content, tuple) and content[0] == "RandomCompat" and content[2] != ("NoneType", None):
            raise Refused("a RandomCompat argument holds a cached normal (gauss_next)")
    return (top, tuple(parts))


# --- which functions draw --------------------------------------------------------------------


class Discovery:
    """What the short walk saw: the functions that draw, the code enclosing every draw, and the
    code some execution called more than once (a repeated attempt is no wrapper of the sampler)."""

    def __init__(self, stop: types.CodeType) -> None:
        self.stop = stop
        # per code, the function objects seen running it (closures from one factory share their code)
        self.functions: dict[types.CodeType, set[types.FunctionType]] = {}
        self._sites: dict[tuple[types.CodeType, types.CodeType | None, int], types.FunctionType | None] = {}
        self.always: set[types.CodeType] | None = None
        self.repeated: set[types.CodeType] = set()
        self._calls: dict[types.CodeType, int] = {}

    def start(self) -> None:
        """An execution starts."""
        self._calls.clear()

    def profile(self, frame: types.FrameType, event: str, arg: object) -> None:
        """The profile function of the short walk: counts the calls of each code per execution."""
        if event == "call":
            code = frame.f_code
            calls = self._calls[code] = self._calls.get(code, 0) + 1
            if calls == 2:
                self.repeated.add(code)

    def draw(self, frame: types.FrameType | None) -> None:
        """A draw is being made, ``frame`` the first frame above the engine's draw method."""
        codes = set()
        while frame is not None and frame.f_code is not self.stop:
            code = frame.f_code
            if not trusted_file(code.co_filename):
                codes.add(code)
                caller = frame.f_back
                site = (code, None if caller is None else caller.f_code, -1 if caller is None else caller.f_lasti)
                if site not in self._sites:
                    self._sites[site] = _called_function(frame)
                found = self.functions.setdefault(code, set())
                if self._sites[site] is not None:
                    found.add(self._sites[site])  # type: ignore[arg-type]  # not None: checked on the line above
            frame = frame.f_back
        self.always = codes if self.always is None else self.always & codes

    def candidates(self) -> list[types.FunctionType]:
        """The functions to summarise (module docstring)."""
        always = (self.always or set()) - self.repeated
        found: list[types.FunctionType] = []
        for code, functions in self.functions.items():
            if code in always or code.co_flags & _UNSUITABLE_FLAGS:
                continue
            if not functions:
                only = _only_function(code)
                functions = {only} if only is not None else set()
            found += sorted(functions, key=lambda f: f.__qualname__)
        return found


def _only_function(code: types.CodeType) -> types.FunctionType | None:
    """The one function object that runs ``code``, if there is exactly one."""
    owners = [f for f in gc.get_referrers(code) if isinstance(f, types.FunctionType) and f.__code__ is code]
    return owners[0] if len(owners) == 1 else None


def _called_function(frame: types.FrameType) -> types.FunctionType | None:
    """The function object running in ``frame``, read from the caller's call instruction."""
    code, caller = frame.f_code, frame.f_back
    if caller is not None:
        info = _info(caller.f_code)
        if info is not None:
            i = bisect.bisect_right(info.offsets, caller.f_lasti) - 1
            if i >= 0 and bytecode().is_call(info.instructions[i]):
                try:
                    found = _resolve(caller, info, i)
                except Exception:  # noqa: BLE001 - an unreadable call site: fall back below
                    found = None
                if isinstance(found, (staticmethod, classmethod)):
                    found = found.__func__
                if isinstance(found, types.MethodType):
                    found = found.__func__
                if isinstance(found, types.FunctionType) and found.__code__ is code:
                    return found
    return None


# --- taking calls over -----------------------------------------------------------------------


@functools.lru_cache(maxsize=64)
def _trampoline(free: int) -> types.CodeType:
    """The trampoline's code for a function with ``free`` closure cells: ``__code__`` may only be
    swapped for code with as many, which it never reads (they are named after the function's)."""
    names = ", ".join(f"_dpverify_cell{i}" for i in range(free))
    cells = f"        if False:\n            {names}\n" if free else ""
    text = (
        f"def _outer():\n    {names.replace(', ', ' = ') or '_'} = None\n"
        "    def _trampoline(*args, _dpverify_call, **kwargs):\n"
        f"{cells}"
        "        return _dpverify_call(args, kwargs)\n"
        "    return _trampoline\n"
    )
    namespace: dict[str, Any] = {}
    exec(compile(text, __file__, "exec"), namespace)  # noqa: S102
    code: types.CodeType = namespace["_outer"]().__code__
    assert len(code.co_freevars) == free
    return code


_local = threading.local()
_lock = threading.Lock()
_hooks: dict[types.FunctionType, list[Any]] = {}  # function -> [count, code, defaults, kwdefaults, copy]


def active() -> Any:
    """The enumeration (its walker) answering this thread's calls, or None."""
    stack = getattr(_local, "stack", None)
    return stack[-1] if stack else None


@contextmanager
def pushed(walker: Any) -> Iterator[None]:
    """``walker`` answers this thread's summarised calls within the block."""
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    stack.append(walker)
    try:
        yield
    finally:
        stack.pop()


def _dispatch(
    function: types.FunctionType, original: types.FunctionType, args: tuple[object, ...], kwargs: dict[str, object]
) -> object:
    walker = active()
    if walker is None:
        return original(*args, **kwargs)
    index = walker._procedure_index(function, original, args, kwargs)
    if index is None:
        return original(*args, **kwargs)
    return walker._procedure_choice(index)


def _install(function: types.FunctionType) -> None:
    entry = _hooks.get(function)
    if entry is not None:
        entry[0] += 1
        return
    code = function.__code__
    original = types.FunctionType(
        code, function.__globals__, function.__name__, function.__defaults__, function.__closure__
    )
    original.__kwdefaults__ = function.__kwdefaults__
    original.__qualname__ = function.__qualname__
    original.__dict__.update(function.__dict__)

    def call(args: tuple[object, ...], kwargs: dict[str, object]) -> object:
        return _dispatch(function, original, args, kwargs)

    _hooks[function] = [1, code, function.__defaults__, function.__kwdefaults__, original]
    function.__code__ = _trampoline(len(code.co_freevars)).replace(
        co_name=code.co_name, co_qualname=code.co_qualname, co_freevars=code.co_freevars
    )
    function.__defaults__ = None
    function.__kwdefaults__ = {"_dpverify_call": call}


_CLASHES = frozenset({"args", "kwargs", "_dpverify_call"})


def _uninstall(function: types.FunctionType) -> None:
    entry = _hooks.get(function)
    if entry is None:  # interrupted before it was installed
        return
    entry[0] -= 1
    if entry[0] == 0:
        del _hooks[function]
        function.__code__, function.__defaults__, function.__kwdefaults__ = entry[1], entry[2], entry[3]


@contextmanager
def hooked(functions: Iterable[types.FunctionType]) -> Iterator[list[types.FunctionType]]:
    """Within the block, calls of ``functions`` come to :func:`_dispatch` (module docstring)."""
    done: list[types.FunctionType] = []
    try:
        with _lock:
            for function in functions:
                if _CLASHES & set(function.__code__.co_freevars):
                    continue  # a cell named like the trampoline's own variables
                done.append(function)
                _install(function)
        yield done
    finally:
        with _lock:
            for function in done:
                _uninstall(function)
