"""The gate: one declared spec run on one parameter set, the built-in catalogue, the static
and source checks, the production randomness, spec discovery, the parameter search and the
sweeps that run them all.

May import: ``privacy``, ``precision`` and the engine.
"""
