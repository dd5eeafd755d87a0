"""Files segmented together in one worker task (``speech._segment_group``) give what each
gives alone, and a bad file is reported as file by file: the first in job order, named.

Runs the real Silero model on the two committed espeak-ng sentences of the VAD tests.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from speecheval.core.audio import Audio, read_mono, write_wav
from speecheval.core.errors import InputError
from speecheval.core.hashing import sha256_file
from speecheval.fdb.v10.speech import SpeechJob, _detect, _segment_group, _segment_uncached

RATE = 16_000
CLIPS = Path(__file__).resolve().parents[1] / "data" / "vad"


def speech(name: str) -> np.ndarray:
    return read_mono(CLIPS / f"speech_{name}.wav").samples


def silence(ms: int) -> np.ndarray:
    return np.zeros(RATE * ms // 1000, dtype=np.float32)


def join(*parts: np.ndarray) -> np.ndarray:
    return np.concatenate(parts).astype(np.float32)


def _job(tmp_path: Path, name: str, samples: np.ndarray) -> SpeechJob:
    path = tmp_path / name / "output.wav"
    path.parent.mkdir()
    write_wav(path, samples, RATE)
    return SpeechJob(name, path, sha256_file(path), samples.size / RATE)


@pytest.fixture
def jobs(tmp_path: Path) -> list[SpeechJob]:
    """Four files of different lengths: speech, speech after silence, noise, one window."""
    return [_job(tmp_path, "a", join(silence(300), speech("a"), silence(500))),
            _job(tmp_path, "b", join(silence(1700), speech("b"), speech("a"))),
            _job(tmp_path, "c", (np.random.default_rng(3).standard_normal(32_000) * 0.01
                                 ).astype(np.float32)),
            _job(tmp_path, "d", silence(32))]


def test_a_group_gives_each_file_what_it_gives_alone(jobs: list[SpeechJob]) -> None:
    together = _segment_group([(job, None) for job in jobs])
    alone = [_segment_uncached((job, None)) for job in jobs]
    assert together == alone
    # the speech clips are found: the check compares something
    assert len(alone[0].spans) >= 1 and len(alone[1].spans) >= 1


def test_the_first_bad_file_in_job_order_is_reported(jobs: list[SpeechJob]) -> None:
    """File b differs from its manifest hash and file c is missing: as file by file, b
    (the first bad one) is reported, by sample and path, and c never is."""
    jobs[1].path.write_bytes(jobs[1].path.read_bytes()[:-2] + b"\x01\x00")
    jobs[2].path.unlink()
    with pytest.raises(InputError, match="output.wav differs from manifest.json") as info:
        _segment_group([(job, None) for job in jobs])
    assert (info.value.sample_id, info.value.path) == ("b", str(jobs[1].path))


def test_audio_the_detector_refuses_is_named_within_a_group(jobs: list[SpeechJob]) -> None:
    """Decoding refuses non-finite samples before the detector sees them; should the
    detector refuse a file of a group anyway, the first it refuses is named by its sample
    (here the second of three)."""
    good = Audio(speech("a"), RATE)
    bad = Audio(np.array([0.0, np.nan] * 300, dtype=np.float32), RATE)
    with pytest.raises(InputError, match="non-finite") as info:
        _detect(jobs[:3], [good, bad, bad])
    assert (info.value.sample_id, info.value.path) == ("b", str(jobs[1].path))
