"""import statcore stays light (never imports numba or torch: kernels compile on first use) and works
without a writable numba cache. How long the import takes is measured in benchmarks/bench_import.py."""
import os
import subprocess
import sys


def _run(code, **env):
    e = dict(os.environ, **env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=e, timeout=300)


def test_import_is_light():
    res = _run("import sys; import statcore, statcore.utils, learncore; "
               "print('numba' in sys.modules, 'torch' in sys.modules)")
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "False False"


def test_kernels_work_without_writable_numba_cache():
    # /proc is not writable even for root: numba cannot cache there and must fall back
    code = ("import numpy as np, statcore as sc; from statcore._r._spline_kernels import bvalue_many; "
            "p = np.r_[np.linspace(0.0005, 0.01, 200), np.linspace(0.0005, 0.9995, 800)]; "
            "r = sc.qvalue(p); print(round(r.pi0, 6), bool(np.isfinite(r.lfdr).all()))")
    res = _run(code, NUMBA_CACHE_DIR="/proc/statcore-no-cache")
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["0.8", "True"]
    assert "Traceback" not in res.stderr
