"""The static check of ``samplers/``: no float and no randomness outside the RandomSource.

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
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dpverify.verify._results import CheckResult, Verdict

__all__ = ["StaticFinding", "check_samplers_static", "scan_file", "scanned_files"]

#: ``math`` functions that are exact on ints (see the module docstring).
MATH_ALLOWED = frozenset({"isqrt", "gcd", "lcm"})

_FLOAT_MATH_MODULES = frozenset({"math", "cmath"})
_RANDOM_MODULES = frozenset({"random", "_random", "secrets", "numpy.random"})
_OS_RANDOM = frozenset({"urandom", "getrandom"})
_CLOCKS = {
    "time": frozenset({"time", "time_ns", "monotonic", "monotonic_ns", "perf_counter",
                       "perf_counter_ns", "process_time", "process_time_ns", "thread_time",
                       "thread_time_ns", "clock_gettime", "clock_gettime_ns"}),
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
        return {"file": self.file, "line": self.line, "rule": self.rule, "snippet": self.snippet,
                "message": self.message}

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.rule}: {self.message}: {self.snippet}"


def scanned_files(root: Path | str) -> list[Path]:
    """Every ``.py`` under ``root/samplers`` the check reads, sorted."""
    base = Path(root) / "samplers"
    return sorted(
        p for p in base.rglob("*.py")
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
        module = node.module or ""
        if node.level:  # "from ._random_source import x" in samplers/ is dpverify.samplers._random_source
            base = self.package.split(".")[: max(0, self.package.count(".") + 2 - node.level)]
            module = ".".join([*base, *([module] if module else [])])
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
                self.add(node, "random-bypass",
                         f"imports {full}; a sampler may use only RandomSource, SystemRandomSource and as_source "
                         "from dpverify.samplers._random_source")
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
                self.add(node, "random-bypass", f"uses {dotted}; a sampler may use only RandomSource, "
                         "SystemRandomSource and as_source from dpverify.samplers._random_source")
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


def scan_file(path: Path | str, root: Path | str | None = None) -> list[StaticFinding]:
    """The findings in one file, its path shown relative to ``root`` when given."""
    path = Path(path)
    shown = path.relative_to(root).as_posix() if root is not None else path.as_posix()
    text = path.read_text(encoding="utf-8")
    try:
        tree = ast.parse(text, filename=shown)
    except SyntaxError as error:
        return [StaticFinding(shown, error.lineno or 0, "syntax-error", (error.text or "").strip(),
                              f"cannot parse: {error.msg}")]
    parent = path.parent.relative_to(root) if root is not None else Path(path.parent.name)
    # The folders under the root are the parts of the installed package ``dpverify``.
    scanner = _Scanner(shown, text.splitlines(), ".".join(("dpverify", *parent.parts)))
    return sorted(scanner.scan(tree), key=lambda f: (f.line, f.rule, f.message))


def _findings(root: Path) -> Iterator[StaticFinding]:
    for path in scanned_files(root):
        yield from scan_file(path, root)


def check_samplers_static(root: Path | str) -> CheckResult:
    """``proved`` when no exact sampler under ``root/samplers`` uses a float, :mod:`math`
    beyond :data:`MATH_ALLOWED`, or randomness that bypasses the RandomSource; ``violated``
    with every finding otherwise; ``inconclusive`` when there is no ``samplers/`` to check."""
    root = Path(root)
    if not (root / "samplers").is_dir():
        return CheckResult("static", Verdict.INCONCLUSIVE, f"no samplers/ directory under {root}",
                           reason="no samplers directory")
    files = scanned_files(root)
    findings = list(_findings(root))
    evidence = {"files": [p.relative_to(root).as_posix() for p in files],
                "findings": [f.to_json() for f in findings],
                "math_allowed": sorted(MATH_ALLOWED)}
    if not findings:
        return CheckResult("static", Verdict.PROVED,
                           f"{len(files)} exact sampler files: no float, no math beyond "
                           f"{', '.join(sorted(MATH_ALLOWED))}, all randomness through the RandomSource",
                           evidence=evidence)
    shown = "; ".join(str(f) for f in findings[:5])
    more = f" (and {len(findings) - 5} more)" if len(findings) > 5 else ""
    return CheckResult("static", Verdict.VIOLATED,
                       f"{len(findings)} finding(s) in exact samplers: {shown}{more}", evidence=evidence)
