"""Opacus: the Gaussian noise DP-SGD adds to a batch's summed clipped gradients, as a black box.

The audited call is the one that releases the noisy gradient: ``DPOptimizer.add_noise()`` (the
public method ``DPOptimizer.step`` runs after clipping), on an optimizer over one float32
parameter whose ``summed_grad`` is set to the input for each release; what is read back is
``p.grad``.  ``add_noise`` sets it to ``summed_grad + _generate_noise(std, summed_grad)`` with
``std = noise_multiplier * max_grad_norm`` (``opacus/optimizers/optimizer.py``), in the parameter's
dtype (float32); ``step`` then divides by the expected batch size (post-processing, 1 here).
Clipping bounds one example's contribution to ``summed_grad`` by ``max_grad_norm`` in L2 norm, so
the mechanism audited is ``g + N(0, std^2 I)`` on float32 tensors with neighbours ``g = 0`` and
``g = max_grad_norm * e_1``, claiming ``rho = max_grad_norm^2 / (2 std^2)``-zCDP (the Gaussian
mechanism; Bun and Steinke 2016, Proposition 1.6).  Both are taken with ``max_grad_norm = 1``.

``_generate_noise`` draws with ``torch.normal``; with ``secure_mode=True`` it throws one draw away
and returns the sum of four draws halved, the mitigation of Holohan and Braghin ("Secure random
sampling in differential privacy", ESORICS 2021) against attacks on the sampler.  Neither version
escapes the rounding of the sum: ``g + noise`` is rounded to float32, so outputs near 0 are
coarse multiples of ``2**-24`` when ``g = 1`` and fine when ``g = 0`` (Mironov, CCS 2012; the
precision-based attacks of Haney et al. 2022).  Opacus issue #616 ("Opacus uses unsafe
floating-point noise generation, even with secure_mode=True", pytorch/opacus) reports it; the
secure mode answered Jin et al. ("Are we there yet? Timing and floating-point attacks on
differential privacy systems", S&P 2022), who attacked the sampler's own gaps.

Vectors: torch samples a float32 tensor of 16 or more elements with a vectorised Box-Muller of
its own, so the vector rows use a 16-element gradient, released whole; the black-box privacy test
reads vector outputs through each coordinate, their sum and their L2 norm.  The black-box
distribution test needs a law over listed outputs, which a continuous law has not, so only the
privacy test runs.

Each draw process seeds its own ``torch.Generator`` from ``random`` (which the black-box draw
seeds from the budget's seed), so a run replays and the two inputs' draws are independent.
"""

from __future__ import annotations

import os
import random
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from dpverify.specs import Integer, Rational
from dpverify.specs._api import Case, Input, Spec
from dpverify.specs._claims import Zcdp
from dpverify.verify.survey._primitive import Library, Primitive, black_box_audit

__all__ = ["LIBRARY", "OPACUS_GAUSSIAN", "opacus_noisy_gradient", "primitives"]

LIBRARY = Library(
    name="opacus",
    module="opacus",
    # torch's CPU build wherever pip is offered it: 2.13.0+cpu, a local version, outranks 2.13.0
    # when a find-links or an extra index (https://download.pytorch.org/whl/cpu) has it; the
    # environment is then 1.3 GB, against 5.7 GB with PyPI's build and its CUDA libraries
    requirements=("opacus==1.6.0", "torch==2.13.*"),
    about="Meta's DP-SGD for PyTorch; its Gaussian noise on clipped gradients is float32 torch.normal",
)

#: One generator per draw process: (process id, generator).
_GENERATOR: dict[str, Any] = {}
#: One optimizer per draw process and parameters: (process id, sigma, length, secure) -> (optimizer, parameter).
_OPTIMIZERS: dict[tuple[int, float, int, int], tuple[Any, Any]] = {}


def _generator() -> Any:
    import torch

    if _GENERATOR.get("pid") != os.getpid():
        generator = torch.Generator()
        generator.manual_seed(random.getrandbits(63))
        _GENERATOR.update(pid=os.getpid(), generator=generator)
    return _GENERATOR["generator"]


