"""Monomorphisation: one copy of each polymorphic binding per ground instance (MLton-style)."""
