import os
import sys
from pathlib import Path

# tests import their shared helpers as `helpers`
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("MPLBACKEND", "Agg")

# CI runs hypothesis derandomised (the same examples every run), so a landing never depends on
# which random examples a run drew; locally hypothesis keeps exploring new ones.
try:
    from hypothesis import settings as _hyp_settings

    _hyp_settings.register_profile("ci", derandomize=True, database=None)
    if os.environ.get("CI"):
        _hyp_settings.load_profile("ci")
except ImportError:  # hypothesis comes with the test extra
    pass
