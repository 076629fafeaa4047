"""The SmartNoise findings: SmartNoise Core's float Laplace (Haney et al. 2022) and smartnoise-synth's
``DPcovariance``, whose release is computed on the unclipped data (smartnoise-sdk#622)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: The neighbours of the covariance audit: column ``a`` (``b`` is all zeros), both declared in [0, 1], n = 4
#: rows; D' replaces the record 1 of D by 100, far outside the declared range (the library's n is fixed:
#: bounded DP).  Clipped to [0, 1], D' is D: a release computed on the clipped data has the same law on both.
COVARIANCE_D = (0.0, 0.0, 0.0, 1.0)
COVARIANCE_D_PRIME = (0.0, 0.0, 0.0, 100.0)


def _smartnoise_core_laplace(version: str, seed: int, samples: int) -> dict[str, Any]:
    """SmartNoise Core's ``dp_sum(..., mechanism='Laplace', privacy_usage={'epsilon': 1.0})`` of one record
    clamped to [0, 1] (sensitivity 1), inside ``sn.Analysis(protect_floating_point=False)``, as a black box
    at x = 0 and x = 1.  The library's default, ``protect_floating_point=True``, refuses this mechanism
    ("The laplace mechanism is susceptible to floating-point attacks") and uses the snapping mechanism:
    the released value with the protection off is not documented as private against such attacks, so a
    violation found here is reported as a hazard of that setting."""
    import warnings

    import bench_known_findings as bench
    import numpy as np
    import opendp.smartnoise.core as sn

    from dpverify.specs._claims import PureDp

    def release(x: int) -> float:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with sn.Analysis(protect_floating_point=False) as analysis:
                data = sn.Dataset(value=[[float(x)]], value_format="array")
                column = sn.impute(
                    sn.clamp(
                        sn.resize(sn.to_float(data), number_columns=1, number_rows=1, lower=0.0, upper=1.0),
                        lower=0.0,
                        upper=1.0,
                    )
                )
                noisy = sn.dp_sum(column, mechanism="Laplace", privacy_usage={"epsilon": 1.0})
            analysis.release()
        return float(np.asarray(noisy.value, dtype=float).ravel()[0])

    # one Analysis per release (about 20 ms each): 6000 draws per input certify the break in ~2 minutes
    found = bench._black_box("smartnoise-core-laplace", release, PureDp(epsilon=1), seed, min(samples, 6000))
    if found["verdict"] == "violated":
        found["verdict"] = "hazard"
        found["method"] = "black box (protect_floating_point=False; the default refuses Laplace)"
    return found


def _covariance_release(version: str) -> Callable[[tuple[float, ...]], float]:
    """``DPcovariance(4, ['a', 'b'], rng, global_eps=1).release(df)``, both columns declared in [0, 1]: its first
    entry, the released variance of ``a`` (the release is [var a, cov ab, var b], epsilon 1/3 each, Laplace
    scale (2/n) / (1/3) = 1.5).  A coordinate of the release is post-processing of it: a violation of 1-DP
    there is one of the whole release."""
    import pandas as pd

    try:
        from snsynth.models.dp_covariance import DPcovariance
    except ImportError:  # 1.0.5: snsynth.models imports a removed scikit-learn module; the file itself does not
        import importlib.util
        from pathlib import Path

        import snsynth

        path = Path(snsynth.__file__).parent / "models" / "dp_covariance.py"
        spec = importlib.util.spec_from_file_location("snsynth_dp_covariance", path)
        module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
        spec.loader.exec_module(module)  # type: ignore[union-attr]
        DPcovariance = module.DPcovariance  # noqa: N806 - the library's class name

    def release(dataset: tuple[float, ...]) -> float:
        bounds = pd.DataFrame({"a": [0.0, 1.0], "b": [0.0, 1.0]})  # the declared ranges: rows lower, upper
        model = DPcovariance(len(dataset), ["a", "b"], bounds, 1.0)
        return float(model.release(pd.DataFrame({"a": list(dataset), "b": [0.0] * len(dataset)}))[0])

    return release


def _snsynth_covariance(version: str, seed: int, samples: int) -> dict[str, Any]:
    """smartnoise-synth's ``DPcovariance.release`` on neighbours whose column ``a`` is [0, 0, 0, 1] and
    [0, 0, 0, 100] (declared in [0, 1], n = 4, global_eps = 1), its released variance of ``a`` as a black box
    on the library's own randomness (numpy's global generator, seeded per process), claimed 1-DP.  Clipped,
    both variances are 0.25; unclipped, D' has 2500: a shift of 2499.75, the declared sensitivity is 2/n = 0.5."""
    import bench_known_findings as bench

    from dpverify.specs._claims import PureDp

    release = _covariance_release(version)
    neighbours = {0: COVARIANCE_D, 1: COVARIANCE_D_PRIME}
    # each input draws in a forked process whose numpy global generator is seeded with seed + input

    def sampler(x: int) -> float:
        return release(neighbours[x])

    return bench._black_box("snsynth-dp-covariance", sampler, PureDp(epsilon=1), seed, min(samples, 10000))


AUDITS: dict[str, Callable[[str, int, int], dict[str, Any]]] = {
    "haney-smartnoise-core-laplace": _smartnoise_core_laplace,
    "cebere-snsynth-622-covariance": _snsynth_covariance,
}
