"""The static check of ``samplers/`` and ``specs/``: no float and no randomness outside the
RandomSource in a sampler, and no sampler code in a spec.

DESIGN.md, "Rules of the house": no float ever enters an exact sampler, and samplers draw
randomness only through a :class:`~samplers.RandomSource`.  The exact engine derives a
sampler's distribution by running its code against enumerating sources, so a draw that does
not go through the source is invisible to every proof: the engine would certify a
distribution the production code does not have.  This check reads every exact sampler's
syntax tree (it never imports or runs it) and reports, with file, line, rule and the line
itself:

``float-literal``
    a float or complex constant (``0.5``, ``1e-9``, ``2j``).
``float-call``
    a call of ``float(...)``.
``math-call`` / ``math-constant``
    any use of :mod:`math` (``math.log(x)``, ``from math import exp``, ``math.pi``) or of
    :mod:`cmath`, except the allowlist below.
``random-bypass``
    randomness that does not come from the RandomSource a sampler is handed: importing
    :mod:`random`, ``_random``, :mod:`secrets`, ``numpy.random``; any use of ``os.urandom``
    or ``os.getrandom`` (``ssl.RAND_bytes``, ``uuid.uuid1``/``uuid4`` likewise); reading
    the clock (``time.time()``, ``time.perf_counter_ns()``, ``datetime.now()``, ...), the
    usual way to make a seed; and taking from ``dpverify.samplers._random_source`` anything but
    :class:`RandomSource`, :class:`SystemRandomSource` and ``as_source`` (which hands back the
    source it is given, or the OS CSPRNG for None).  Its private word pool, a seeded source or
    ``fresh_seed``, also re-exported by ``samplers``, would let a sampler make randomness the
    engine cannot see.
    Building a source over a chosen word supply (``SystemRandomSource.from_words``,
    ``SeededRandomSource.from_blocks``, the engine's way to run the real conversion code over
    enumerated words) is refused too: in a sampler it would be randomness of the sampler's own.
``dynamic-import``
    ``__import__(...)`` or ``importlib.import_module(...)``: a module chosen at run time is
    out of this check's sight, so it is refused rather than trusted.
``syntax-error``
    a file that does not parse cannot be checked.

The allowlist of :mod:`math` is exactly ``isqrt``, ``gcd`` and ``lcm``.  They are exact on
every argument they accept (``isqrt(n)`` is the floor of the real square root of ``n``;
``gcd`` and ``lcm`` are the integer gcd and lcm), and they accept only integers: a float
argument raises ``TypeError``, so they can neither produce a float nor silently absorb one.
Everything else in :mod:`math` returns a float (``log``, ``exp``, ``sqrt``, ``pow``...),
is a float constant (``pi``, ``e``, ``inf``), or accepts a float and turns it into an int
(``floor``, ``ceil``, ``trunc``), which hides a float rather than refusing it.  ``comb``,
``perm`` and ``factorial`` are exact too, but no sampler needs them; the list stays minimal
and a new entry needs its own argument here.

Not checked: samplers whose file name contains ``unsafe`` (floating-point by design, under
audit), ``_random_source.py`` (it *is* the RandomSource, and legitimately reads
``os.urandom``/``secrets``) and ``__init__.py`` (re-exports only).  Also out of reach of a
syntactic check: true division ``a / b`` of two ints (a float, but the operand types are not
known from the syntax), ``float`` passed as a value (``map(float, xs)``), and a float that
arrives as an argument; the exact engine and the run-time refusal of float parameters
(``dpverify.samplers._rational``) cover those.

**Specs: no closed form calls sampler code.**  DESIGN.md: a spec is a second, independent
statement of the distribution, and never calls the code it checks to compute what it expects.
If it did (a spec's grid index computed by the sampler's own ``snap_index``), a wrong rounding in
the sampler would change the spec with it and every exactness check would still pass: the two
statements would be one.  So every ``.py`` under ``specs/`` is read too (its syntax tree only),
and every name it takes from ``dpverify.samplers`` or one of its modules is reported as

``spec-uses-code``
    unless it is one of

    * the errors ``DpverifyError``, ``InvalidArgument``, ``SamplerContractError``,
      :class:`RandomSource`, and the parsing helpers of ``dpverify.samplers._rational``
      (``as_fraction``, ``as_int``, ``as_open_unit_interval``, ``RationalLike``, ``shown`` and
      the size limits ``MAX_DIGITS``, ``MAX_TEXT``, ``MAX_BITS``): :data:`SPEC_SHARED_ALLOWED`,
      taken from ``dpverify.samplers`` or the private module that defines them.
      Parsing a parameter is not stating its distribution, and one parser keeps the spec and
      the sampler refusing the same values with the same message;
    * a sampler module itself, imported to reach its entry points;
    * a sampler module's top-level function named ``validate`` (parameter parsing, as above);
    * a public sampling entry point: a top-level function listed in the module's ``__all__``
      whose signature has a parameter named ``rng``.  A spec calls it only to *run* the
      sampler (its ``run(rng)``), which is what is being checked, never to compute a
      probability: a function that takes randomness cannot be a closed form.

    Everything else is a finding: a private name (``_sample_scaled``, ``_snap_index``), a public
    helper that takes no randomness (``snap_index``, ``gtpmf``, ``cdf_vector``,
    ``inverse_transform``) and a constant.  A name is taken where it is imported
    (``from dpverify.samplers.gtm import gtpmf``; relative forms too) or where an attribute of
    an imported sampler module is read (``gtm.cdf_vector``, ``g.inverse_transform`` after
    ``import dpverify.samplers.gtm as g``, ``dpverify.samplers.gtm.gtpmf``), and it is reported
    there.  A sampler module used as a value (``getattr(gtm, name)``, passed to a function) and
    ``import *`` from one are findings too, since the names taken are then out of sight; so is a
    ``dynamic-import`` in a spec.  The entry points are read from the sampler module's syntax
    tree under the same root, never by importing it.  Like the sampler rules, names are resolved
    by the import that binds them, whatever the scope of their use (a spec should not reuse the
    name of an imported sampler module for something else), and a sampler function reached some
    other way (through ``sys.modules``, or handed over by ``verify/``) is out of reach.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dpverify.verify.engine._results import CheckResult, Verdict

__all__ = [
    "SPEC_SHARED_ALLOWED",
    "StaticFinding",
    "check_samplers_static",
    "scan_file",
    "scan_spec_file",
    "scanned_files",
    "scanned_spec_files",
]

#: ``math`` functions that are exact on ints (see the module docstring).
MATH_ALLOWED = frozenset({"isqrt", "gcd", "lcm"})

_FLOAT_MATH_MODULES = frozenset({"math", "cmath"})
_RANDOM_MODULES = frozenset({"random", "_random", "secrets", "numpy.random"})
_OS_RANDOM = frozenset({"urandom", "getrandom"})
#: The verification constructors of the production sources: words or blocks from any callable.
_SUPPLY_CONSTRUCTORS = frozenset({"from_words", "from_blocks"})
_CLOCKS = {
    "time": frozenset(
        {
            "time",
            "time_ns",
            "monotonic",
            "monotonic_ns",
            "perf_counter",
            "perf_counter_ns",
            "process_time",
            "process_time_ns",
            "thread_time",
            "thread_time_ns",
            "clock_gettime",
            "clock_gettime_ns",
        }
    ),
    "datetime": frozenset({"now", "utcnow", "today"}),
    "ssl": frozenset({"RAND_bytes", "RAND_pseudo_bytes"}),
    "uuid": frozenset({"uuid1", "uuid4"}),
    "os": _OS_RANDOM,
}
_SOURCE_MODULE = "dpverify.samplers._random_source"
_SOURCE_ALLOWED = frozenset({"RandomSource", "SystemRandomSource", "as_source"})

#: Re-exported by ``samplers/__init__.py``: a source seeded by the sampler itself, and a seed.
_PACKAGE_FORBIDDEN = frozenset({"SeededRandomSource", "fresh_seed"})
_DYNAMIC_IMPORTS = frozenset({"importlib.import_module", "importlib.__import__", "builtins.__import__"})

_SKIPPED_NAMES = frozenset({"_random_source.py", "__init__.py"})

_SAMPLERS = "dpverify.samplers"
#: What a spec may take from ``dpverify.samplers`` besides sampler modules, their ``validate``
#: and their entry points: the errors, the RandomSource, and the parameter parsing helpers.
SPEC_SHARED_ALLOWED = frozenset(
    {
        "DpverifyError",
        "InvalidArgument",
        "SamplerContractError",
        "RandomSource",
        "as_fraction",
        "as_int",
        "as_open_unit_interval",
        "RationalLike",
        "shown",
        "MAX_DIGITS",
        "MAX_TEXT",
        "MAX_BITS",
    }
)
#: The modules those names may be taken from: the package, and the private modules defining them.
_SHARED_MODULES = frozenset(
    {_SAMPLERS, f"{_SAMPLERS}._errors", f"{_SAMPLERS}._random_source", f"{_SAMPLERS}._rational"}
)
_SPEC_RULE = "spec-uses-code"


@dataclass(frozen=True, slots=True)
class StaticFinding:
    """One violation: where (``file`` relative to the root, 1-based ``line``), which rule, the
    source line, and what is wrong."""

    file: str
    line: int
    rule: str
    snippet: str
    message: str

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "rule": self.rule,
            "snippet": self.snippet,
            "message": self.message,
        }

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.rule}: {self.message}: {self.snippet}"


def scanned_files(root: Path | str) -> list[Path]:
    """Every ``.py`` under ``root/samplers`` the check reads, sorted."""
    base = Path(root) / "samplers"
    return sorted(
        p
        for p in base.rglob("*.py")
        if "unsafe" not in p.name and p.name not in _SKIPPED_NAMES and "__pycache__" not in p.parts
    )


class _Scanner(ast.NodeVisitor):
    """Collects findings in one module, resolving the names ``import`` statements bind."""

    def __init__(self, file: str, lines: list[str], package: str) -> None:
        self.file, self.lines, self.package = file, lines, package
        self.findings: list[StaticFinding] = []
        self.modules: dict[str, str] = {}  # local name -> module it is bound to
        self.imported: dict[str, tuple[str, str]] = {}  # local name -> (module, attribute)
        self.callees: set[int] = set()  # id() of every expression that is called

    def add(self, node: ast.AST, rule: str, message: str) -> None:
        line = getattr(node, "lineno", 0)
        snippet = self.lines[line - 1].strip() if 0 < line <= len(self.lines) else ""
        self.findings.append(StaticFinding(self.file, line, rule, snippet[:160], message))

    # --- imports -------------------------------------------------------------------------

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.asname is None:  # "import a.b" binds "a", and "a.b" is reachable from it
                self.modules[alias.name.split(".")[0]] = alias.name.split(".")[0]
            else:
                self.modules[alias.asname] = alias.name
            if _is_random_module(alias.name):
                self.add(node, "random-bypass", f"imports {alias.name}; draw through the RandomSource")

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        # "from ._random_source import x" in samplers/ is dpverify.samplers._random_source
        module = _absolute_module(node, self.package)
        for alias in node.names:
            local = alias.asname or alias.name
            full = f"{module}.{alias.name}"
            if alias.name == "*":
                self._star(node, module)
                continue
            if _is_random_module(module) or _is_random_module(full):
                self.add(node, "random-bypass", f"imports {full}; draw through the RandomSource")
            elif module in _FLOAT_MATH_MODULES and not _math_allowed(module, alias.name):
                self.add(node, "math-call", f"imports {full}, a floating-point function or constant")
            elif module in _CLOCKS and alias.name in _CLOCKS[module]:
                self.add(node, "random-bypass", f"imports {full}, a source of entropy or a clock seed")
            elif _bypasses_source(module, alias.name):
                self.add(
                    node,
                    "random-bypass",
                    f"imports {full}; a sampler may use only RandomSource, SystemRandomSource and as_source "
                    "from dpverify.samplers._random_source",
                )
            if module in _FLOAT_MATH_MODULES or module in _CLOCKS:
                self.imported[local] = (module, alias.name)
            else:
                self.modules[local] = full

    def _star(self, node: ast.ImportFrom, module: str) -> None:
        if _is_random_module(module) or module in _CLOCKS or module == _SOURCE_MODULE:
            self.add(node, "random-bypass", f"imports * from {module}")
        elif module in _FLOAT_MATH_MODULES:
            self.add(node, "math-call", f"imports * from {module}")

    # --- floats --------------------------------------------------------------------------

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, (float, complex)):
            self.add(node, "float-literal", f"float literal {node.value!r}")

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Name) and func.id == "float":
            self.add(node, "float-call", "calls float()")
        elif (isinstance(func, ast.Name) and func.id == "__import__") or self._dotted_name(func) in _DYNAMIC_IMPORTS:
            self.add(node, "dynamic-import", "imports a module at run time, which this check cannot follow")
        elif isinstance(func, ast.Name) and func.id in self.imported:
            module, name = self.imported[func.id]
            if module in _FLOAT_MATH_MODULES and not _math_allowed(module, name):
                self.add(node, "math-call", f"calls {module}.{name}")
            elif module in _CLOCKS and name in _CLOCKS[module]:
                self.add(node, "random-bypass", f"calls {module}.{name}")
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in _SUPPLY_CONSTRUCTORS:
            self.add(node, "random-bypass", f"uses .{node.attr}, which builds a source over words the sampler chooses")
            return
        dotted = self._dotted(node)
        if dotted is not None:
            module, _, name = dotted.rpartition(".")
            parent = self._parent_call(node)
            if module in _FLOAT_MATH_MODULES and not _math_allowed(module, name):
                rule = "math-call" if parent else "math-constant"
                self.add(node, rule, f"{'calls' if parent else 'uses'} {dotted}")
                return
            if _is_random_module(module) or _is_random_module(dotted):
                self.add(node, "random-bypass", f"uses {dotted}")
                return
            last = module.rpartition(".")[2]
            if last in _CLOCKS and name in _CLOCKS[last]:
                self.add(node, "random-bypass", f"uses {dotted}")
                return
            if _bypasses_source(module, name):
                self.add(
                    node,
                    "random-bypass",
                    f"uses {dotted}; a sampler may use only RandomSource, "
                    "SystemRandomSource and as_source from dpverify.samplers._random_source",
                )
                return
        self.generic_visit(node)

    def _dotted_name(self, node: ast.expr) -> str | None:
        return self._dotted(node) if isinstance(node, ast.Attribute) else None

    def _dotted(self, node: ast.Attribute) -> str | None:
        """``math.log`` -> ``"math.log"``, following import aliases (``m.log`` after
        ``import math as m``); None when the base is not a name bound by an import."""
        parts = [node.attr]
        value = node.value
        while isinstance(value, ast.Attribute):
            parts.append(value.attr)
            value = value.value
        if not isinstance(value, ast.Name):
            return None
        if value.id in self.modules:
            base = self.modules[value.id]
        elif value.id in self.imported:  # from datetime import datetime; datetime.now()
            base = ".".join(self.imported[value.id])
        else:
            return None
        return ".".join([base, *reversed(parts)])

    def _parent_call(self, node: ast.Attribute) -> bool:
        return id(node) in self.callees

    def scan(self, tree: ast.Module) -> list[StaticFinding]:
        self.callees = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
        self.visit(tree)
        return self.findings


def _absolute_module(node: ast.ImportFrom, package: str) -> str:
    """The module an ``import from`` reads, relative forms resolved against ``package``."""
    module = node.module or ""
    if not node.level:
        return module
    base = package.split(".")[: max(0, package.count(".") + 2 - node.level)]
    return ".".join([*base, *([module] if module else [])])


def _is_random_module(name: str) -> bool:
    return any(name == m or name.startswith(m + ".") for m in _RANDOM_MODULES)


def _bypasses_source(module: str, name: str) -> bool:
    """``name`` taken from the samplers package or its RandomSource module is a way to make
    randomness the engine does not supply (a seeded source, a fresh seed, the word pool)."""
    if module == _SOURCE_MODULE:
        return name not in _SOURCE_ALLOWED
    return module == "dpverify.samplers" and name in _PACKAGE_FORBIDDEN


def _math_allowed(module: str, name: str) -> bool:
    return module == "math" and name in MATH_ALLOWED


def _parse(path: Path, shown: str) -> tuple[str, ast.Module] | StaticFinding:
    """A file's text and syntax tree, or the ``syntax-error`` finding that it does not parse."""
    text = path.read_text(encoding="utf-8")
    try:
        return text, ast.parse(text, filename=shown)
    except SyntaxError as error:
        return StaticFinding(
            shown, error.lineno or 0, "syntax-error", (error.text or "").strip(), f"cannot parse: {error.msg}"
        )


