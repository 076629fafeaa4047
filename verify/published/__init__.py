"""Third-party and black-box audits: libraries' samplers run unmodified on the engine's
sources (diffprivlib), and samplers with their own randomness audited statistically.

May import: ``dpverify.proofs``, the gate and everything below it; never ``changes``, its sibling.
"""
