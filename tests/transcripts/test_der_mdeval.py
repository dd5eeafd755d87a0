"""Optional cross-check against NIST md-eval-22.pl on random multi-file RTTM pairs.

md-eval is not a dependency and is not in this repository. The test runs on a machine
with ``perl`` when it finds a copy of ``md-eval-22.pl`` (for example from nryant/dscore,
``scorelib/md-eval-22.pl``) at ``SPEECHEVAL_MD_EVAL`` or in ``../shared/fixtures/dscore``
(see md_eval_tool.py). Every component (scored, missed,
false alarm, speaker error) must agree to md-eval's printed precision (1 µs) at collar 0
and ±0.25 s, with and without ``-1``.

Turns that overlap their own speaker are accepted by md-eval-22 (its check for them
never fires; it only warns "speaker ... speaking more than once"), and it then collars
their inner boundaries and counts them as overlap under ``-1``. speecheval's definition
merges them, so the first test keeps speakers from overlapping themselves, and the
second gives them to ``--compat md-eval``, which must then agree with md-eval.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from md_eval_tool import SKIP_REASON, find_md_eval, md_eval_components
from random_rttm import random_speaker_lines

from speecheval.transcripts.diarization.score import score_files, total
from speecheval.transcripts.formats.rttm import RTTM
from speecheval.transcripts.formats.uem import UEM

MD_EVAL = find_md_eval()
pytestmark = pytest.mark.skipif(MD_EVAL is None, reason=SKIP_REASON)


def md_eval(tmp: Path, ref: str, hyp: str, uem: str, collar: float,
            exclude_overlap: bool) -> tuple[float, ...]:
    assert MD_EVAL is not None
    return md_eval_components(MD_EVAL, tmp, ref, hyp, uem, collar, exclude_overlap)


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


@pytest.mark.parametrize("seed", range(8))
def test_compat_md_eval_matches_md_eval_with_self_overlap(seed: int, tmp_path: Path) -> None:
    rng = np.random.default_rng(100 + seed)
    files = ("fa", "fb")
    ref = "\n".join(line for f in files
                    for line in random_speaker_lines(rng, f, "R", self_overlap=True)) + "\n"
    hyp = "\n".join(line for f in files for line in random_speaker_lines(rng, f, "H")) + "\n"
    uem = "".join(f"{f} 1 {rng.uniform(0, 3):.3f} {rng.uniform(40, 70):.3f}\n" for f in files)
    for collar in (0.0, 0.25):
        scores = score_files(RTTM.parse(ref), RTTM.parse(hyp), UEM.parse(uem), collar_s=collar,
                             compat="md-eval")
        assert isinstance(scores, dict)
        summed = total(scores)
        for exclude in (False, True):
            c = summed.overlap_excluded if exclude else summed.overlap_included
            ours = (c.scored, c.missed, c.false_alarm, c.confusion)
            theirs = md_eval(tmp_path, ref, hyp, uem, collar, exclude)
            assert ours == pytest.approx(theirs, abs=2e-6), (collar, exclude)


def test_md_eval_overlap_defect_is_md_evals(tmp_path: Path) -> None:
    # docs/transcripts-diarization.md: reference A 0-10, B 2-5, B 5-20, UEM 0-8, collar 0,
    # -1: md-eval-22 scores 8.0 s of speaker time where the overlap-free region [0, 2]
    # holds 2.0 s; --compat md-eval reproduces md-eval, speecheval gives 2.0 s.
    ref = ("SPEAKER f 1 0 10 <NA> <NA> A <NA> <NA>\nSPEAKER f 1 2 3 <NA> <NA> B <NA> <NA>\n"
           "SPEAKER f 1 5 15 <NA> <NA> B <NA> <NA>\n")
    hyp = "SPEAKER f 1 0 8 <NA> <NA> X <NA> <NA>\n"
    uem = "f 1 0 8\n"
    theirs = md_eval(tmp_path, ref, hyp, uem, 0.0, True)
    assert theirs[0] == pytest.approx(8.0)
    for compat, scored in (("md-eval", 8.0), ("speecheval", 2.0)):
        scores = score_files(RTTM.parse(ref), RTTM.parse(hyp), UEM.parse(uem), collar_s=0.0,
                             compat=compat)  # type: ignore[arg-type]
        assert isinstance(scores, dict)
        c = total(scores).overlap_excluded
        assert c.scored == scored
        if compat == "md-eval":
            assert (c.scored, c.missed, c.false_alarm, c.confusion) == pytest.approx(theirs,
                                                                                     abs=2e-6)
