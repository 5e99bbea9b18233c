"""LLVM lowering with llvmlite, the new pass manager, object emission and linking."""
