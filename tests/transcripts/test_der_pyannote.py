"""Agreement with pyannote.metrics (test-only dependency) where the definitions agree.

They agree on DER components when (a) there is no collar, or (b) the collar is given as
pyannote's total width (2 x ours) and our mapping is taken over the UEM minus collars,
as pyannote does (``mapping_region="uem_minus_collar"``). They differ by design when
overlap is skipped (pyannote maps speakers on the overlap-free region only; md-eval and
we keep the mapping of the whole UEM) and for collars around a speaker's own
overlapping turns (pyannote collars each raw turn, we collar the merged turns); see
docs/transcripts-diarization.md.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from random_rttm import random_speaker_lines

from speecheval.transcripts.diarization.result import DiarizationScore
from speecheval.transcripts.diarization.score import score_files
from speecheval.transcripts.formats.rttm import RTTM
from speecheval.transcripts.formats.uem import UEM

core = pytest.importorskip("pyannote.core", reason="pyannote.metrics is a test-only dependency")
diarization = pytest.importorskip("pyannote.metrics.diarization")

SEEDS = range(12)


def random_rttm(rng: np.random.Generator, prefix: str, self_overlap: bool) -> RTTM:
    """Turns on a 1 ms grid for 1-4 speakers over about a minute."""
    return RTTM.parse("\n".join(random_speaker_lines(rng, "f", prefix, self_overlap)))


def annotation(rttm: RTTM) -> Any:
    ann = core.Annotation(uri="f")
    for track, turn in enumerate(rttm.turns):
        ann[core.Segment(turn.start, turn.end), track] = turn.speaker
    return ann


def compare(seed: int, collar: float, self_overlap: bool,
            merge_in_pyannote: bool = False) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Our components and pyannote's (scored, missed, false alarm, confusion).

    ``merge_in_pyannote`` merges each speaker's overlapping turns with pyannote's own
    ``Annotation.support()`` before pyannote scores them.
    """
    rng = np.random.default_rng(seed)
    ref = random_rttm(rng, "R", self_overlap)
    hyp = random_rttm(rng, "H", self_overlap)
    start, end = round(rng.uniform(0, 3), 3), round(rng.uniform(40, 70), 3)
    files = score_files(ref, hyp, UEM.parse(f"f 1 {start} {end}"), collar_s=collar,
                        mapping_region="uem_minus_collar")
    assert isinstance(files, dict)
    ours = files["f"].overlap_included
    metric = diarization.DiarizationErrorRate(collar=2 * collar)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref_ann, hyp_ann = annotation(ref), annotation(hyp)
        if merge_in_pyannote:
            ref_ann, hyp_ann = ref_ann.support(), hyp_ann.support()
        detail = metric(ref_ann, hyp_ann,
                        uem=core.Timeline([core.Segment(start, end)]), detailed=True)
    return ((ours.scored, ours.missed, ours.false_alarm, ours.confusion),
            (detail["total"], detail["missed detection"], detail["false alarm"],
             detail["confusion"]))


@pytest.mark.parametrize("seed", SEEDS)
def test_no_collar_with_self_overlaps(seed: int) -> None:
    # pyannote counts a speaker's overlapping turns twice in the reference time; once
    # they are merged by pyannote's own Annotation.support(), the two agree exactly.
    ours, theirs = compare(seed, 0.0, self_overlap=True, merge_in_pyannote=True)
    assert ours == pytest.approx(theirs, abs=1e-6)
    _, doubled = compare(seed, 0.0, self_overlap=True)
    assert doubled[0] > ours[0]


@pytest.mark.parametrize("seed", SEEDS)
def test_collar_quarter_second_is_pyannote_half(seed: int) -> None:
    ours, theirs = compare(seed, 0.25, self_overlap=False)
    assert ours == pytest.approx(theirs, abs=1e-6)


@pytest.mark.parametrize("seed", SEEDS[:4])
def test_speaker_count_matches_pyannote(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    ref, hyp = random_rttm(rng, "R", True), random_rttm(rng, "H", True)
    files = score_files(ref, hyp, UEM.parse("f 1 10 30"), collar_s=0.0)
    assert isinstance(files, dict)
    score: DiarizationScore = files["f"]
    metric = diarization.DiarizationSpeakerCountError()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = metric(annotation(ref), annotation(hyp),
                        uem=core.Timeline([core.Segment(10, 30)]))
    assert score.speaker_count.abs_error_sum == theirs
