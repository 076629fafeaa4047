"""The verification engine: exact enumeration, privacy loss, SMT and statistical checks."""

from verify._accounting import dgauss_delta, dgauss_delta_hockey_stick, dgauss_privacy
from verify._enumerate import Enumeration, SamplerCrashed, bisect_outputs, enumerate_outputs
from verify._exactness import check_exactness, code_distribution
from verify._intervals import check_intervals, judge_intervals, renewal
from verify._gtm_privacy import gtm_privacy, gtm_table
from verify._privacy import PrivacyLoss, check_pure_dp, tightest_alpha
from verify._results import CheckResult, RatioWitness, Verdict
from verify._smt import check_ratio_bound_z3, smtlib_obligation
from verify._statistics import check_empirical, check_empirical_ideal, dkw_threshold
from verify._timing import TimingChannel, check_timing, timing_channel

__all__ = [
    "CheckResult",
    "Enumeration",
    "PrivacyLoss",
    "RatioWitness",
    "SamplerCrashed",
    "TimingChannel",
    "Verdict",
    "bisect_outputs",
    "check_empirical",
    "check_empirical_ideal",
    "check_exactness",
    "check_intervals",
    "check_pure_dp",
    "check_ratio_bound_z3",
    "check_timing",
    "code_distribution",
    "dgauss_delta",
    "dgauss_delta_hockey_stick",
    "dgauss_privacy",
    "dkw_threshold",
    "enumerate_outputs",
    "gtm_privacy",
    "gtm_table",
    "judge_intervals",
    "renewal",
    "smtlib_obligation",
    "tightest_alpha",
    "timing_channel",
]
