"""Monomorphisation: one copy of each polymorphic binding per ground instance (MLton-style),
matches compiled to decision trees, and the reference interpreter of the result (`interp.py`)."""
