"""import statcore stays quick, never imports numba/torch, and works without a writable numba cache."""
import os
import subprocess
import sys


def _run(code, **env):
    e = dict(os.environ, **env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=e, timeout=300)


def test_import_is_light():
    res = _run("import sys, time; import numpy, scipy, pandas; t = time.perf_counter(); import statcore; "
               "print(time.perf_counter() - t); print('numba' in sys.modules, 'torch' in sys.modules)")
    assert res.returncode == 0, res.stderr
    seconds, flags = res.stdout.split("\n")[:2]
    assert float(seconds) < 0.5
    assert flags == "False False"


def test_kernels_work_without_writable_numba_cache():
    # /proc is not writable even for root: numba cannot cache there and must fall back
    code = ("import numpy as np, statcore as sc; from statcore._kernels.spline import bvalue_many; "
            "p = np.r_[np.linspace(0.0005, 0.01, 200), np.linspace(0.0005, 0.9995, 800)]; "
            "r = sc.qvalue(p); print(round(r.pi0, 6), bool(np.isfinite(r.lfdr).all()))")
    res = _run(code, NUMBA_CACHE_DIR="/proc/statcore-no-cache")
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["0.8", "True"]
    assert "Traceback" not in res.stderr
