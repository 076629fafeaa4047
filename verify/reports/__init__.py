"""What a person reads: the audit report (its work, its HTML and Markdown, its plots), the
reproduction of the papers (one module per paper), and the one meaning of ``--json`` and
``--junit`` that every command shares.

May import: ``changes``, ``published``, ``dpverify.proofs`` and everything below them.
"""
