"""Collection rules for the whole tree: learncore's doctests need torch (CI installs it and sets
LEARNCORE_REQUIRE_TORCH=1, so there a missing torch fails instead of skipping)."""
import importlib.util
import os

collect_ignore = []
if importlib.util.find_spec("torch") is None and not os.environ.get("LEARNCORE_REQUIRE_TORCH"):
    collect_ignore.append("learncore")
