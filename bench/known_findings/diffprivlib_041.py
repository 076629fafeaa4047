"""diffprivlib 0.4.1's float Laplace and Gaussian mechanisms (Mironov's attack, issue #19; Jin et al.,
S&P 2022), audited on the library's own randomness.

diffprivlib 0.4.1 installs, but ``import diffprivlib`` fails with every installable scikit-learn: its
``diffprivlib.models`` imports private scikit-learn names removed in 1.1 (``_logistic_loss_and_grad``,
``_joblib_parallel_args``).  The mechanisms audited here never use the models, so the audits stub
``diffprivlib.models`` with an empty module before the import (a stated assumption in each method).
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from typing import Any

_STUB = "diffprivlib.models stubbed (its sklearn imports fail; the mechanisms do not use it)"


def _import_mechanisms() -> Any:
    """``diffprivlib.mechanisms``, importable without scikit-learn's removed private names: ``diffprivlib``'s
    ``__init__`` imports ``diffprivlib.models``, whose modules import ``sklearn.linear_model._logistic.
    _logistic_loss_and_grad`` and ``sklearn.utils.fixes._joblib_parallel_args`` (gone since scikit-learn
    1.1, and 1.0 does not build here).  Neither ``mechanisms`` nor ``tools`` imports ``models``, so an
    empty module in its place leaves the audited code as released."""
    sys.modules.setdefault("diffprivlib.models", types.ModuleType("diffprivlib.models"))
    import diffprivlib.mechanisms

    return diffprivlib.mechanisms


def _laplace(version: str, seed: int, samples: int) -> dict[str, Any]:
    """``Laplace(epsilon=1, sensitivity=1).randomise(x)`` at x = 0 and 1 as a black box, claimed 1-DP."""
    import bench_known_findings as bench

    from dpverify.specs._claims import PureDp

    mechanism = _import_mechanisms().Laplace(epsilon=1, sensitivity=1)
    found: dict[str, Any] = bench._black_box(
        "diffprivlib-laplace", lambda x: float(mechanism.randomise(float(x))), PureDp(epsilon=1), seed, samples
    )
    return {**found, "method": f"{found['method']}; {_STUB}"}


def _gaussian(version: str, seed: int, samples: int) -> dict[str, Any]:
    """``Gaussian(epsilon=0.5, delta=1e-5, sensitivity=1).randomise(x)`` at x = 0 and 1 as a black box.

    Each release comes from a new mechanism: a reused one caches Box-Muller's second normal for its next
    call, so consecutive releases share their two uniforms, and the test's bounds need independent draws.
    The release audited is thus a mechanism's first (the cosine branch)."""
    import bench_known_findings as bench

    from dpverify.specs._claims import ApproxDp

    gaussian = _import_mechanisms().Gaussian
    found: dict[str, Any] = bench._black_box(
        "diffprivlib-gaussian",
        lambda x: float(gaussian(epsilon=0.5, delta=1e-5, sensitivity=1).randomise(float(x))),
        ApproxDp(epsilon="1/2", delta="1/100000"),
        seed,
        samples,
    )
    return {**found, "method": f"{found['method']}; {_STUB}"}


AUDITS: dict[str, Callable[[str, int, int], dict[str, Any]]] = {
    "diffprivlib-19-laplace": _laplace,
    "jin-gauss-diffprivlib": _gaussian,
}
