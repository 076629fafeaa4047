"""The one exception root of dpverify.

Every error a user can cause derives from :class:`DpverifyError`, so the CLI can catch the
whole family, print its one-line message and exit with code 2.  Messages read
``name=value``, then the constraint, then the fix.
"""

from __future__ import annotations


class DpverifyError(Exception):
    """Root of every error dpverify raises on purpose."""


class InvalidArgument(DpverifyError, ValueError):
    """A parameter is outside its documented domain; the message names it and the range."""


class SamplerContractError(DpverifyError):
    """A sampler broke the contract an engine relies on (e.g. it drew more than once)."""
