"""``fdb10 reference-asr --executor ray``: real Whisper on a real local Ray cluster writes
the same bytes as ``--jobs 1`` and ``--jobs 2`` on this machine."""

from __future__ import annotations

from pathlib import Path

from speecheval.cli import main

from .test_reference_asr import WHISPER_SAMPLES, untranscribed


def test_the_same_transcripts_on_ray(ray_cluster: str, tmp_path: Path) -> None:
    runs = {"jobs1": ["--jobs", "1"], "jobs2": ["--jobs", "2"], "ray": ["--executor", "ray"]}
    trees = {}
    for name, options in runs.items():
        trees[name], _ = untranscribed(tmp_path / name, WHISPER_SAMPLES)
        assert main(["fdb10", "reference-asr", "--tree", str(trees[name]), *options]) == 0
    written = sorted(p.relative_to(trees["jobs1"]).as_posix()
                     for p in trees["jobs1"].glob("*/*/output.json"))
    assert len(written) == len(WHISPER_SAMPLES)
    for name in ("asr.json", *written):
        assert (trees["jobs1"] / name).read_bytes() == (trees["jobs2"] / name).read_bytes() \
            == (trees["ray"] / name).read_bytes(), name
