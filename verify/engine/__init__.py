"""The engine: a sampler's own code run against enumerating and seeded sources, and what
follows from its exact output distribution alone: enumeration, loop summaries and renewal,
intervals, lazy draws, the ``random``/``secrets`` adapters, exactness, statistics, Clopper–Pearson.

May import: ``dpverify.samplers``, ``dpverify.specs`` and the standard, numeric and solver
libraries; nothing else of ``dpverify.verify``.
"""
