"""The fdb15 command group imports nothing heavy until a command runs, so that
``speecheval --help`` (which lists the group) stays fast once the CLI loads families lazily."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("numpy", "scipy", "scipy.signal", "onnxruntime", "pydantic", "soundfile")


def test_group_and_help_import_no_heavy_module() -> None:
    code = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from speecheval.fdb.v15.cli import fdb15\n"
        "result = CliRunner().invoke(fdb15, ['--help'])\n"
        "assert result.exit_code == 0, result.output\n"
        "assert 'build-dataset' in result.output and 'score' in result.output\n"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    # speecheval/__init__ and the fdb package __init__s are imported on the way; they are
    # as light as this group must be.
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == ""
