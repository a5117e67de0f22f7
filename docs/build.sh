#!/usr/bin/env bash
# Build the documentation site: bash docs/build.sh [OUTPUT_DIR]  (default docs/_build/html)
#
# 1. executes the vignettes whose source changed since their last run as notebooks (headless, nbclient;
#    STATCORE_NOTEBOOK_RUNS names the folder of executed notebooks, default docs/_build/notebooks);
#    CI's tests/test_docs.py executes them once and points STATCORE_NOTEBOOK_RUNS at that run;
# 2. builds the HTML with warnings as errors: the API reference from every public name's docstring,
#    the user guide, "coming from R", the conventions and the gallery rendered from those runs.
# Needs: the README's docs line (the CPU build of torch, the MobileNetV2 weights, pip install -e ".[docs]").
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-docs/_build/html}"
STATCORE_NOTEBOOK_RUNS="$(realpath -m "${STATCORE_NOTEBOOK_RUNS:-docs/_build/notebooks}")"
export STATCORE_NOTEBOOK_RUNS
export MPLBACKEND=Agg
if [ -z "${STATCORE_SKIP_NOTEBOOKS:-}" ]; then
  python docs/notebooks.py run --out "$STATCORE_NOTEBOOK_RUNS"
fi
python -m sphinx -W --keep-going -q -b html -d "${STATCORE_DOCTREES:-docs/_build/doctrees}" docs "$out"
echo "built $out/index.html"
