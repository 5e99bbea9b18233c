"""The C runtime linked into every executable (output buffering, strings, float formatting)."""
