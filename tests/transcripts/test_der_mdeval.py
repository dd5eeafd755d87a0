"""Optional cross-check against NIST md-eval-22.pl on random multi-file RTTM pairs.

md-eval is not a dependency and is not in this repository. To run this test, point
``SPEECHEVAL_MD_EVAL`` at a copy of ``md-eval-22.pl`` (for example from nryant/dscore,
``scorelib/md-eval-22.pl``) on a machine with ``perl``. Every component (scored, missed,
false alarm, speaker error) must agree to md-eval's printed precision (1 µs) at collar 0
and ±0.25 s, with and without ``-1``. Turns never overlap their own speaker, because
md-eval refuses such input.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from random_rttm import random_speaker_lines

from speecheval.transcripts.diarization.score import score_files, total
from speecheval.transcripts.formats.rttm import RTTM
from speecheval.transcripts.formats.uem import UEM

MD_EVAL = os.environ.get("SPEECHEVAL_MD_EVAL", "")
pytestmark = pytest.mark.skipif(
    not (MD_EVAL and Path(MD_EVAL).is_file() and shutil.which("perl")),
    reason="set SPEECHEVAL_MD_EVAL to md-eval-22.pl (and have perl) to cross-check md-eval")

FIELDS = ("SCORED SPEAKER TIME", "MISSED SPEAKER TIME", "FALARM SPEAKER TIME",
          "SPEAKER ERROR TIME")


def md_eval(tmp: Path, ref: str, hyp: str, uem: str, collar: float,
            exclude_overlap: bool) -> tuple[float, ...]:
    (tmp / "ref.rttm").write_text(ref)
    (tmp / "hyp.rttm").write_text(hyp)
    (tmp / "all.uem").write_text(uem)
    command = ["perl", MD_EVAL, "-c", str(collar), "-r", str(tmp / "ref.rttm"),
               "-s", str(tmp / "hyp.rttm"), "-u", str(tmp / "all.uem")]
    if exclude_overlap:
        command.append("-1")
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    return tuple(float(re.findall(rf"{name} =([\d.]+)", out)[-1]) for name in FIELDS)


@pytest.mark.parametrize("seed", range(8))
def test_random_pairs_match_md_eval(seed: int, tmp_path: Path) -> None:
    rng = np.random.default_rng(seed)
    files = ("fa", "fb")
    ref = "\n".join(line for f in files for line in random_speaker_lines(rng, f, "R")) + "\n"
    hyp = "\n".join(line for f in files for line in random_speaker_lines(rng, f, "H")) + "\n"
    uem = "".join(f"{f} 1 {rng.uniform(0, 3):.3f} {rng.uniform(40, 70):.3f}\n" for f in files)
    for collar in (0.0, 0.25):
        scores = score_files(RTTM.parse(ref), RTTM.parse(hyp), UEM.parse(uem), collar_s=collar)
        assert isinstance(scores, dict)
        summed = total(scores)
        for exclude in (False, True):
            c = summed.overlap_excluded if exclude else summed.overlap_included
            ours = (c.scored, c.missed, c.false_alarm, c.confusion)
            theirs = md_eval(tmp_path, ref, hyp, uem, collar, exclude)
            assert ours == pytest.approx(theirs, abs=2e-6), (collar, exclude)
