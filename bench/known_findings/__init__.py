"""The audits of the known-findings bench (``bench/bench_known_findings.py``), one module per library.

Each module defines ``AUDITS``: the finding's id in ``bench/known_findings.json`` to
``audit(version, seed, samples) -> dict`` with the keys ``verdict`` (``violated``, ``hazard``,
``not refuted``, ``proved`` or ``inconclusive``), ``method``, ``evidence`` (at most 300 characters) and
``magnitude``.  An audit imports its library inside the function, since it runs in that library's own
environment.
"""
