"""Parametric proofs and their certificates (see proofs/README.md)."""

__all__: list[str] = []
