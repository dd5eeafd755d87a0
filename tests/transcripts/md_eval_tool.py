"""Where the tests find NIST md-eval-22.pl, which is not part of this repository.

md-eval is a public Perl script (nryant/dscore ships it as ``scorelib/md-eval-22.pl``).
The tests run it when ``perl`` is installed and a copy is found, first at
``$SPEECHEVAL_MD_EVAL``, then in the public fixtures beside the repository
(``../shared/fixtures/dscore/md-eval-22.pl`` or ``.../dscore/scorelib/md-eval-22.pl``).
Nothing is downloaded; without a copy the md-eval cross-checks skip with that reason,
and the hand-worked DER cases (test_der_hand.py, test_der_boundaries.py) still run.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from conftest import FIXTURES

FIXTURE_COPIES = (FIXTURES / "dscore" / "md-eval-22.pl",
                  FIXTURES / "dscore" / "scorelib" / "md-eval-22.pl")


def find_md_eval() -> Path | None:
    """The md-eval-22.pl to run, or ``None`` when there is no copy or no perl."""
    if shutil.which("perl") is None:
        return None
    configured = os.environ.get("SPEECHEVAL_MD_EVAL", "")
    candidates = ((Path(configured),) if configured else ()) + FIXTURE_COPIES
    return next((path for path in candidates if path.is_file()), None)


SKIP_REASON = ("md-eval-22.pl not found: install perl and set SPEECHEVAL_MD_EVAL to a copy "
               "(or put one at ../shared/fixtures/dscore/md-eval-22.pl)")


FIELDS = ("SCORED SPEAKER TIME", "MISSED SPEAKER TIME", "FALARM SPEAKER TIME",
          "SPEAKER ERROR TIME")


def md_eval_components(md_eval: Path, tmp: Path, ref: str, hyp: str, uem: str, collar: float,
                       exclude_overlap: bool) -> tuple[float, ...]:
    """md-eval's (scored, missed, false alarm, speaker error) seconds for RTTM/UEM texts."""
    (tmp / "ref.rttm").write_text(ref)
    (tmp / "hyp.rttm").write_text(hyp)
    (tmp / "all.uem").write_text(uem)
    command = ["perl", str(md_eval), "-c", str(collar), "-r", str(tmp / "ref.rttm"),
               "-s", str(tmp / "hyp.rttm"), "-u", str(tmp / "all.uem")]
    if exclude_overlap:
        command.append("-1")
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    return tuple(float(re.findall(rf"{name} =([\d.]+)", out)[-1]) for name in FIELDS)