def _optimizer(sigma: Fraction, length: int, secure: int) -> tuple[Any, Any]:
    """A ``DPOptimizer`` over one float32 parameter of ``length`` elements (0-d for 0), and that
    parameter, made once per draw process (its generator is the process's own)."""
    key = (os.getpid(), float(sigma), length, secure)  # a forked process makes its own, on its own generator
    if key not in _OPTIMIZERS:
        import torch
        from opacus.optimizers.optimizer import DPOptimizer

        generator = _generator()
        parameter = torch.nn.Parameter(torch.zeros(() if length == 0 else (length,), dtype=torch.float32))
        optimizer = DPOptimizer(
            torch.optim.SGD([parameter], lr=0.0),
            noise_multiplier=float(sigma),
            max_grad_norm=1.0,
            expected_batch_size=1,
            loss_reduction="sum",
            generator=generator,
            secure_mode=bool(secure),
        )
        _OPTIMIZERS[key] = (optimizer, parameter)
    return _OPTIMIZERS[key]


def opacus_noisy_gradient(
    x: int | tuple[int, ...], sigma: Fraction, length: int, secure: int
) -> float | tuple[float, ...]:
    """What ``DPOptimizer.add_noise()`` releases as ``p.grad`` for the clipped, summed float32 gradient
    ``g = x``: a 0-d tensor for an int ``x`` (``length`` 0), else a vector of ``length`` elements."""
    import torch

    optimizer, parameter = _optimizer(sigma, length, secure)
    parameter.summed_grad = torch.tensor(x, dtype=torch.float32)  # a new tensor: not yet marked processed
    optimizer.add_noise()
    noisy = parameter.grad
    return float(noisy.item()) if length == 0 else tuple(noisy.tolist())


def _inputs(p: Mapping[str, Any]) -> tuple[int, int] | tuple[tuple[int, ...], tuple[int, ...]]:
    """``0`` and ``1``, or the zero vector and the first unit vector (L2 distance 1)."""
    length = p["length"]
    if length == 0:
        return 0, 1
    return (0,) * length, (1,) + (0,) * (length - 1)


OPACUS_GAUSSIAN = Spec(
    name="opacus-gaussian",
    sampler=opacus_noisy_gradient,
    parameters={
        "sigma": Rational(0, low_open=True, search=(Fraction(1, 2), 4)),
        "length": Integer(0, 10**4, search=(0, 32)),
        "secure": Integer(0, 1),
    },
    input=Input("x", values=_inputs, neighbours=lambda p: [_inputs(p)]),
    claim=lambda p: Zcdp(rho=1 / (2 * p["sigma"] ** 2)),
    randomness="none",
    description="Opacus' DP-SGD noise as DPOptimizer.add_noise releases it: p.grad = g + _generate_noise(sigma, g)",
    citation="Opacus 1.6.0, opacus.optimizers.optimizer.DPOptimizer.add_noise and _generate_noise; "
    "Bun and Steinke 2016, Proposition 1.6; Mironov, CCS 2012; opacus issue #616",
    cases=tuple(
        Case(
            {"sigma": 1, "length": length, "secure": secure},
            "violated",
            "float32 sums near 0 are coarse when g[0] = 1 and fine when g[0] = 0",
            label=f"sigma=1, length={length}, secure_mode={bool(secure)}",
        )
        for length in (0, 16)
        for secure in (0, 1)
    ),
)


def primitives() -> list[Primitive]:
    rows = []
    for case in OPACUS_GAUSSIAN.cases:
        length, secure = case.parameters["length"], case.parameters["secure"]
        shape = (
            "a 0-d float32 gradient, x in {0, 1}"
            if length == 0
            else (
                f"a float32 gradient of {length} elements, x in {{(0,...,0), (1,0,...,0)}} (L2 distance 1), "
                "the whole vector released"
            )
        )
        rows.append(
            Primitive(
                f"optimizers.optimizer.DPOptimizer.add_noise (secure_mode={bool(secure)}, "
                f"{'0-d tensor' if length == 0 else f'{length}-element tensor'})",
                "Gaussian",
                f"std = noise_multiplier * max_grad_norm = 1, max_grad_norm = 1, {shape}; claim 1/2-zCDP",
                "black box",
                black_box_audit(OPACUS_GAUSSIAN, case),
                randomness="seeded",  # a torch.Generator seeded from Python's random, which each draw process seeds
            )
        )
    return rows