def scan_file(path: Path | str, root: Path | str | None = None) -> list[StaticFinding]:
    """The findings in one file, its path shown relative to ``root`` when given."""
    path = Path(path)
    shown = path.relative_to(root).as_posix() if root is not None else path.as_posix()
    parsed = _parse(path, shown)
    if isinstance(parsed, StaticFinding):
        return [parsed]
    text, tree = parsed
    parent = path.parent.relative_to(root) if root is not None else Path(path.parent.name)
    # The folders under the root are the parts of the installed package ``dpverify``.
    scanner = _Scanner(shown, text.splitlines(), ".".join(("dpverify", *parent.parts)))
    return sorted(scanner.scan(tree), key=lambda f: (f.line, f.rule, f.message))


# --- specs: no sampler code ------------------------------------------------------------------


def scanned_spec_files(root: Path | str) -> list[Path]:
    """Every ``.py`` under ``root/specs`` the check reads, sorted (none without ``specs/``)."""
    base = Path(root) / "specs"
    return sorted(p for p in base.rglob("*.py") if "__pycache__" not in p.parts)


def _in_samplers(dotted: str) -> bool:
    return dotted == _SAMPLERS or dotted.startswith(_SAMPLERS + ".")


class _SamplerIndex:
    """What each module of ``root/samplers`` offers a spec, read from its syntax tree."""

    def __init__(self, root: Path) -> None:
        self.base = root / "samplers"
        self._public: dict[str, tuple[frozenset[str], frozenset[str]]] = {}

    def source(self, module: str) -> Path | None:
        """The file of ``module`` (``dpverify.samplers`` or one of its modules), or None."""
        if not _in_samplers(module):
            return None
        parts = module.split(".")[2:]
        folder = self.base.joinpath(*parts)
        for candidate in (folder / "__init__.py", folder.with_suffix(".py") if parts else None):
            if candidate is not None and candidate.is_file():
                return candidate
        return None

    def is_module(self, module: str) -> bool:
        return module == _SAMPLERS or self.source(module) is not None

    def public(self, module: str) -> tuple[frozenset[str], frozenset[str]]:
        """``(entry points, validate)``: the top-level functions in ``__all__`` with a parameter
        named ``rng``, and ``{"validate"}`` when a top-level function of that name exists."""
        if module not in self._public:
            self._public[module] = self._read(self.source(module))
        return self._public[module]

    @staticmethod
    def _read(path: Path | None) -> tuple[frozenset[str], frozenset[str]]:
        try:
            tree = ast.parse(path.read_text(encoding="utf-8")) if path is not None else None
        except (OSError, SyntaxError, ValueError):
            tree = None  # the sampler scan reports a file that does not parse
        if tree is None:
            return frozenset(), frozenset()
        exported: set[str] = set()
        functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                functions[node.name] = node
            targets = (
                node.targets
                if isinstance(node, ast.Assign)
                else [node.target]
                if isinstance(node, (ast.AnnAssign, ast.AugAssign))
                else []
            )
            value = getattr(node, "value", None)
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets) and isinstance(
                value, (ast.List, ast.Tuple)
            ):
                exported |= {e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
        entry = frozenset(
            name
            for name, f in functions.items()
            if name in exported
            and not name.startswith("_")
            and "rng" in {a.arg for a in (*f.args.posonlyargs, *f.args.args, *f.args.kwonlyargs)}
        )
        return entry, frozenset({"validate"} & set(functions))


class _SpecScanner(ast.NodeVisitor):
    """Collects the names a spec module takes from ``dpverify.samplers`` that it may not take."""

    def __init__(self, file: str, lines: list[str], package: str, samplers: _SamplerIndex) -> None:
        self.file, self.lines, self.package, self.samplers = file, lines, package, samplers
        self.findings: list[StaticFinding] = []
        self.bindings: dict[str, str] = {}  # local name -> the dotted name it is bound to
        self.bases: set[int] = set()  # id() of every expression whose attribute is read

    def add(self, node: ast.AST, rule: str, message: str) -> None:
        line = getattr(node, "lineno", 0)
        snippet = self.lines[line - 1].strip() if 0 < line <= len(self.lines) else ""
        self.findings.append(StaticFinding(self.file, line, rule, snippet[:160], message))

    def judge(self, dotted: str) -> str | None:
        """Why a spec may not use ``dotted``, or None when it may (or it is not sampler code)."""
        if not _in_samplers(dotted):
            return None
        parts = dotted.split(".")
        module, rest = _SAMPLERS, parts[2:]
        while rest and self.samplers.is_module(f"{module}.{rest[0]}"):
            module, rest = f"{module}.{rest[0]}", rest[1:]
        if not rest:
            return None  # a module itself: the names read from it are judged where they are read
        name = rest[0]
        if module in _SHARED_MODULES:
            if name in SPEC_SHARED_ALLOWED:
                return None
            return (
                f"takes {module}.{name}; from {module} a spec may take only the errors, RandomSource and "
                f"the parsing helpers ({', '.join(sorted(SPEC_SHARED_ALLOWED))})"
            )
        entry, validate = self.samplers.public(module)
        if name in entry or name in validate:
            return None
        kind = (
            "private sampler code"
            if name.startswith("_")
            else "sampler code that is neither an entry point "
            "(a function in __all__ with an rng parameter) nor validate"
        )
        return (
            f"takes {module}.{name}, {kind}; a spec states the distribution independently: compute it in "
            "specs/ from the paper's statement"
        )

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.asname is None:  # "import a.b" binds "a"
                first = alias.name.split(".")[0]
                self.bindings[first] = first
            else:
                self.bindings[alias.asname] = alias.name
            reason = self.judge(alias.name)
            if reason:
                self.add(node, _SPEC_RULE, reason)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = _absolute_module(node, self.package)
        for alias in node.names:
            if alias.name == "*":
                if _in_samplers(module):
                    self.add(node, _SPEC_RULE, f"imports * from {module}, which hides the names it takes")
                continue
            full = f"{module}.{alias.name}"
            self.bindings[alias.asname or alias.name] = full
            reason = self.judge(full)
            if reason:
                self.add(node, _SPEC_RULE, reason)

    def resolve(self, node: ast.expr) -> str | None:
        """``g.inverse_transform`` -> ``"dpverify.samplers.gtm.inverse_transform"`` after
        ``import dpverify.samplers.gtm as g``; None when the base is not a name an import binds."""
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id not in self.bindings:
            return None
        return ".".join([self.bindings[node.id], *reversed(parts)])

    def visit_Attribute(self, node: ast.Attribute) -> None:
        dotted = self.resolve(node)
        if dotted is None:
            self.generic_visit(node)
            return
        reason = self.judge(dotted)
        if reason:
            self.add(node, _SPEC_RULE, reason)
        elif id(node) not in self.bases:
            self._as_value(node, dotted)
        # the names of the chain below are part of this one use; nothing else is inside it

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load) and id(node) not in self.bases and node.id in self.bindings:
            self._as_value(node, self.bindings[node.id])

    def _as_value(self, node: ast.expr, dotted: str) -> None:
        if _in_samplers(dotted) and self.samplers.is_module(dotted):
            self.add(
                node,
                _SPEC_RULE,
                f"uses the sampler module {dotted} as a value, so the names taken from "
                "it are out of this check's sight; name the entry point instead",
            )

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        dotted = "__import__" if isinstance(func, ast.Name) and func.id == "__import__" else self.resolve(func)
        if dotted == "__import__" or dotted in _DYNAMIC_IMPORTS:
            self.add(node, "dynamic-import", "imports a module at run time, which this check cannot follow")
        self.generic_visit(node)

    def scan(self, tree: ast.Module) -> list[StaticFinding]:
        self.bases = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        self.visit(tree)
        return self.findings


