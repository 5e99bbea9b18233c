import os
import sys

from hypothesis import settings

sys.setrecursionlimit(100_000)
settings.register_profile("ci", max_examples=100, deadline=None)
settings.register_profile("thorough", max_examples=1000, deadline=None)
# scripts/planted-bugs --quick: enough random programs to kill every planted bug, quickly
settings.register_profile("planted", max_examples=40, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
