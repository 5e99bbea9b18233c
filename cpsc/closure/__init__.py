"""Closure conversion: the CPS program made first-order (lambda lifting plus closure records)."""
