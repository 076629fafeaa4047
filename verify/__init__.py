"""The verification engine: exact enumeration, privacy loss, SMT and statistical checks."""

from verify._enumerate import Enumeration, SamplerCrashed, bisect_outputs, enumerate_outputs
from verify._exactness import check_exactness, code_distribution
from verify._gtm_privacy import gtm_privacy, gtm_table
from verify._privacy import PrivacyLoss, check_pure_dp, tightest_alpha
from verify._results import CheckResult, RatioWitness, Verdict
from verify._smt import check_ratio_bound_z3, smtlib_obligation
from verify._statistics import check_empirical, dkw_threshold

__all__ = [
    "CheckResult",
    "Enumeration",
    "PrivacyLoss",
    "RatioWitness",
    "SamplerCrashed",
    "Verdict",
    "bisect_outputs",
    "check_empirical",
    "check_exactness",
    "check_pure_dp",
    "check_ratio_bound_z3",
    "code_distribution",
    "dkw_threshold",
    "enumerate_outputs",
    "gtm_privacy",
    "gtm_table",
    "smtlib_obligation",
    "tightest_alpha",
]
