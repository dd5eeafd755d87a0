"""``speecheval transcripts gate`` end to end: one raw file, and a run directory."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from speecheval.cli import main
from speecheval.core.audio import write_wav

CANARY_TAIL = "[1284.75][S02]然后我们接下来聊一"


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def closed(until_s: float, step_s: float = 10.0) -> str:
    return "".join(f"[{t:.2f}][S0{1 + i % 2}]turn {i} with words {i * 3}[{t + step_s - 1:.2f}]"
                   for i, t in enumerate(np.arange(0.0, until_s, step_s)))


def test_one_raw_file_canary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    raw = tmp_path / "moss.txt"
    raw.write_text(closed(1280.0) + CANARY_TAIL, encoding="utf-8")
    meta = tmp_path / "meta.json"
    meta.write_text(json.dumps({"status": "succeeded"}), encoding="utf-8")
    out = tmp_path / "verdict.json"
    code, text, _ = run(["transcripts", "gate", "--raw", str(raw), "--duration", "2861.5",
                         "--last-speech", "2858", "--meta", str(meta), "--out", str(out)],
                        capsys)
    assert code == 0
    assert text.splitlines()[0].startswith(f"{raw}: failed_truncated (the raw output ends "
                                           f"in cut_text; the last valid timestamp 1284.75 s "
                                           f"(44.90 % of the audio)")
    record = json.loads(out.read_text(encoding="utf-8"))
    assert record["verdict"] == "failed_truncated"
    assert record["raw"]["format"] == "raw" and len(record["raw"]["sha256"]) == 64
    assert record["rules"]["version"] == "gate-rules-1"
    # never overwritten: the same --out again is refused before any work
    code, _, err = run(["transcripts", "gate", "--raw", str(raw), "--duration", "2861.5",
                        "--out", str(out)], capsys)
    assert code == 2 and "output already exists" in err


@pytest.mark.parametrize(("argv", "message"), [
    (["--raw", "RAW"], "--raw needs --duration"),
    ([], "give either a RUN directory or --raw FILE"),
    (["--raw", "RAW", "--duration", "5", "--format", "json"], None),
])
def test_explicit_mode_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                              argv: list[str], message: str | None) -> None:
    raw = tmp_path / "out.txt"
    raw.write_text("[0][S01]hi[1]", encoding="utf-8")
    code, text, err = run(["transcripts", "gate", *[str(raw) if a == "RAW" else a
                                                    for a in argv]], capsys)
    if message is None:  # raw tagged output read as JSON: a finding about the raw, not an error
        assert code == 0 and "failed_truncated (the raw output ends in unparsable_json)" in text
    else:
        assert code == 2 and message in err and "Traceback" not in err


def make_run(root: Path) -> Path:
    """A run in ``transcripts run``'s layout: two systems, one sample, two repeats."""
    run_dir = root / "RUN"
    write_wav(run_dir / "input" / "ep1.wav", np.zeros(16000 * 130, dtype=np.float32), 16000)
    folders = {
        ("good", "native_whole_context", "r1"): ("out.txt", closed(130.0), {"eos": True}),
        ("good", "native_whole_context", "r2"): ("out.txt", closed(130.0), {"eos": True}),
        ("moss", "production_complete_file/chunked", "r1"): (
            "out.txt", closed(60.0) + "[60.00][S0", {"status": "succeeded"}),
        ("many", "native_whole_context", "r1"): ("a.txt", "", {}),
    }
    for (system, track, repeat), (name, raw, meta) in folders.items():
        folder = run_dir / "raw" / system / track / "ep1" / repeat
        folder.mkdir(parents=True)
        (folder / name).write_text(raw, encoding="utf-8")
        (folder / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    (run_dir / "raw" / "many" / "native_whole_context" / "ep1" / "r1" / "b.txt").write_text("")
    return run_dir


def test_run_directory_is_gated_append_only(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    run_dir = make_run(tmp_path)
    samples = tmp_path / "samples.jsonl"
    samples.write_text(json.dumps({"sample": "ep1", "last_speech_s": 128.0,
                                   "boundary_source": "vad"}) + "\n", encoding="utf-8")
    code, text, _ = run(["transcripts", "gate", str(run_dir), "--samples", str(samples)],
                        capsys)
    assert code == 0, text
    lines = text.splitlines()
    assert lines[:4] == [
        "good/native_whole_context/ep1/r1: engineering_complete",
        "good/native_whole_context/ep1/r2: engineering_complete",
        "many/native_whole_context/ep1/r1: not gated: 2 raw files beside meta.json and "
        "none named by raw_file",
        "moss/production_complete_file/chunked/ep1/r1: failed_truncated (the raw output ends "
        "in cut_speaker_tag; the last valid timestamp 60.0 s (46.15 % of the audio) stops "
        "short of the last speech at 128.0 s less the 2.0 s tolerance)",
    ]  # 60 / 130 = 46.153...%
    derived = sorted((run_dir / "derived" / "gate").iterdir())
    assert len(derived) == 1 and lines[4] == f"wrote {derived[0]}"
    first = (derived[0] / "verdicts.jsonl").read_bytes()
    records = [json.loads(line) for line in first.splitlines()]
    assert [r.get("verdict") for r in records] == [
        "engineering_complete", "engineering_complete", None, "failed_truncated"]
    assert records[3]["raw"]["path"] == "raw/moss/production_complete_file/chunked/ep1/r1/out.txt"
    lineage = json.loads((derived[0] / "lineage.json").read_text(encoding="utf-8"))
    assert len(lineage["parents"]) == 3 and lineage["audio"]["ep1"] is not None
    # the same inputs again: the folder is found, left as it is
    code, text, _ = run(["transcripts", "gate", str(run_dir), "--samples", str(samples)],
                        capsys)
    assert "already derived from the same inputs" in text.splitlines()[-1]
    assert (derived[0] / "verdicts.jsonl").read_bytes() == first
    # a new tolerance is a new derived artefact beside the old one
    code, text, _ = run(["transcripts", "gate", str(run_dir), "--samples", str(samples),
                         "--tolerance", "100"], capsys)
    assert len(list((run_dir / "derived" / "gate").iterdir())) == 2
    assert "moss/production_complete_file/chunked/ep1/r1: failed_truncated (the raw output " \
           "ends in cut_speaker_tag)" in text


@pytest.mark.parametrize(("samples_text", "message"), [
    ('{"sample": "ep1", "last_speech_s": -1}\n', "line 1: last_speech_s must be a number"),
    ('{"sample": "ep1"}\n{"sample": "ep1"}\n', "line 2: sample 'ep1' is listed twice"),
    ("not json\n", "line 1: not JSON"),
])
def test_bad_samples_file(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                          samples_text: str, message: str) -> None:
    run_dir = make_run(tmp_path)
    samples = tmp_path / "samples.jsonl"
    samples.write_text(samples_text, encoding="utf-8")
    code, _, err = run(["transcripts", "gate", str(run_dir), "--samples", str(samples)],
                       capsys)
    assert code == 2 and f"{samples}: {message}" in err
    assert not (run_dir / "derived").exists()


def test_a_sample_without_boundary_is_indeterminate(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    run_dir = make_run(tmp_path)
    samples = tmp_path / "samples.jsonl"
    samples.write_text('{"sample": "other", "last_speech_s": 1}\n', encoding="utf-8")
    code, text, _ = run(["transcripts", "gate", str(run_dir), "--samples", str(samples)],
                        capsys)
    assert code == 0
    assert text.splitlines()[0] == ("good/native_whole_context/ep1/r1: "
                                    "indeterminate_missing_coverage_evidence (the sample has "
                                    "no frozen last-speech boundary)")
