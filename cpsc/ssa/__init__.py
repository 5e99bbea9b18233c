"""Basic-block SSA: flat blocks, phi nodes, an explicit CFG (seeds 000 and 001)."""
