"""The documented contract each survey row audits: what the library promises about the value it releases,
and where it says so.

A survey row runs a library's noise primitive and judges it against a privacy claim.  That judgement
means something to the library's maintainers only when the claim is one the library makes: so every row
(keyed, like the table, by library and primitive) cites here the public call that releases the audited
value, the documented promise in a short quote or close paraphrase, and where it is stated (a file of
the installed package with the line of the quoted sentence, a docstring compiled into an extension, or a
documentation address the package itself cites).

- A row whose value the library documents as differentially private (``private``) that fails names the
  promise that fails: a violated documented contract, reportable upstream as a bug.
- A row whose value the library does *not* promise private (numpy's Laplace, which is a sampler and
  nothing more; Opacus without ``secure_mode``, which its documentation says is not hardened against
  floating-point attacks) can only be a hazard: a warning to whoever relies on it, not a broken promise.

A ``source`` lists its citations separated by ``"; "``, each one of:

- ``pkg/path.py:N``: line ``N`` of that file of the installed package, at the version of
  :data:`CITED_VERSIONS` (the sentence quoted in ``promise`` is there, within a line or two);
- ``dotted.name.__doc__``: a docstring the package compiles into an extension module (no source file is
  installed), read at run time;
- an ``https://`` address: the package's homepage, or a document its own docstrings or metadata cite.

Line numbers move between versions: :data:`CITED_VERSIONS` says which version each package's lines are of.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CITED_VERSIONS", "CONTRACTS", "Contract", "contract_of"]


@dataclass(frozen=True, slots=True)
class Contract:
    """What a library documents about the value one survey row audits.

    ``release``: the public call that releases the value; ``promise``: what the documentation says the
    call guarantees (quoted or closely paraphrased); ``source``: where it says so (see the module's
    docstring for the forms); ``private``: whether the library documents the released value as
    differentially private, so that a failure violates a documented promise rather than exposing a hazard.
    """

    release: str
    promise: str
    source: str
    private: bool


#: Each cited package (its import name) with its distribution and the version its cited lines are of: the
#: versions the survey audits (``_lib_*.py``'s requirements; numpy's and OpenDP's as installed for it).
CITED_VERSIONS: dict[str, tuple[str, str]] = {
    "diffprivlib": ("diffprivlib", "0.6.6"),
    "opendp": ("opendp", "0.16.0"),
    "numpy": ("numpy", "2.4.6"),
    "tmlt.core": ("tmlt-core", "0.20.0"),
    "pydp": ("python-dp", "1.1.5"),
    "pipeline_dp": ("pipeline-dp", "0.3.1"),
    "opacus": ("opacus", "1.6.0"),
    "snsql": ("smartnoise-sql", "1.0.10"),
}

_DIFFPRIVLIB_HOME = "https://github.com/IBM/differential-privacy-library"
_OPENDP_MEASUREMENT = "opendp/mod.py:88"
# OpenDP adds integer noise in big integers and casts the sum back to the input type with a saturating cast
# (``then_saturating_cast``, a ``#[proven]`` post-processor in the Rust crate's
# rust/src/measurements/noise/nature/integer/mod.rs, whose ``SaturatingCast`` returns clamp(v, MIN, MAX)).
# Neither the Python docstring nor the Rust doc comment of make_laplace/make_gaussian mentions it.
_OPENDP_SATURATION = (
    "the noisy big integer is cast back to T with a saturating cast (then_saturating_cast, a proven "
    "post-processor in the Rust source, not mentioned in make_*'s docstrings)"
)
_TMLT_DOCS = "https://docs.tmlt.dev/core/latest/"
_TMLT = "tmlt/core/measurements/noise_mechanisms.py"
_PYDP_HOME = "https://github.com/OpenMined/PyDP"
_PYDP_MECHANISM = "pydp.algorithms.numerical_mechanisms.NumericalMechanism.__doc__"
_PYDP_MECHANISM_PROMISE = (
    "python-dp's NumericalMechanism is the 'Base class for all (epsilon, delta)-differenially [sic] private "
    "additive noise numerical mechanisms'"
)
_PIPELINEDP_ADDITIVE = (
    "pipeline_dp/dp_computations.py:446; pipeline_dp/dp_computations.py:451; pipeline_dp/budget_accounting.py:49"
)
_PIPELINEDP_ADDITIVE_PROMISE = (
    "'Base class for addition DP mechanism (like Laplace of Gaussian)' [sic]; add_noise 'Anonymizes value by "
    "adding noise' and returns a float (it hands python-dp 1.0 * value, so a count takes the double path); "
    "the MechanismSpec's '(_eps, _delta) are parameters of (eps, delta)-differential privacy'"
)
# secure_mode=False: Opacus promises DP-SGD in general, but says only secure_mode=True "prevents certain
# floating-point arithmetic-based attacks" and warns that without it training is fit for experimentation, not
# production.  The float32 leak the survey finds is such an attack, so those rows are hazards, not violations.
_OPACUS_INSECURE_RELEASE = (
    "opacus.PrivacyEngine(secure_mode=False).make_private(module=..., optimizer=..., data_loader=..., "
    "noise_multiplier=..., max_grad_norm=...): every step, DPOptimizer.add_noise() sets p.grad = p.summed_grad + "
    "_generate_noise(noise_multiplier * max_grad_norm, p.summed_grad, secure_mode=False), in the gradient's dtype"
)
_OPACUS_INSECURE_PROMISE = (
    "PrivacyEngine is there 'to enable differential privacy for your model training', but secure_mode is to be "
    "set 'to True if cryptographically strong DP guarantee is required': only secure_mode=True 'prevents certain "
    "floating-point arithmetic-based attacks', and without it Opacus warns 'Secure RNG turned off. This is "
    "perfectly fine for experimentation ... turn it on and retrain one last time before production'. No "
    "protection against floating-point attacks is documented for secure_mode=False"
)
_OPACUS_INSECURE_SOURCE = (
    "opacus/privacy_engine.py:44; opacus/privacy_engine.py:75; opacus/privacy_engine.py:78; "
    "opacus/privacy_engine.py:99; https://opacus.ai"
)
# secure_mode=True: PrivacyEngine then draws from torchcsprng; the survey calls _generate_noise with a seeded
# torch.Generator instead, which does not matter to the finding (the leak is the float32 rounding of g + noise).
_OPACUS_SECURE_RELEASE = (
    "opacus.PrivacyEngine(secure_mode=True).make_private(module=..., optimizer=..., data_loader=..., "
    "noise_multiplier=..., max_grad_norm=...) (torchcsprng's generator): every step, DPOptimizer.add_noise() sets "
    "p.grad = p.summed_grad + _generate_noise(noise_multiplier * max_grad_norm, p.summed_grad, secure_mode=True), "
    "in the gradient's dtype"
)
_OPACUS_SECURE_PROMISE = (
    "'If `secure_mode` is enabled, the generated noise is also secure against the floating point representation "
    "attacks' (arXiv 2107.10138, 2112.05307), by summing 2n = 4 Gaussian draws; DPOptimizer's secure_mode 'uses "
    "noise generation approach robust to floating point arithmetic attacks'; PrivacyEngine: secure_mode=True is "
    "for a 'cryptographically strong DP guarantee'. (The docstring's attack-complexity argument takes 'In "
    "PyTorch, `p=53`', double precision, where DP-SGD gradients and noise are float32)"
)
_OPACUS_SECURE_SOURCE = (
    "opacus/optimizers/optimizer.py:122; opacus/optimizers/optimizer.py:226; opacus/optimizers/optimizer.py:134; "
    "opacus/privacy_engine.py:75; https://opacus.ai"
)
_SNSQL_READER = (
    "snsql.from_df(df, privacy=snsql.Privacy(epsilon=..., delta=...), metadata=...).execute(query): the "
    "PrivateReader calls "
)
_SNSQL_HOME = "https://smartnoise.org"

CONTRACTS: dict[tuple[str, str], Contract] = {
    ("diffprivlib", "Laplace (mechanisms.Laplace)"): Contract(
        release="diffprivlib.mechanisms.Laplace(epsilon=epsilon, sensitivity=sensitivity).randomise(value)",
        promise="the classical Laplace mechanism, with support for (epsilon, delta)-differential privacy "
        "(pure epsilon-DP at the default delta=0); samples use 4 uniform variates 'to prevent against "
        "reconstruction attacks due to limited floating point precision' (Holohan and Braghin 2021)",
        source=f"diffprivlib/mechanisms/laplace.py:34; diffprivlib/mechanisms/laplace.py:37; {_DIFFPRIVLIB_HOME}",
        private=True,
    ),
    ("diffprivlib", "Geometric (mechanisms.Geometric)"): Contract(
        release="diffprivlib.mechanisms.Geometric(epsilon=epsilon, sensitivity=sensitivity).randomise(value)",
        promise="'The classic geometric mechanism for differential privacy, as first proposed by Ghosh, "
        "Roughgarden and Sundararajan': pure epsilon-DP ('Delta must be zero'); an int in, an int out",
        source=f"diffprivlib/mechanisms/geometric.py:31; diffprivlib/mechanisms/geometric.py:74; {_DIFFPRIVLIB_HOME}",
        private=True,
    ),
    ("diffprivlib", "GeometricTruncated (mechanisms.GeometricTruncated)"): Contract(
        release="diffprivlib.mechanisms.GeometricTruncated(epsilon=epsilon, sensitivity=sensitivity, lower=lower, "
        "upper=upper).randomise(value)",
        promise="'The truncated geometric mechanism, where values that fall outside a pre-described range are "
        "mapped back to the closest point within the range': a documented clamp to [lower, upper] after "
        "'the classic geometric mechanism for differential privacy' (pure epsilon-DP)",
        source=f"diffprivlib/mechanisms/geometric.py:118; diffprivlib/mechanisms/geometric.py:31; {_DIFFPRIVLIB_HOME}",
        private=True,
    ),
    ("opendp", "make_laplace (T=int)"): Contract(
        release="opendp.measurements.make_laplace(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale)(x) "
        "(OpenDP 0.16 reads T=int as i32)",
        promise="a Measurement, 'A differentially private unit of computation', that adds Laplace(scale) noise, "
        "'Internally, all sampling is done using the discrete Laplace distribution'; its measure: 'Valid values "
        f"are just MaxDivergence' (pure DP, epsilon = d_in / scale); {_OPENDP_SATURATION}",
        source="opendp/measurements.py:766; opendp/measurements.py:734; "
        f"{_OPENDP_MEASUREMENT}; https://docs.rs/opendp/0.16.0/opendp/measurements/fn.make_laplace.html; "
        "https://docs.opendp.org/en/v0.16.0/proofs/rust/src/measurements/noise/distribution/laplace/make_laplace.pdf",
        private=True,
    ),
    ("opendp", "make_gaussian (T=int)"): Contract(
        release="opendp.measurements.make_gaussian(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale)(x) "
        "(OpenDP 0.16 reads T=int as i32)",
        promise="a Measurement, 'A differentially private unit of computation', that adds Gaussian(scale) noise "
        "(the discrete Gaussian on integers); 'The only valid measure is ZeroConcentratedDivergence' (rho-zCDP, "
        f"rho = (d_in / scale)^2 / 2); {_OPENDP_SATURATION}",
        source="opendp/measurements.py:382; "
        f"{_OPENDP_MEASUREMENT}; https://docs.rs/opendp/0.16.0/opendp/measurements/fn.make_gaussian.html; "
        "https://docs.opendp.org/en/v0.16.0/proofs/rust/src/measurements/noise/distribution/gaussian/make_gaussian.pdf",
        private=True,
    ),
    ("opendp", "make_gaussian (T=i32)"): Contract(
        release="opendp.measurements.make_gaussian(dp.atom_domain(T='i32'), dp.absolute_distance(T='i32'), scale)(x)",
        promise="a Measurement, 'A differentially private unit of computation', that adds Gaussian(scale) noise "
        "(the discrete Gaussian on integers); 'The only valid measure is ZeroConcentratedDivergence' (rho-zCDP, "
        f"rho = (d_in / scale)^2 / 2); {_OPENDP_SATURATION}: outputs beyond the i32 range sit on -2^31 and "
        "2^31 - 1, post-processing of the proven measurement, not a breach of it",
        source="opendp/measurements.py:382; "
        f"{_OPENDP_MEASUREMENT}; https://docs.rs/opendp/0.16.0/opendp/measurements/fn.make_gaussian.html; "
        "https://docs.opendp.org/en/v0.16.0/proofs/rust/src/measurements/noise/distribution/gaussian/make_gaussian.pdf",
        private=True,
    ),
    ("numpy", "random.laplace added to x in doubles"): Contract(
        release="numpy releases nothing: the release is the user's own x + numpy.random.laplace(0, 1/epsilon), "
        "in doubles",
        promise="'Draw samples from the Laplace or double exponential distribution with specified location (or "
        "mean) and scale (decay)' (a legacy function: new code 'should use' Generator.laplace); numpy documents "
        "no privacy guarantee, for the draw or for x plus it",
        source="numpy.random.laplace.__doc__; https://numpy.org/doc/",
        private=False,
    ),
    ("numpy", "random.laplace added to x in doubles (the event's mass)"): Contract(
        release="numpy releases nothing: the release is the user's own x + numpy.random.laplace(0, 1/epsilon), "
        "in doubles",
        promise="'Draw samples from the Laplace or double exponential distribution with specified location (or "
        "mean) and scale (decay)' (a legacy function: new code 'should use' Generator.laplace); numpy documents "
        "no privacy guarantee, for the draw or for x plus it",
        source="numpy.random.laplace.__doc__; https://numpy.org/doc/",
        private=False,
    ),
    ("tmlt-core", "AddDiscreteGaussianNoise (random.discrete_gaussian.sample_dgauss)"): Contract(
        release="tmlt.core.measurements.noise_mechanisms.AddDiscreteGaussianNoise(sigma_squared)(value) "
        "(int(value) + sample_dgauss(sigma_squared))",
        promise="a Measurement with output_measure=RhoZCDP() whose privacy_function 'Returns the smallest d_out "
        "satisfied by the measurement': d_in^2 / (2 sigma^2) (Bun and Steinke 2016, Proposition 1.6); the noise "
        "is the discrete Gaussian of Canonne, Kamath and Steinke 2020 (Definition 1)",
        source=f"{_TMLT}:358; {_TMLT}:388; {_TMLT_DOCS}",
        private=True,
    ),
    ("tmlt-core", "AddGeometricNoise, alpha < 10 (difference of two _sample_geometric_exp_slow)"): Contract(
        release="tmlt.core.measurements.noise_mechanisms.AddGeometricNoise(alpha)(value) (for alpha < 10 the "
        "noise is the difference of two _sample_geometric_exp_slow(1/alpha))",
        promise="a Measurement with output_measure=PureDP() whose privacy_function 'Returns the smallest d_out "
        "satisfied by the measurement': d_in / alpha; the noise is the double-sided geometric with pmf "
        "proportional to e^(-|k|/alpha)",
        source=f"{_TMLT}:198; {_TMLT}:228; {_TMLT_DOCS}",
        private=True,
    ),
    ("tmlt-core", "AddLaplaceNoise (random.laplace, inverse CDF in arb)"): Contract(
        release="tmlt.core.measurements.noise_mechanisms.AddLaplaceNoise(NumpyFloatDomain(), scale)(value) "
        "(tmlt.core.random.laplace.laplace(u=value, b=scale): the inverse CDF in python-flint's arb)",
        promise="'Add Laplace noise to a number': a Measurement with output_measure=PureDP() whose privacy_function "
        "'Returns the smallest d_out satisfied by the measurement': d_in / scale, on a float domain 'without infs "
        "or nans'",
        source=f"{_TMLT}:36; {_TMLT}:65; {_TMLT}:95; {_TMLT_DOCS}",
        private=True,
    ),
    ("python-dp", "numerical_mechanisms.LaplaceMechanism.add_noise (double)"): Contract(
        release="pydp.algorithms.numerical_mechanisms.LaplaceMechanism(epsilon, sensitivity).add_noise(value) on a "
        "float (the overload 'add_noise(self, result: SupportsFloat) -> float')",
        promise=f"{_PYDP_MECHANISM_PROMISE}; the Laplace mechanism has no delta, so epsilon-DP; a float in, a "
        "float out",
        source=f"{_PYDP_MECHANISM}; {_PYDP_HOME}",
        private=True,
    ),
    ("python-dp", "numerical_mechanisms.GaussianMechanism.add_noise (double)"): Contract(
        release="pydp.algorithms.numerical_mechanisms.GaussianMechanism(epsilon, delta, l2_sensitivity).add_noise("
        "value) on a float (the overload 'add_noise(self, result: SupportsFloat) -> float')",
        promise=f"{_PYDP_MECHANISM_PROMISE}: (epsilon, delta)-DP; a float in, a float out",
        source=f"{_PYDP_MECHANISM}; {_PYDP_HOME}",
        private=True,
    ),
    ("python-dp", "numerical_mechanisms.GaussianMechanism.add_noise (int)"): Contract(
        release="pydp.algorithms.numerical_mechanisms.GaussianMechanism(epsilon, delta, l2_sensitivity).add_noise("
        "value) on an int",
        promise=f"{_PYDP_MECHANISM_PROMISE}: (epsilon, delta)-DP; on an int the documented overload is "
        "'result: typing.SupportsInt) -> int' (the noise rounded to an integer)",
        source=f"{_PYDP_MECHANISM}; pydp.algorithms.numerical_mechanisms.NumericalMechanism.add_noise.__doc__; "
        f"{_PYDP_HOME}",
        private=True,
    ),
    ("python-dp", "algorithms.laplacian.Count"): Contract(
        release="pydp.algorithms.laplacian.Count(epsilon=epsilon, dtype='int').quick_result(data)",
        promise="'Count computes the Count of number of items in the dataset, in a differentially private manner' "
        "(epsilon-DP under adding or removing one record, Laplace noise); quick_result 'Consumes 100% of the "
        "privacy budget'",
        source="pydp/algorithms/laplacian/_count.py:10; pydp/algorithms/_algorithm.py:101; " + _PYDP_HOME,
        private=True,
    ),
    ("python-dp", "algorithms.laplacian.BoundedSum (float)"): Contract(
        release="pydp.algorithms.laplacian.BoundedSum(epsilon=epsilon, lower_bound=lower, upper_bound=upper, "
        "dtype='float').quick_result(data)",
        promise="'BoundedSum computes the sum of values in a dataset, in a differentially private manner'; "
        "'Incrementally provides a differentially private sum, clamped between upper and lower values' (inputs "
        "clamped to the bounds; epsilon-DP); quick_result 'Consumes 100% of the privacy budget'",
        source="pydp/algorithms/laplacian/_bounded_algorithms.py:24; pydp/algorithms/_algorithm.py:101; " + _PYDP_HOME,
        private=True,
    ),
    ("python-dp", "algorithms.laplacian.BoundedMean (float)"): Contract(
        release="pydp.algorithms.laplacian.BoundedMean(epsilon=epsilon, lower_bound=lower, upper_bound=upper, "
        "dtype='float').quick_result(data)",
        promise="'BoundedMean computes the average of values in a dataset, in a differentially private manner'; "
        "'Incrementally provides a differentially private average', the inputs 'normalized to be their difference "
        "from the middle of the input range' (epsilon-DP); quick_result 'Consumes 100% of the privacy budget'",
        source="pydp/algorithms/laplacian/_bounded_algorithms.py:7; pydp/algorithms/_algorithm.py:101; " + _PYDP_HOME,
        private=True,
    ),
    ("python-dp", "numerical_mechanisms.LaplaceMechanism.noised_value_above_threshold"): Contract(
        release="pydp.algorithms.numerical_mechanisms.LaplaceMechanism(epsilon, sensitivity)"
        ".noised_value_above_threshold(value, threshold)",
        promise="'Quickly determines if `result` with added noise is above certain `threshold`': one bit of a "
        f"release of the mechanism, whose promise is the class's ({_PYDP_MECHANISM_PROMISE}): epsilon-DP for the "
        "Laplace; the method documents no promise of its own",
        source="pydp.algorithms.numerical_mechanisms.NumericalMechanism.noised_value_above_threshold.__doc__; "
        f"{_PYDP_MECHANISM}; {_PYDP_HOME}",
        private=True,
    ),
    ("python-dp", "partition_selection (truncated_geometric).should_keep"): Contract(
        release="pydp.algorithms.partition_selection.create_partition_strategy('truncated_geometric', epsilon, "
        "delta, max_partitions_contributed).should_keep(num_users)",
        promise="a PartitionSelectionStrategy, 'Base class for all (epsilon, delta)-differenially [sic] private "
        "partition selection strategies'; should_keep 'Decides whether or not to keep a partition with "
        "`num_users` based on differential privacy parameters and strategy' (the truncated geometric of "
        "arXiv 2006.03684)",
        source="pydp/algorithms/partition_selection.py:22; pydp/algorithms/partition_selection.py:27; "
        "pydp/algorithms/partition_selection.py:46; " + _PYDP_HOME,
        private=True,
    ),
    ("pipeline-dp", "dp_computations.create_additive_mechanism (LAPLACE).add_noise"): Contract(
        release="pipeline_dp.dp_computations.create_additive_mechanism(MechanismSpec(MechanismType.LAPLACE, "
        "_eps=epsilon), Sensitivities(l0=..., linf=...)).add_noise(value) (python-dp's LaplaceMechanism)",
        promise=f"{_PIPELINEDP_ADDITIVE_PROMISE}: epsilon-DP for the Laplace",
        source=_PIPELINEDP_ADDITIVE,
        private=True,
    ),
    ("pipeline-dp", "dp_computations.create_additive_mechanism (GAUSSIAN).add_noise"): Contract(
        release="pipeline_dp.dp_computations.create_additive_mechanism(MechanismSpec(MechanismType.GAUSSIAN, "
        "_eps=epsilon, _delta=delta), Sensitivities(l0=..., linf=...)).add_noise(value) (python-dp's "
        "GaussianMechanism on 1.0 * value)",
        promise=f"{_PIPELINEDP_ADDITIVE_PROMISE}: (epsilon, delta)-DP for the Gaussian",
        source=_PIPELINEDP_ADDITIVE,
        private=True,
    ),
    ("pipeline-dp", "partition_selection (TRUNCATED_GEOMETRIC).should_keep"): Contract(
        release="pipeline_dp.partition_selection.create_partition_selection_strategy("
        "PartitionSelectionStrategy.TRUNCATED_GEOMETRIC, epsilon, delta, max_partitions_contributed)"
        ".should_keep(num_privacy_units)",
        promise="'Creates PyDP partition selection object': python-dp's truncated geometric strategy, a "
        "PartitionSelectionStrategy ('Base class for all (epsilon, delta)-differenially [sic] private partition "
        "selection strategies')",
        source="pipeline_dp/partition_selection.py:39; pydp/algorithms/partition_selection.py:22",
        private=True,
    ),
    ("pipeline-dp", "partition_selection (GAUSSIAN_THRESHOLDING).noised_value_if_should_keep"): Contract(
        release="pipeline_dp.partition_selection.create_partition_selection_strategy("
        "PartitionSelectionStrategy.GAUSSIAN_THRESHOLDING, epsilon, delta, max_partitions_contributed)"
        ".noised_value_if_should_keep(num_privacy_units)",
        promise="'Creates PyDP partition selection object', one of python-dp's '(epsilon, delta)-differenially [sic] "
        "private partition selection strategies': it 'Decides whether or not to keep a partition with `num_users` "
        "and returns `num_users` + noise if the partition should be kept' (None "
        "otherwise); PipelineDP's thresholding releases each kept partition 'where the noisy count of "
        "contributing privacy units is >= T', the noise and T derived from (epsilon, delta, l0_sensitivity)",
        source="pipeline_dp/partition_selection.py:39; pipeline_dp/dp_computations.py:836; "
        "pydp._pydp._partition_selection.GaussianPartitionSelectionStrategy.noised_value_if_should_keep.__doc__; "
        "pydp/algorithms/partition_selection.py:22",
        private=True,
    ),
    ("pipeline-dp", "dp_computations.ExponentialMechanism.apply"): Contract(
        release="pipeline_dp.dp_computations.ExponentialMechanism(scoring_function).apply(eps, candidates)",
        promise="'Exponential mechanism that can be used to choose a parameter from a set of possible parameters "
        "in a differentially private way'; apply 'chooses a parameter from the list of possible parameters in a "
        "differentially private way' (eps-DP for the scoring function's global_sensitivity)",
        source="pipeline_dp/dp_computations.py:749; pipeline_dp/dp_computations.py:710",
        private=True,
    ),
    ("opacus", "optimizers.optimizer.DPOptimizer.add_noise (secure_mode=False, 0-d tensor)"): Contract(
        release=_OPACUS_INSECURE_RELEASE,
        promise=_OPACUS_INSECURE_PROMISE,
        source=_OPACUS_INSECURE_SOURCE,
        private=False,
    ),
    ("opacus", "optimizers.optimizer.DPOptimizer.add_noise (secure_mode=True, 0-d tensor)"): Contract(
        release=_OPACUS_SECURE_RELEASE,
        promise=_OPACUS_SECURE_PROMISE,
        source=_OPACUS_SECURE_SOURCE,
        private=True,
    ),
    ("opacus", "optimizers.optimizer.DPOptimizer.add_noise (secure_mode=False, 16-element tensor)"): Contract(
        release=_OPACUS_INSECURE_RELEASE,
        promise=_OPACUS_INSECURE_PROMISE,
        source=_OPACUS_INSECURE_SOURCE,
        private=False,
    ),
    ("opacus", "optimizers.optimizer.DPOptimizer.add_noise (secure_mode=True, 16-element tensor)"): Contract(
        release=_OPACUS_SECURE_RELEASE,
        promise=_OPACUS_SECURE_PROMISE,
        source=_OPACUS_SECURE_SOURCE,
        private=True,
    ),
    ("smartnoise-sql", "sql._mechanisms.Laplace.release"): Contract(
        release=f"{_SNSQL_READER}snsql.sql._mechanisms.Laplace(epsilon, sensitivity=...).release([value]) on each "
        "exact aggregate (OpenDP's make_laplace on atom_domain(T=float), its scale found by OpenDP's "
        "binary_search_param for epsilon)",
        promise="the PrivateReader 'Executes SQL queries against tabular data sources and returns differentially "
        "private results'; the mechanism 'Adds noise to an exact aggregated quantity' with 'epsilon, the total "
        "privacy budget to use per-release' (epsilon-DP; the Laplace ignores delta)",
        source="snsql/sql/private_reader.py:27; snsql/sql/_mechanisms/base.py:13; snsql/sql/_mechanisms/base.py:23; "
        + _SNSQL_HOME,
        private=True,
    ),
    ("smartnoise-sql", "sql._mechanisms.Gaussian.release"): Contract(
        release=f"{_SNSQL_READER}snsql.sql._mechanisms.Gaussian(epsilon, delta=delta, sensitivity=...)"
        ".release([value]) on each exact aggregate (OpenDP's make_gaussian on atom_domain(T=float), its scale "
        "found by OpenDP's binary_search_param for (epsilon, delta) through zCDP)",
        promise="the PrivateReader 'Executes SQL queries against tabular data sources and returns differentially "
        "private results'; the mechanism 'Adds noise to an exact aggregated quantity' with 'epsilon, the total "
        "privacy budget to use per-release' and delta, 'the delta privacy parameter' ((epsilon, delta)-DP)",
        source="snsql/sql/private_reader.py:27; snsql/sql/_mechanisms/base.py:13; snsql/sql/_mechanisms/base.py:23; "
        + _SNSQL_HOME,
        private=True,
    ),
    ("smartnoise-sql", "dpsu.policy_laplace (the released set of keys)"): Contract(
        release="snsql.from_df(df, privacy=..., metadata=...) over a table whose metadata sets use_dpsu, then "
        ".execute('SELECT ... GROUP BY ...'): the PrivateReader runs dpsu.run_dpsu(..., epsilon=1.0), that is "
        "policy_laplace(df, 1.0, exp(-10), 5), and queries only the rows whose group key it keeps",
        promise="'Differentially Private Set Union' (Gopi et al., arXiv 2002.09745): an '(epsilon, "
        "delta)-differentially private algorithm that outputs the largest possible set of the the union of these "
        "items'; the reader runs it at a fixed epsilon=1.0 (run_dpsu's defaults delta = exp(-10), max_contrib = "
        "5), whatever the Privacy object says",
        source="snsql/sql/dpsu.py:38; snsql/sql/dpsu.py:106; snsql/sql/private_reader.py:291; " + _SNSQL_HOME,
        private=True,
    ),
}


def contract_of(library: str, primitive: str) -> Contract | None:
    """The documented contract survey row ``(library, primitive)`` audits, or None for a row without one."""
    return CONTRACTS.get((library, primitive))
