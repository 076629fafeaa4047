"""Change review: does new code sample the old law (``dpverify diff``, ``check --base``) and how
many single-site changes does the gate catch (``dpverify mutate``).

May import: ``dpverify.proofs``, the gate and everything below it; never ``published``, its sibling.
"""
