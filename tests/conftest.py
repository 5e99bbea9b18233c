import os
import sys

from hypothesis import settings

from tests.mutants import apply_from_environment

sys.setrecursionlimit(100_000)
settings.register_profile("ci", max_examples=100, deadline=None)
settings.register_profile("thorough", max_examples=1000, deadline=None)
# scripts/planted-bugs --quick: enough random programs to kill every mutant, quickly
settings.register_profile("planted", max_examples=40, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

apply_from_environment()  # scripts/planted-bugs: the tests run against one mutant of a pass
