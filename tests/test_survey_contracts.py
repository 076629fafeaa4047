"""The survey's table of documented contracts: one per row, each citing where the library states it, and
each citation checked against the installed library where it is importable (at the cited version)."""

from __future__ import annotations

import importlib
import importlib.metadata
import re
from pathlib import Path

import pytest

from dpverify.verify.survey._contracts import CITED_VERSIONS, CONTRACTS, Contract, contract_of

#: The survey's rows, exactly as the table names them (library, primitive).
ROWS: list[tuple[str, str]] = [
    ("diffprivlib", "Laplace (mechanisms.Laplace)"),
    ("diffprivlib", "Geometric (mechanisms.Geometric)"),
    ("diffprivlib", "GeometricTruncated (mechanisms.GeometricTruncated)"),
    ("opendp", "make_laplace (T=int)"),
    ("opendp", "make_gaussian (T=int)"),
    ("opendp", "make_gaussian (T=i32)"),
    ("numpy", "random.laplace added to x in doubles"),
    ("numpy", "random.laplace added to x in doubles (the event's mass)"),
    ("tmlt-core", "AddDiscreteGaussianNoise (random.discrete_gaussian.sample_dgauss)"),
    ("tmlt-core", "AddGeometricNoise, alpha < 10 (difference of two _sample_geometric_exp_slow)"),
    ("tmlt-core", "AddLaplaceNoise (random.laplace, inverse CDF in arb)"),
    ("python-dp", "numerical_mechanisms.LaplaceMechanism.add_noise (double)"),
    ("python-dp", "numerical_mechanisms.GaussianMechanism.add_noise (double)"),
    ("python-dp", "numerical_mechanisms.GaussianMechanism.add_noise (int)"),
    ("python-dp", "algorithms.laplacian.Count"),
    ("python-dp", "algorithms.laplacian.BoundedSum (float)"),
    ("python-dp", "algorithms.laplacian.BoundedMean (float)"),
    ("python-dp", "numerical_mechanisms.LaplaceMechanism.noised_value_above_threshold"),
    ("python-dp", "partition_selection (truncated_geometric).should_keep"),
    ("pipeline-dp", "dp_computations.create_additive_mechanism (LAPLACE).add_noise"),
    ("pipeline-dp", "dp_computations.create_additive_mechanism (GAUSSIAN).add_noise"),
    ("pipeline-dp", "partition_selection (TRUNCATED_GEOMETRIC).should_keep"),
    ("pipeline-dp", "partition_selection (GAUSSIAN_THRESHOLDING).noised_value_if_should_keep"),
    ("pipeline-dp", "dp_computations.ExponentialMechanism.apply"),
    ("opacus", "optimizers.optimizer.DPOptimizer.add_noise (secure_mode=False, 0-d tensor)"),
    ("opacus", "optimizers.optimizer.DPOptimizer.add_noise (secure_mode=True, 0-d tensor)"),
    ("opacus", "optimizers.optimizer.DPOptimizer.add_noise (secure_mode=False, 16-element tensor)"),
    ("opacus", "optimizers.optimizer.DPOptimizer.add_noise (secure_mode=True, 16-element tensor)"),
    ("smartnoise-sql", "sql._mechanisms.Laplace.release"),
    ("smartnoise-sql", "sql._mechanisms.Gaussian.release"),
    ("smartnoise-sql", "dpsu.policy_laplace (the released set of keys)"),
]

#: The rows whose value the library does not document as differentially private.
NOT_PRIVATE = {
    ("numpy", "random.laplace added to x in doubles"),
    ("numpy", "random.laplace added to x in doubles (the event's mass)"),
    ("opacus", "optimizers.optimizer.DPOptimizer.add_noise (secure_mode=False, 0-d tensor)"),
    ("opacus", "optimizers.optimizer.DPOptimizer.add_noise (secure_mode=False, 16-element tensor)"),
}

