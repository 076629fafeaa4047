"""OpenDP: its integer Laplace and Gaussian measurements through the Python bindings (Rust
code that draws from the operating system), as black boxes
(:mod:`~dpverify.verify.published._blackbox_specs`)."""

from __future__ import annotations

from dpverify.verify.survey._primitive import Library, Primitive, black_box_audit

__all__ = ["LIBRARY", "primitives"]

LIBRARY = Library(
    name="opendp",
    module="opendp",
    requirements=("opendp==0.16.*",),
    about="the OpenDP library's measurements, in Rust behind Python bindings",
)


def primitives() -> list[Primitive]:
    from dpverify.verify.published._blackbox_specs import OPENDP_DGAUSS, OPENDP_DGAUSS_I32, OPENDP_DLAPLACE

    return [
        Primitive(
            "make_laplace (T=int)",
            "discrete Laplace",
            "scale=2, inputs 0 and 1",
            "black box",
            black_box_audit(OPENDP_DLAPLACE, OPENDP_DLAPLACE.cases[0]),
        ),
        Primitive(
            "make_gaussian (T=int)",
            "discrete Gaussian",
            "scale=2, inputs 0 and 1",
            "black box",
            black_box_audit(OPENDP_DGAUSS, OPENDP_DGAUSS.cases[0]),
        ),
        # At scale 2^31 an i32 output saturates at +-2^31: OpenDP documents that saturating cast (a
        # post-processing with its own proof), so the unsaturated law is no contract of the library's.
        Primitive(
            "make_gaussian (T=i32)",
            "discrete Gaussian",
            "scale=2, inputs 0 and 1 (far from the saturating cast at +-2^31)",
            "black box",
            black_box_audit(OPENDP_DGAUSS_I32, OPENDP_DGAUSS_I32.cases[0]),
        ),
    ]
