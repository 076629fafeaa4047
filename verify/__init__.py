"""The verification engine: exact enumeration, privacy loss, SMT and statistical checks.

This module is the public Python API and only re-exports; the work lives in the subpackages,
bottom to top ``engine``, ``privacy`` | ``precision``, ``gate``, ``changes`` | ``published``,
``reports``, ``cli`` (the README's "Architecture"). No module of the package imports this one.
"""

from dpverify.verify.engine._bisect import bisect_outputs
from dpverify.verify.engine._enumerate import enumerate_outputs
from dpverify.verify.engine._enumeration import Enumeration, SamplerCrashed
from dpverify.verify.engine._exactness import check_exactness, code_distribution
from dpverify.verify.engine._intervals import check_intervals, judge_intervals, renewal
from dpverify.verify.engine._patched_random import patched_random
from dpverify.verify.engine._random_compat import RandomCompat
from dpverify.verify.engine._results import CheckResult, RatioWitness, Verdict
from dpverify.verify.engine._statistics import check_empirical, check_empirical_ideal, dkw_threshold
from dpverify.verify.gate._discovery import FoundSpec, discover
from dpverify.verify.gate._search import SearchResult, parameter_strategy, search_spec
from dpverify.verify.gate._spec_run import CaseOutcome, run_case
from dpverify.verify.precision._fixed_point import fixed_point_smtlib, prove_fixed_point_leak
from dpverify.verify.precision._float_attack import check_float_laplace, first_violation, laplace_float_attack
from dpverify.verify.precision._float_exact import float_pmf, float_privacy
from dpverify.verify.precision._gazeau import gazeau_privacy
from dpverify.verify.precision._grid import check_grid_laplace_claim, grid_claim_smtlib
from dpverify.verify.precision._mironov import mironov_attack, reachable
from dpverify.verify.precision._planar import planar_report
from dpverify.verify.privacy._accounting import dgauss_delta, dgauss_delta_hockey_stick, dgauss_privacy
from dpverify.verify.privacy._claim_checks import check_approx_dp, check_pure_epsilon, check_zcdp
from dpverify.verify.privacy._gaussian_calibration import GaussianCalibration, check_gaussian_mechanism, tight_sigma2
from dpverify.verify.privacy._gtm_privacy import gtm_privacy, gtm_table
from dpverify.verify.privacy._pld import PrivacyLossDistribution
from dpverify.verify.privacy._pld_enclosure import Enclosure
from dpverify.verify.privacy._pld_lattice import common_base
from dpverify.verify.privacy._pld_worst_case import WorstCase, check_composed_claim, composed_delta, composed_epsilon
from dpverify.verify.privacy._ratio import PrivacyLoss, check_pure_dp, tightest_alpha
from dpverify.verify.privacy._smt import check_ratio_bound_z3, smtlib_obligation
from dpverify.verify.privacy._timing import TimingChannel, check_timing, timing_channel
from dpverify.verify.reports.reproduce._run import reproduce, resolve_papers

__all__ = [
    "CaseOutcome",
    "CheckResult",
    "Enclosure",
    "Enumeration",
    "FoundSpec",
    "GaussianCalibration",
    "PrivacyLoss",
    "PrivacyLossDistribution",
    "RandomCompat",
    "RatioWitness",
    "SamplerCrashed",
    "SearchResult",
    "TimingChannel",
    "Verdict",
    "WorstCase",
    "bisect_outputs",
    "check_approx_dp",
    "check_composed_claim",
    "check_empirical",
    "check_empirical_ideal",
    "check_exactness",
    "check_float_laplace",
    "check_gaussian_mechanism",
    "check_grid_laplace_claim",
    "check_intervals",
    "check_pure_dp",
    "check_pure_epsilon",
    "check_ratio_bound_z3",
    "check_timing",
    "check_zcdp",
    "code_distribution",
    "common_base",
    "composed_delta",
    "composed_epsilon",
    "dgauss_delta",
    "dgauss_delta_hockey_stick",
    "dgauss_privacy",
    "discover",
    "dkw_threshold",
    "enumerate_outputs",
    "first_violation",
    "fixed_point_smtlib",
    "float_pmf",
    "float_privacy",
    "gazeau_privacy",
    "grid_claim_smtlib",
    "gtm_privacy",
    "gtm_table",
    "judge_intervals",
    "laplace_float_attack",
    "mironov_attack",
    "parameter_strategy",
    "patched_random",
    "planar_report",
    "prove_fixed_point_leak",
    "reachable",
    "renewal",
    "reproduce",
    "resolve_papers",
    "run_case",
    "search_spec",
    "smtlib_obligation",
    "tight_sigma2",
    "tightest_alpha",
    "timing_channel",
]