#: For each file or docstring cited, phrases of the quoted promise that the cited lines (or docstring) hold:
#: every one must appear there, and in the promise of every row citing it.
ANCHORS: dict[str, tuple[str, ...]] = {
    "diffprivlib/mechanisms/laplace.py:34": ("differential privacy",),
    "diffprivlib/mechanisms/laplace.py:37": ("limited floating point precision",),
    "diffprivlib/mechanisms/geometric.py:31": ("geometric mechanism for differential privacy",),
    "diffprivlib/mechanisms/geometric.py:74": ("Delta must be zero",),
    "diffprivlib/mechanisms/geometric.py:118": ("mapped back to the closest point",),
    "opendp/measurements.py:734": ("all sampling is done using the discrete Laplace",),
    "opendp/measurements.py:766": ("MaxDivergence",),
    "opendp/measurements.py:382": ("The only valid measure is", "ZeroConcentratedDivergence"),
    "opendp/mod.py:88": ("differentially private unit of computation",),
    "numpy.random.laplace.__doc__": ("Laplace or double exponential distribution",),
    "tmlt/core/measurements/noise_mechanisms.py:358": ("RhoZCDP",),
    "tmlt/core/measurements/noise_mechanisms.py:388": ("smallest d_out", "sigma^2"),
    "tmlt/core/measurements/noise_mechanisms.py:198": ("PureDP",),
    "tmlt/core/measurements/noise_mechanisms.py:228": ("smallest d_out", "alpha"),
    "tmlt/core/measurements/noise_mechanisms.py:36": ("Add Laplace noise to a number",),
    "tmlt/core/measurements/noise_mechanisms.py:65": ("PureDP",),
    "tmlt/core/measurements/noise_mechanisms.py:95": ("smallest d_out",),
    "pydp.algorithms.numerical_mechanisms.NumericalMechanism.__doc__": ("additive noise numerical mechanisms",),
    "pydp.algorithms.numerical_mechanisms.NumericalMechanism.add_noise.__doc__": ("SupportsInt) -> int",),
    "pydp.algorithms.numerical_mechanisms.NumericalMechanism.noised_value_above_threshold.__doc__": (
        "with added noise is above certain `threshold`",
    ),
    "pydp/algorithms/laplacian/_count.py:10": ("Count of number of items",),
    "pydp/algorithms/laplacian/_bounded_algorithms.py:24": ("clamped between upper and lower values",),
    "pydp/algorithms/laplacian/_bounded_algorithms.py:7": ("average of values in a dataset",),
    "pydp/algorithms/_algorithm.py:101": ("Consumes 100% of the privacy budget",),
    "pydp/algorithms/partition_selection.py:22": ("partition selection strategies",),
    "pydp/algorithms/partition_selection.py:27": ("Decides whether or not to keep a partition",),
    "pydp/algorithms/partition_selection.py:46": ("2006.03684",),
    "pydp._pydp._partition_selection.GaussianPartitionSelectionStrategy.noised_value_if_should_keep.__doc__": (
        "returns `num_users` + noise",
    ),
    "pipeline_dp/dp_computations.py:446": ("addition DP mechanism",),
    "pipeline_dp/dp_computations.py:451": ("Anonymizes value by adding noise",),
    "pipeline_dp/budget_accounting.py:49": ("(eps, delta)-differential privacy",),
    "pipeline_dp/partition_selection.py:39": ("Creates PyDP partition selection object",),
    "pipeline_dp/dp_computations.py:836": ("noisy count of contributing privacy units",),
    "pipeline_dp/dp_computations.py:749": ("list of possible parameters",),
    "pipeline_dp/dp_computations.py:710": ("set of possible parameters",),
    "opacus/privacy_engine.py:44": ("enable differential privacy",),
    "opacus/privacy_engine.py:75": ("cryptographically strong DP guarantee",),
    "opacus/privacy_engine.py:78": ("floating-point arithmetic-based attacks",),
    "opacus/privacy_engine.py:99": ("Secure RNG turned off",),
    "opacus/optimizers/optimizer.py:122": ("secure against the floating point representation attacks",),
    "opacus/optimizers/optimizer.py:226": ("robust to floating point arithmetic attacks",),
    "opacus/optimizers/optimizer.py:134": ("p=53",),
    "snsql/sql/private_reader.py:27": ("returns differentially private results",),
    "snsql/sql/_mechanisms/base.py:13": ("exact aggregated quantity",),
    "snsql/sql/_mechanisms/base.py:23": ("total privacy budget to use per-release",),
    "snsql/sql/dpsu.py:38": ("largest possible set",),
    "snsql/sql/dpsu.py:106": ("exp(-10)",),
    "snsql/sql/private_reader.py:291": ("epsilon=1.0",),
}

_FILE = re.compile(r"[a-z_][a-z0-9_]*(?:/[A-Za-z0-9_]+)*\.py:[1-9][0-9]*")
_DOCSTRING = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*\.__doc__")
#: Lines either side of a cited line that may hold the quoted sentence (a docstring sentence wraps).
_NEIGHBOURHOOD = 3


def _citations(contract: Contract) -> list[str]:
    return [part.strip() for part in contract.source.split(";")]


def _checked_citations() -> list[tuple[tuple[str, str], str]]:
    return [
        (key, c) for key, contract in CONTRACTS.items() for c in _citations(contract) if not c.startswith("https://")
    ]


def _normalised(text: str) -> str:
    return " ".join(text.split()).casefold()


