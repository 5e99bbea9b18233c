"""Optimisation passes over the CPS IR, each a pure function, registered in `pipeline`."""
