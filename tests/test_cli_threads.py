"""A fresh ``speecheval`` process loads numpy with one BLAS thread, whatever the thread
variables say: no number may depend on a thread count (core/numeric_env.py), and a
command whose BLAS starts no threads does not pay for them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"


def test_numpy_loads_inside_a_command_with_one_blas_thread(tmp_path: Path) -> None:
    code = ("import json, sys\n"
            "from speecheval.cli import main\n"
            f"assert main(['fdb10', 'build-tree', '--out', {str(tmp_path / 'tree')!r}]) == 0\n"
            "assert 'numpy' in sys.modules\n"
            "from threadpoolctl import threadpool_info\n"
            "print(json.dumps([i['num_threads'] for i in threadpool_info()\n"
            "                  if i['user_api'] == 'blas']))\n")
    env = {**os.environ, "PYTHONPATH": str(SRC), "OPENBLAS_NUM_THREADS": "4",
           "OMP_NUM_THREADS": "4"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == [1]
