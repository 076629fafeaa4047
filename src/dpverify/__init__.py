"""dpverify: exact and SMT verification of differential-privacy samplers.

The installed package has four parts, which live in the repository's top-level folders:

- :mod:`dpverify.samplers`: the production samplers (stdlib only; importing it loads nothing
  heavier than the standard library);
- :mod:`dpverify.specs`: the spec API and the built-in specs;
- :mod:`dpverify.verify`: the engine, the gate and the command line;
- :mod:`dpverify.proofs`: parametric theorems and their certificates.

This module stays empty on purpose, so that ``import dpverify.samplers`` pays for nothing else.
"""

__version__ = "0.2.0"

__all__ = ["__version__"]
