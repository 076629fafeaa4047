"""Procedure summaries against renewal alone: published samplers to 10^-12, plain samplers as tight as marked ones.

    .venv/bin/python bench/bench_published_samplers.py [--skip-diffprivlib]

Three tables, each against a baseline measured in the same run (``U`` is the exact unexplored mass:
every output's probability is known within ``U``; seconds are wall-clock on this machine):

1. **CKS20's reference code, unmodified** (``examples/published/cks20``, ``rng=RandomCompat(source)``):
   ``sample_dlaplace`` at scale 1, 3/2, 10 and ``sample_dgauss`` at sigma2 1/2, 1, 2, 10.  The
   baseline is renewal alone (``renewal=True``, each call of a subroutine walked inside every loop)
   at ``min_mass = 10^-6``; then procedure summaries (``procedures=True``) at the same budget, and at
   the budget that meets the target: ``U <= 10^-12`` for the discrete Laplace, ``U <= 10^-9`` in under
   10 s for the discrete Gaussian.  Every run is judged against the ideal PMF.
2. **The catalogue's samplers with their hand marks ignored** (``until_accepted``, ``subroutine`` run
   as written): each built-in spec with a bounded enumeration, at its first case and its own
   ``min_mass``, with the marks (the catalogue's way) and without them (renewal and summaries only).
3. **diffprivlib's GaussianDiscrete** at 4-bit floats (needs ``pip install 'dpverify[diffprivlib]'``):
   renewal alone against summaries at ``min_mass = 10^-7``.  The other mechanisms dpverify audits in
   diffprivlib (Laplace, Geometric, GeometricTruncated) make one pass of a few draws and call no
   function that draws twice: summaries leave them as they are.

Exits 1 if a target is missed or a verdict is not ``proved``.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import sys
import time
import warnings
from fractions import Fraction
from pathlib import Path

from dpverify.specs import Bounded, DiscreteGaussianSpec, DiscreteLaplaceSpec
from dpverify.verify.engine._enumerate import enumerate_outputs
from dpverify.verify.engine._intervals import decimal_text, judge_intervals
from dpverify.verify.engine._random_compat import RandomCompat

ROOT = Path(__file__).resolve().parents[1]
BASELINE_MIN_MASS = Fraction(1, 10**6)
TARGETS = {
    "sample_dlaplace": (Fraction(1, 10**14), Fraction(1, 10**12), None),
    "sample_dgauss": (Fraction(1, 10**12), Fraction(1, 10**9), 10.0),
}


def _reference():
    spec = importlib.util.spec_from_file_location("cks20_specs", ROOT / "examples" / "published" / "cks20_specs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module.REFERENCE


def _timed(sampler, **options):  # noqa: ANN001, ANN003, ANN202
    started = time.perf_counter()
    found = enumerate_outputs(sampler, max_paths=5_000_000, **options)
    return found, time.perf_counter() - started


def published(reference) -> bool:  # noqa: ANN001
    print("1. CKS20 reference code, unmodified: renewal alone (baseline) and procedure summaries")
    print(
        f"{'sampler':16} {'case':10} | {'renewal, 1e-6: U':>17} {'paths':>7} {'s':>6} | {'summaries, 1e-6: U':>18} "
        f"{'paths':>5} {'s':>5} {'U ratio':>8} | {'target mass':>11} {'U':>9} {'paths':>5} {'s':>5}  met"
    )
    ok = True
    cases = [("sample_dlaplace", DiscreteLaplaceSpec, "scale", p) for p in ("1", "3/2", "10")]
    cases += [("sample_dgauss", DiscreteGaussianSpec, "sigma2", p) for p in ("1/2", "1", "2", "10")]
    for name, spec_class, key, text in cases:
        parameter, function, spec = Fraction(text), getattr(reference, name), spec_class.create(text)

        def sampler(rng, function=function, parameter=parameter):  # noqa: ANN001, ANN202
            return function(parameter, rng=RandomCompat(rng))

        base, base_s = _timed(sampler, min_mass=BASELINE_MIN_MASS, renewal=True)
        same, same_s = _timed(sampler, min_mass=BASELINE_MIN_MASS, renewal=True, procedures=True)
        mass, target, seconds = TARGETS[name]
        tight, tight_s = _timed(sampler, min_mass=mass, renewal=True, procedures=True)
        verdicts = {
            judge_intervals(f, spec.ideal_probability, spec.outputs_for_check()).verdict.value
            for f in (base, same, tight)
        }
        met = tight.unexplored <= target and (seconds is None or tight_s < seconds) and verdicts == {"proved"}
        ok &= met
        ratio = float(base.unexplored / same.unexplored) if same.unexplored else float("inf")
        print(
            f"{name:16} {key}={text:<{9 - len(key)}} | {decimal_text(base.unexplored, 3):>17} {base.paths:>7} "
            f"{base_s:6.2f} | {decimal_text(same.unexplored, 3):>18} {same.paths:>5} {same_s:5.2f} {ratio:7.0f}x | "
            f"{'1e-' + str(len(str(mass.denominator)) - 1):>11} {decimal_text(tight.unexplored, 3):>9} "
            f"{tight.paths:>5} {tight_s:5.2f}  {'yes' if met else 'NO'}",
            flush=True,
        )
    print("   targets: sample_dlaplace U <= 1e-12; sample_dgauss U <= 1e-9 in under 10 s; every verdict proved\n")
    return ok


def catalogue() -> bool:
    from dpverify.verify.gate._catalogue import SPECS
    from dpverify.verify.gate._spec_checks import _Instance

    print("2. The catalogue's samplers, hand marks ignored (renewal and summaries only), at each spec's min_mass")
    print(
        f"{'spec':32} {'case':22} {'min_mass':>9} | {'marked: U':>10} {'s':>5} | {'unmarked: U':>11} {'s':>5} | ratio"
    )
    ok = True
    for spec in SPECS:
        enumeration = spec.enumeration_for()
        if not isinstance(enumeration, Bounded) or not spec.cases or spec.sampler is None:
            continue
        case = spec.cases[0]
        instance = _Instance(spec, spec.bind(case), spec.name, seed=0, samples=1)
        q = None if instance.inputs is None else instance.inputs[0]

        def sampler(rng, instance=instance, q=q):  # noqa: ANN001, ANN202
            return instance.run(q, rng)

        marked, marked_s = _timed(sampler, min_mass=enumeration.min_mass, summarise=True)
        plain, plain_s = _timed(sampler, min_mass=enumeration.min_mass, renewal=True, procedures=True)
        ratio = float(plain.unexplored / marked.unexplored) if marked.unexplored else float("inf")
        ok &= plain.unexplored <= max(enumeration.max_unexplored or 1, marked.unexplored)
        label = case.label or ",".join(f"{k}={v}" for k, v in case.params.items())
        print(
            f"{spec.name:32} {label[:22]:22} {str(enumeration.min_mass):>9} | {decimal_text(marked.unexplored, 3):>10} "
            f"{marked_s:5.2f} | {decimal_text(plain.unexplored, 3):>11} {plain_s:5.2f} | {ratio:.2f}",
            flush=True,
        )
    print("   ratio: U unmarked / U marked; a plain sampler must meet its spec's tolerance unmarked too\n")
    return ok


def diffprivlib_gaussian() -> bool:
    try:
        import diffprivlib.mechanisms as mechanisms
    except ImportError:
        print("3. skipped: needs diffprivlib (pip install 'dpverify[diffprivlib]')")
        return True
    from dpverify.samplers import SeededRandomSource

    bits, mass = 4, Fraction(1, 10**7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mechanism = mechanisms.GaussianDiscrete(
            epsilon=0.5, delta=1e-5, sensitivity=1, random_state=RandomCompat(SeededRandomSource(1))
        )

    def sampler(rng):  # noqa: ANN001, ANN202
        mechanism._rng = RandomCompat(rng, float_bits=bits)
        return mechanism.randomise(0)

    print(
        f"3. diffprivlib {getattr(mechanisms, '__version__', '')}GaussianDiscrete(epsilon=0.5, delta=1e-5), "
        f"randomise(0), random() on a 2^-{bits} grid, min_mass {mass}"
    )
    base, base_s = _timed(sampler, min_mass=mass, renewal=True)
    summarised, summarised_s = _timed(sampler, min_mass=mass, renewal=True, procedures=True)
    for label, found, seconds in (("renewal alone", base, base_s), ("summaries", summarised, summarised_s)):
        print(
            f"   {label:14} U = {decimal_text(found.unexplored, 3):>9}  {found.paths:>7} paths  {seconds:6.1f} s  "
            f"{'; '.join(f'{k}: {v}' for k, v in found.procedures.items())}"
        )
    print(
        f"   U ratio {float(base.unexplored / summarised.unexplored):.1f}x; the bias coin "
        "bernoulli_neg_exp(gamma, rng) is summarised per gamma (its float draws stay 2^k-way branches)\n"
    )
    return summarised.unexplored < base.unexplored


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-diffprivlib", action="store_true", help="leave out table 3 (about 2 minutes)")
    args = parser.parse_args(argv)
    print(f"{os.cpu_count()} cores, Python {platform.python_version()}\n")
    ok = published(_reference())
    ok &= catalogue()
    if not args.skip_diffprivlib:
        ok &= diffprivlib_gaussian()
    print("all targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
