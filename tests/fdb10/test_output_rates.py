"""Outputs at a rate other than the input's: speech to the last sample runs to T.

The output holds round(T * rate) samples, so at 24 kHz with T = 160003 / 16000 s it ends
half a sample before T: round(240004.5) = 240004 samples = 10.0001667 s < T = 10.0001875 s.
Speech that runs to the last sample must still have no observed stop.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from speecheval.core.audio import resample
from speecheval.fdb.v10.builder.clips import load_clips
from speecheval.fdb.v10.scoring.unified import score_tree

from .treekit import Spec, interrupt, write_tree

UI = "synthetic_user_interruption"
T = 160003 / 16000


def speech_to_the_end(rate: int, start_s: float, duration_s: float) -> np.ndarray:
    """Silence, then committed speech clips back to back until the last sample."""
    clips = [c.pcm.astype(np.float32) / 32768 for c in load_clips().clips.values()]
    speech = resample(np.concatenate(clips * 3), 16000, rate)
    n = round(duration_s * rate)
    start = round(start_s * rate)
    out = np.zeros(n, np.float32)
    out[start:] = speech[: n - start]
    return out


def test_speech_to_the_end_at_24_khz_has_no_observed_stop(tmp_path: Path) -> None:
    audio = speech_to_the_end(24000, 1.0, T)
    assert audio.size == 240004 and audio.size / 24000 < T
    tree = write_tree(tmp_path / "t", [
        Spec(UI, "a", T, [], interrupt(9.0, 9.5), rate=24000, audio=audio)])
    (row,) = [r.report_dict() for r in score_tree(tree).rows]
    assert row["segments"][-1][1] == pytest.approx(T, abs=1e-6)   # runs to T, not 10.000167
    assert row["outcome"] == "speaking_at_end"
    assert row["stop_s"] is None and row["stop_observed"] is False
