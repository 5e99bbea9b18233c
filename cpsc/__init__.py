"""cpsc: an optimising compiler for FL through a functional CPS IR, basic-block SSA and LLVM."""

__version__ = "0.1.0"
