"""Pool workers end on SIGTERM, as the pool expects, even where the program turns SIGTERM
into an unwinding exception (``speecheval.core.termination``, installed by the
``speecheval`` program): a forked worker would inherit that handler."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

PROGRAM = """
import json
import executor_items as items
from speecheval.core.executor import LocalExecutor
from speecheval.core.termination import unwind_on_sigterm
unwind_on_sigterm()  # as speecheval.cli.run does
print(json.dumps([r.get() for r in LocalExecutor(2).map(items.sigterm_ends_the_worker, [1, 2])]))
"""


def test_forked_workers_end_by_sigterm() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), *sys.path])}
    done = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == [True, True]
