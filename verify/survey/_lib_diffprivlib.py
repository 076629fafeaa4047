"""IBM diffprivlib: its Laplace and geometric mechanisms, run unmodified on dpverify's
enumerating source (:mod:`~dpverify.verify.published._diffprivlib`), exact at ``k`` bits."""

from __future__ import annotations

from collections.abc import Callable

from dpverify.verify.survey._primitive import Budget, Finding, Library, Primitive

__all__ = ["LIBRARY", "primitives"]

LIBRARY = Library(
    name="diffprivlib",
    module="diffprivlib",
    # diffprivlib 0.6.6 imports sklearn.tree._tree.DOUBLE, which scikit-learn 1.9 removed
    requirements=("diffprivlib==0.6.6", "scikit-learn>=1.4,<1.9"),
    about="IBM's DP library for scikit-learn users; its mechanisms take a secrets.SystemRandom, "
    "which dpverify supplies",
)


def _exact(name: str, bits: int, **parameters: object) -> Callable[[Budget], Finding]:
    def audit(budget: Budget) -> Finding:
        from dpverify.verify.published._diffprivlib_check import check_diffprivlib
        from dpverify.verify.published._diffprivlib_pmf import diffprivlib_mechanism

        result = check_diffprivlib(diffprivlib_mechanism(name, **parameters), 0, 1, bits)
        return Finding(result.verdict.value, result.summary, {"bits": bits, "check": result.to_json()})

    return audit


def primitives() -> list[Primitive]:
    return [
        Primitive(
            "Laplace (mechanisms.Laplace)",
            "Laplace",
            "epsilon=1, sensitivity=1, inputs 0 and 1",
            "exact at k bits",
            _exact("laplace", 4, epsilon=1),
        ),
        Primitive(
            "Geometric (mechanisms.Geometric)",
            "geometric",
            "epsilon=1, sensitivity=1, inputs 0 and 1",
            "exact at k bits",
            _exact("geometric", 53, epsilon=1),
        ),
        Primitive(
            "GeometricTruncated (mechanisms.GeometricTruncated)",
            "geometric",
            "epsilon=1, sensitivity=1, range [0, 5], inputs 0 and 1",
            "exact at k bits",
            _exact("geometric-truncated", 53, epsilon=1, lower=0, upper=5),
        ),
    ]
