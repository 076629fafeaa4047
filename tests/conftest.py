"""Shared test configuration.

Hypothesis runs derandomised under CI (``CI`` set), so a CI failure replays exactly; locally it
explores new examples each run and prints a ``@reproduce_failure`` blob on failure.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    print_blob=True,
    max_examples=60,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, print_blob=True, max_examples=60)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))
