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
from speecheval.fdb.common import speech as speech_module
from speecheval.fdb.common.speech import (
    SpeechJob,
    _detect,
    _look_up_all,
    _on_timeline,
    _segment_group,
    segment_file,
)
from speecheval.vad.cache import CachedSegments, VadCache
from speecheval.vad.silero import SileroVad
from speecheval.vad.silero_model import SileroNotInstalledError

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


def test_a_group_gives_each_file_what_silero_gives_it_alone(jobs: list[SpeechJob]) -> None:
    """The group's spans are those of ``SileroVad.segments`` on each decoded file (the
    per-file path, not the grouped one), put on the sample's timeline."""
    together = _segment_group([(job, None) for job in jobs])
    vad = SileroVad()
    for job, got in zip(jobs, together, strict=True):
        audio = read_mono(job.path)
        alone = CachedSegments(audio.rate, audio.n_samples, tuple(vad.segments(audio)))
        assert got.spans == _on_timeline(alone, job), job.sample_id
    # the speech clips are found: the check compares something
    assert len(together[0].spans) >= 1 and len(together[1].spans) >= 1


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


def test_a_file_that_fails_decoding_comes_before_a_later_changed_file(
        jobs: list[SpeechJob]) -> None:
    """File a has the bytes the manifest names but not the length its T needs (a
    decoding check), and file b differs from its manifest hash (a reading check): a, the
    first in job order, is reported, as file by file."""
    short = SpeechJob("a", jobs[0].path, jobs[0].expected_sha256, jobs[0].duration_s + 1)
    jobs[1].path.write_bytes(jobs[1].path.read_bytes()[:-2] + b"\x01\x00")
    with pytest.raises(InputError, match="needs exactly") as info:
        _segment_group([(short, None), (jobs[1], None)])
    assert (info.value.sample_id, info.value.path) == ("a", str(jobs[0].path))


def test_a_missing_model_is_one_line_not_a_traceback(
        jobs: list[SpeechJob], monkeypatch: pytest.MonkeyPatch) -> None:
    """A refusal about no file (silero-vad not installed) passes through as it is: it
    names no sample, and the command shows it as one line with exit 2."""
    def not_installed() -> None:
        raise SileroNotInstalledError("no silero-vad")

    monkeypatch.setattr(speech_module, "_worker_vad", None)
    monkeypatch.setattr("speecheval.vad.silero.locate_model_files", not_installed)
    with pytest.raises(SileroNotInstalledError, match="no silero-vad") as info:
        segment_file(jobs[0])
    assert info.value.sample_id is None and info.value.exit_code == 2


def test_a_cache_folder_not_there_yet_is_all_misses_without_a_lookup(
        jobs: list[SpeechJob], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No entry key is computed and no file opened for a folder that does not exist; a
    folder that exists is looked up entry by entry (here: empty, so misses too)."""
    looked: list[str] = []
    monkeypatch.setattr(VadCache, "get", lambda self, sha: looked.append(sha) or ("miss", None))
    absent = [SpeechJob(j.sample_id, j.path, j.expected_sha256, j.duration_s,
                        tmp_path / "new-cache") for j in jobs]
    assert _look_up_all(absent) == [("miss", None)] * 4 and looked == []
    (tmp_path / "new-cache").mkdir()
    assert _look_up_all(absent) == [("miss", None)] * 4
    assert looked == [job.expected_sha256 for job in jobs]
