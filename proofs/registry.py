"""Every parametric theorem of this package, in a stable order, and a way to prove them all.

:data:`THEOREMS` lists each module's lemmas (base before step) and then its theorem, modules in
the order below, so every obligation comes after the ones it rests on (a module's ``REQUIRES``).
Each entry is one obligation and so one certificate; :func:`prove_all` discharges them in the
same order and returns one result per entry.
"""

from __future__ import annotations

from types import ModuleType

from dpverify.proofs import discrete_laplace_ratio, gtm_ideal_ratio, theorem_6_1, theorem_6_2, theorem_7_1
from dpverify.proofs._theorem import Theorem, discharge
from dpverify.verify.engine._results import CheckResult

__all__ = ["MODULES", "THEOREMS", "prove_all"]

#: The proof modules, each with ``THEOREM``, ``LEMMAS``, ``REQUIRES`` and ``prove()``.
MODULES: tuple[ModuleType, ...] = (gtm_ideal_ratio, theorem_6_1, theorem_6_2, theorem_7_1, discrete_laplace_ratio)

#: Every obligation: each module's lemmas, then its theorem (or theorems, where a module
#: splits one statement into obligations that are each quick to decide).
THEOREMS: tuple[Theorem, ...] = tuple(
    theorem for module in MODULES for theorem in (*module.LEMMAS, *getattr(module, "THEOREMS", (module.THEOREM,)))
)


def prove_all() -> tuple[CheckResult, ...]:
    """Discharge every entry of :data:`THEOREMS` with Z3, in order: one result each."""
    return tuple(discharge(theorem) for theorem in THEOREMS)
