"""numpy: the textbook float Laplace mechanism ``x + numpy.random.laplace(0, 1/epsilon)``, the
one Mironov (CCS 2012) broke, as a black box."""

from __future__ import annotations

from dpverify.verify.survey._primitive import Library, Primitive, black_box_audit

__all__ = ["LIBRARY", "primitives"]

LIBRARY = Library(
    name="numpy",
    module="numpy",
    requirements=("numpy>=1.24",),
    about="the float Laplace noise many pipelines add by hand",
)


def primitives() -> list[Primitive]:
    from dpverify.verify.published._blackbox_specs import NUMPY_LAPLACE

    return [
        Primitive(
            "random.laplace added to x in doubles",
            "Laplace",
            "epsilon=0.1, inputs 0 and 1",
            "black box",
            black_box_audit(NUMPY_LAPLACE, NUMPY_LAPLACE.cases[0]),
            randomness="seeded",  # numpy's global generator, which each draw process seeds
        )
    ]
