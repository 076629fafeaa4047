"""own_sampler: a DP library's sampler, and the dpverify specs that check it.

``own_sampler.sampler`` is the production code (standard library only); ``own_sampler.specs``
declares what it samples and what it guarantees, and is registered for ``dpverify check``
under the ``dpverify.specs`` entry point in ``pyproject.toml``.
"""

from own_sampler.sampler import randomized_response, randomized_response_off_by_one

__all__ = ["randomized_response", "randomized_response_off_by_one"]