def _package_of(citation: str) -> str:
    """The import name (a key of CITED_VERSIONS) of the package a file or docstring citation is in."""
    dotted = citation.replace("/", ".")
    found = [p for p in CITED_VERSIONS if dotted.startswith(p + ".")]
    assert found, f"{citation} is in no package of CITED_VERSIONS"
    return max(found, key=len)


def _installed_at_cited_version(package: str) -> object:
    """The package, imported, or a skip when it is not importable or is not at the version the lines are of."""
    module = pytest.importorskip(package)
    distribution, version = CITED_VERSIONS[package]
    installed = importlib.metadata.version(distribution)
    if installed != version:
        pytest.skip(f"{distribution} {installed} is installed; the citation is of {version}")
    return module


def test_the_keys_are_exactly_the_survey_rows() -> None:
    assert len(set(ROWS)) == len(ROWS) == 31
    assert set(CONTRACTS) == set(ROWS)


@pytest.mark.parametrize("key", ROWS, ids=" | ".join)
def test_each_row_has_a_release_a_promise_and_a_source(key: tuple[str, str]) -> None:
    contract = contract_of(*key)
    assert contract is not None and contract is CONTRACTS[key]
    assert contract.release.strip() and contract.promise.strip() and contract.source.strip()
    assert contract.private is (key not in NOT_PRIVATE)


def test_a_row_without_a_contract_has_none() -> None:
    assert contract_of("numpy", "random.normal") is None
    assert contract_of("no such library", "Laplace (mechanisms.Laplace)") is None


@pytest.mark.parametrize("key", ROWS, ids=" | ".join)
def test_every_citation_is_a_file_line_a_docstring_or_an_address(key: tuple[str, str]) -> None:
    for citation in _citations(CONTRACTS[key]):
        if citation.startswith("https://"):
            assert " " not in citation
            continue
        if ".py" in citation:  # a file: always with the line of the sentence quoted
            assert _FILE.fullmatch(citation), f"{citation!r} is not of the form pkg/path.py:N"
        else:
            assert _DOCSTRING.fullmatch(citation), f"{citation!r} is neither pkg/path.py:N nor dotted.name.__doc__"
        _package_of(citation)


@pytest.mark.parametrize(("key", "citation"), _checked_citations(), ids=lambda v: v if isinstance(v, str) else v[0])
def test_the_anchors_of_every_citation_are_in_the_promise(key: tuple[str, str], citation: str) -> None:
    assert citation in ANCHORS, f"no anchor phrases for {citation}: add them to ANCHORS"
    promise = _normalised(CONTRACTS[key].promise)
    for phrase in ANCHORS[citation]:
        assert _normalised(phrase) in promise, f"{phrase!r} (at {citation}) is not in the promise of {key}"


@pytest.mark.parametrize("citation", sorted({c for _, c in _checked_citations() if _FILE.fullmatch(c)}))
def test_a_cited_line_holds_the_quoted_promise(citation: str) -> None:
    package = _package_of(citation)
    module = _installed_at_cited_version(package)
    file = getattr(module, "__file__", None)
    assert isinstance(file, str)
    root = Path(file).parents[len(package.split("."))]  # the folder the package is installed in
    path, line = citation.rsplit(":", 1)
    lines = (root / path).read_text(encoding="utf-8").splitlines()
    number = int(line)
    assert number <= len(lines), f"{path} has {len(lines)} lines"
    window = _normalised(" ".join(lines[max(0, number - 1 - _NEIGHBOURHOOD) : number + _NEIGHBOURHOOD]))
    for phrase in ANCHORS[citation]:
        assert _normalised(phrase) in window, f"{phrase!r} is not within {_NEIGHBOURHOOD} lines of {citation}"


@pytest.mark.parametrize("citation", sorted({c for _, c in _checked_citations() if _DOCSTRING.fullmatch(c)}))
def test_a_cited_docstring_holds_the_quoted_promise(citation: str) -> None:
    package = _package_of(citation)
    _installed_at_cited_version(package)
    parts = citation.removesuffix(".__doc__").split(".")
    target: object = None
    for split in range(len(parts), 0, -1):  # the longest importable module, then attributes
        try:
            target = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        for name in parts[split:]:
            target = getattr(target, name)
        break
    doc = getattr(target, "__doc__", None)
    assert isinstance(doc, str), f"{citation} is not a docstring"
    for phrase in ANCHORS[citation]:
        assert _normalised(phrase) in _normalised(doc), f"{phrase!r} is not in {citation}"


def test_every_row_the_survey_declares_cites_a_contract() -> None:
    from dpverify.verify.survey._libraries import LIBRARIES, library_module

    declared = {(name, p.name) for name in LIBRARIES for p in library_module(name).primitives()}
    assert declared == set(CONTRACTS)
