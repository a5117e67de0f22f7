import os
import sys
from pathlib import Path

# tests import their shared helpers as `helpers`
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("MPLBACKEND", "Agg")