def scan_spec_file(path: Path | str, root: Path | str) -> list[StaticFinding]:
    """The ``spec-uses-code`` findings in one spec file under ``root/specs``, judged against
    the sampler modules under ``root/samplers``; the path is shown relative to ``root``."""
    return _scan_spec(Path(path), Path(root), _SamplerIndex(Path(root)))


def _scan_spec(path: Path, root: Path, samplers: _SamplerIndex) -> list[StaticFinding]:
    shown = path.relative_to(root).as_posix()
    parsed = _parse(path, shown)
    if isinstance(parsed, StaticFinding):
        return [parsed]
    text, tree = parsed
    package = ".".join(("dpverify", *path.parent.relative_to(root).parts))
    scanner = _SpecScanner(shown, text.splitlines(), package, samplers)
    return sorted(scanner.scan(tree), key=lambda f: (f.line, f.rule, f.message))


def _findings(root: Path) -> Iterator[StaticFinding]:
    for path in scanned_files(root):
        yield from scan_file(path, root)
    samplers = _SamplerIndex(root)
    for path in scanned_spec_files(root):
        yield from _scan_spec(path, root, samplers)


def check_samplers_static(root: Path | str) -> CheckResult:
    """``proved`` when no exact sampler under ``root/samplers`` uses a float, :mod:`math`
    beyond :data:`MATH_ALLOWED`, or randomness that bypasses the RandomSource, and no spec under
    ``root/specs`` takes sampler code beyond the entry points, ``validate``, the errors and the
    parsing helpers; ``violated`` with every finding otherwise; ``inconclusive`` when there is
    no ``samplers/`` to check."""
    root = Path(root)
    if not (root / "samplers").is_dir():
        return CheckResult(
            "static", Verdict.INCONCLUSIVE, f"no samplers/ directory under {root}", reason="no samplers directory"
        )
    files = scanned_files(root)
    spec_files = scanned_spec_files(root)
    findings = list(_findings(root))
    evidence = {
        "files": [p.relative_to(root).as_posix() for p in files],
        "spec_files": [p.relative_to(root).as_posix() for p in spec_files],
        "findings": [f.to_json() for f in findings],
        "math_allowed": sorted(MATH_ALLOWED),
        "spec_shared_allowed": sorted(SPEC_SHARED_ALLOWED),
    }
    if not findings:
        return CheckResult(
            "static",
            Verdict.PROVED,
            f"{len(files)} exact sampler files and {len(spec_files)} spec files: no float, no math "
            f"beyond {', '.join(sorted(MATH_ALLOWED))}, all randomness through the RandomSource; "
            "specs take from samplers/ only entry points, validate, parsing helpers and errors",
            evidence=evidence,
        )
    shown = "; ".join(str(f) for f in findings[:5])
    more = f" (and {len(findings) - 5} more)" if len(findings) > 5 else ""
    return CheckResult(
        "static",
        Verdict.VIOLATED,
        f"{len(findings)} finding(s) in exact samplers and specs: {shown}{more}",
        evidence=evidence,
    )
