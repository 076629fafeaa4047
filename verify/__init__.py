"""The verification engine: exact enumeration, privacy loss, SMT and statistical checks."""

from verify._enumerate import Enumeration, bisect_outputs, enumerate_outputs
from verify._exactness import check_exactness, code_distribution
from verify._gtm_privacy import gtm_privacy, gtm_table
from verify._privacy import PrivacyLoss, check_pure_dp, tightest_alpha
from verify._results import CheckResult, RatioWitness, Verdict

__all__ = [
    "CheckResult",
    "Enumeration",
    "PrivacyLoss",
    "RatioWitness",
    "Verdict",
    "bisect_outputs",
    "check_exactness",
    "check_pure_dp",
    "code_distribution",
    "enumerate_outputs",
    "gtm_privacy",
    "gtm_table",
    "tightest_alpha",
]
