"""Bad manifests and inputs: exit 2, a message naming file, sample and key, no output."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from speecheval.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "transcripts"


@pytest.fixture
def example(tmp_path: Path) -> Path:
    """A private copy of the example data, so a test can break one file."""
    target = tmp_path / "data"
    shutil.copytree(EXAMPLE, target)
    return target


def manifest_data(folder: Path) -> dict:  # type: ignore[type-arg]
    return yaml.safe_load((folder / "manifest.yaml").read_text(encoding="utf-8"))


def run(manifest: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["transcripts", "score", "--manifest", str(manifest), "--out", str(out)])
    captured = capsys.readouterr()
    return code, captured.err


def write(folder: Path, data: dict, name: str = "bad.yaml") -> Path:  # type: ignore[type-arg]
    path = folder / name
    path.write_text(json.dumps(data) if name.endswith(".json") else yaml.safe_dump(data),
                    encoding="utf-8")
    return path


def assert_refused(code: int, err: str, out: Path, *parts: str) -> None:
    assert code == 2
    for part in parts:
        assert part in err
    assert not out.exists()
    assert not list(out.parent.glob(f".{out.name}*"))  # no staging directory left behind


@pytest.mark.parametrize(("where", "expected"), [
    ("top", "extra (line 1): unknown key; allowed keys are extra_measures, format, "
            "hypotheses, judgements, required_repeats, samples, scenarios, "
            "speaker_attribution, speaker_labels, system, timestamp_max_input_s, "
            "timestamp_source, token_timestamps"),
    ("scenario", "scenarios.meeting-en.extra (line 81): unknown key; allowed keys are core, "
                 "covers, reference_leak_free, unit"),
    ("sample", "samples[1].extra (line 25): unknown key; allowed keys are data_revision, "
               "duration_s, id, kind, license, reference, reference_type, runs, scenario, "
               "source, speakers, synthetic"),
    ("reference", "samples[1].reference.extra (line 27): unknown key; allowed keys are rttm, "
                  "terms, transcript, words"),
    ("run", "samples[1].runs[0].extra (line 29): unknown key; allowed keys are chunk_cuts, "
            "failed, repeat, rttm, transcript, words"),
])
def test_unknown_keys_are_named(example: Path, tmp_path: Path, where: str, expected: str,
                                capsys: pytest.CaptureFixture[str]) -> None:
    data = manifest_data(example)
    target = {"top": data, "scenario": data["scenarios"]["meeting-en"],
              "sample": data["samples"][1], "reference": data["samples"][1]["reference"],
              "run": data["samples"][1]["runs"][0]}[where]
    target["extra"] = 1
    bad = write(example, data)
    out = tmp_path / "out"
    code, err = run(bad, out, capsys)
    assert_refused(code, err, out, str(bad), expected)
    if where not in ("top", "scenario"):
        assert "sample en-review" in err


def test_json_manifest_is_read_the_same_way(example: Path, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    manifest = write(example, manifest_data(example), "same.json")
    code, _ = run(manifest, tmp_path / "out", capsys)
    assert code == 0
    assert "%WER 21.74 [ 5 / 23" in (tmp_path / "out" / "summary.txt").read_text("utf-8")


def test_duplicate_yaml_key(example: Path, tmp_path: Path,
                            capsys: pytest.CaptureFixture[str]) -> None:
    text = (example / "manifest.yaml").read_text(encoding="utf-8")
    bad = example / "dup.yaml"
    bad.write_text(text.replace("system: example-asr\n",
                                "system: example-asr\nsystem: other\n"), encoding="utf-8")
    out = tmp_path / "out"
    code, err = run(bad, out, capsys)
    assert_refused(code, err, out, str(bad), "key 'system' appears twice")


@pytest.mark.parametrize(("change", "expected"), [
    (lambda d: d["samples"][0]["runs"][0].update(transcript="hyp/missing.json"),
     "samples[0].runs[0].transcript (line 13): file not found"),
    (lambda d: d["samples"][0].update(duration_s=0),
     "samples[0].duration_s (line 4): must be a positive"),
    (lambda d: d["samples"][0].update(scenario="nowhere"),
     "samples[0].scenario (line 19): 'nowhere' is not declared under scenarios"),
    (lambda d: d["samples"][2].update(reference={"transcript": "ref/en-review.stm"}),
     "samples[2].reference (line 41): a silence sample has no reference transcript"),
    (lambda d: d["samples"][1]["runs"][1].update(transcript="hyp/en-review.srt"),
     "samples[1].runs[1].transcript (line 33): a failed run has no files, but 'transcript' "
     "is given"),
    (lambda d: d["samples"][1].update(id="en-standup"),
     "sample en-standup: "),
    (lambda d: d["samples"][1].update(id="en-standup"),
     "samples[1].id (line 25): appears twice (first samples[0], line 5)"),
    (lambda d: d["scenarios"]["meeting-en"].update(unit="phone"),
     "scenarios.meeting-en.unit (line 82): must be one of 'word', 'char' or 'mixed', "
     "got 'phone'"),
    (lambda d: d["scenarios"].update({7: {"unit": "word"}}),
     "scenarios (line 87): key '7' is not a string"),
    (lambda d: d.update(format="other/1"),
     "format (line 1): must be one of 'speecheval.transcripts.manifest/1', got 'other/1'"),
    (lambda d: d["samples"][0].update(speakers="alice"),
     "samples[0].speakers (line 21): must be a list, got 'alice'"),
    (lambda d: d["samples"][0]["runs"][0].update(transcript="ref/en-standup.ctm.bak"),
     "samples[0].runs[0].transcript (line 13): 'ref/en-standup.ctm.bak' has an unknown "
     "transcript format; expected a suffix among .ctm, .json"),
    (lambda d: d["samples"][0]["runs"].append({"repeat": 1, "failed": "x"}),
     "samples[0].runs (line 10): a repeat index appears twice"),
    (lambda d: d["samples"][0].pop("reference"),
     "samples[0].reference (line 4): a speech sample needs a reference transcript"),
    (lambda d: d["samples"][0]["runs"][0].pop("transcript"),
     "samples[0].runs[0].transcript (line 11): is required for a run that did not fail"),
    (lambda d: d["samples"][0].update(runs=[]), "samples[0].runs (line 10): must list at least"),
    (lambda d: d.update(samples=[]), "samples (line"),
    (lambda d: d["scenarios"].update(spare={"unit": "word"}),
     "scenarios.spare (line 87): is declared but has no samples"),
    (lambda d: d["samples"][0].update(id="a b"),
     "samples[0].id (line 5): 'a b' may hold only letters"),
    # unfixed: ValueError from term_counts while scoring, a traceback (exit 1)
    (lambda d: d["samples"][0]["reference"].update(terms=["Kubernetes", "..."]),
     "samples[0].reference.terms[1] (line 9): '...' is empty after normalisation"),
])
def test_schema_errors(example: Path, tmp_path: Path, change, expected: str,  # type: ignore[no-untyped-def]
                       capsys: pytest.CaptureFixture[str]) -> None:
    data = manifest_data(example)
    change(data)
    bad = write(example, data)
    out = tmp_path / "out"
    code, err = run(bad, out, capsys)
    assert_refused(code, err, out, str(bad), expected)


def test_bad_transcript_line_names_file_and_sample(example: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    ctm = example / "hyp" / "en-standup.ctm"
    ctm.write_text(ctm.read_text(encoding="utf-8") + "standup 1 9.0 oops word\n",
                   encoding="utf-8")
    out = tmp_path / "out"
    code, err = run(example / "manifest.yaml", out, capsys)
    assert_refused(code, err, out, "sample en-standup", str(ctm), "line 15", "duration")


def test_existing_output_is_never_overwritten(example: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine", encoding="utf-8")
    code, err = run(example / "manifest.yaml", out, capsys)
    assert code == 2 and "already exists" in err
    assert [p.name for p in out.iterdir()] == ["keep.txt"]


def score_low_speech(tmp_path: Path, capsys: pytest.CaptureFixture[str], reference: str,
                     hypothesis: str) -> dict:  # type: ignore[type-arg]
    """Score one 4 s low-speech sample whose only turn (1.0-2.0 s) is ``reference`` and
    whose one run says ``hypothesis``; the run must succeed. Returns its samples.jsonl row."""
    (tmp_path / "ref.stm").write_text(f"low 1 A 1.0 2.0 {reference}\n", encoding="utf-8")
    (tmp_path / "hyp.stm").write_text(f"low 1 X 1.0 2.0 {hypothesis}\n", encoding="utf-8")
    manifest = write(tmp_path, {
        "format": "speecheval.transcripts.manifest/1", "system": "s",
        "scenarios": {"quiet": {"unit": "word"}},
        "samples": [{"id": "low", "scenario": "quiet", "duration_s": 4.0, "kind": "low_speech",
                     "source": "a", "reference": {"transcript": "ref.stm"},
                     "runs": [{"transcript": "hyp.stm"}]}]}, "m.json")
    code, _ = run(manifest, tmp_path / "out", capsys)
    assert code == 0
    return json.loads((tmp_path / "out" / "samples.jsonl").read_text("utf-8"))


def test_low_speech_gets_rates_and_hallucination(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    row = score_low_speech(tmp_path, capsys, reference="yes", hypothesis="yes yes okay")
    # 'yes' against 'yes yes okay': 2 insertions over 1 word. Hallucination counts only
    # the characters inserted against the reference: 'yes' (3 characters) against
    # 'yesyesokay' (10) matches 3 and inserts 7, so 7 / 4 s = 1.75 per second (not all
    # 10 output characters, 2.5, which would count the correctly heard 'yes').
    assert row["text"]["insertions"] == 2 and row["text"]["wer"] == 2.0
    assert row["hallucination"]["characters"] == 7
    assert row["hallucination"]["hallucinated_chars_per_second"] == pytest.approx(1.75)
    assert row["hallucination"]["nonempty_samples"] == 1
    scen = json.loads((tmp_path / "out" / "scenarios.json").read_text("utf-8"))
    # One sample: pipeline_smoke, whatever its numbers.
    assert scen["scenarios"]["quiet"]["maturity"]["level"] == "pipeline_smoke"


def test_low_speech_heard_correctly_is_not_hallucination(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A low-speech sample transcribed exactly ('yes.' for 'Yes'): no character is inserted
    # against the reference, so 0 hallucinated characters and the sample is not counted
    # as non-empty (before: 3 characters / 4 s = 0.75 per second, non-empty rate 1).
    row = score_low_speech(tmp_path, capsys, reference="Yes", hypothesis="yes.")
    assert row["hallucination"]["characters"] == 0
    assert row["hallucination"]["nonempty_output_rate"] == 0.0
    assert row["hallucination"]["hallucinated_chars_per_second"] == 0.0


def _refused_sample_ep(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                      reference: dict[str, str], runs: dict[str, str]) -> list[str]:
    """Score a manifest of one sample ``ep`` (word unit) with these reference and run
    files, check it is refused (exit 2, no output directory) and return stderr's lines."""
    manifest = write(tmp_path, {
        "format": "speecheval.transcripts.manifest/1", "system": "s",
        "scenarios": {"q": {"unit": "word"}},
        "samples": [{"id": "ep", "scenario": "q", "duration_s": 4.0, "source": "a",
                     "reference": reference, "runs": [runs]}]}, "m.json")
    out = tmp_path / "out"
    code, err = run(manifest, out, capsys)
    assert_refused(code, err, out)
    return err.splitlines()


@pytest.mark.parametrize("side", ["reference", "run"])
def test_a_word_without_times_names_its_file_and_entry(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], side: str) -> None:
    """A words file whose entry 1 has a null end time: one line naming the sample, the
    file, the entry and the word, exit 2 (unfixed: `sample ep: timestamps: a timed segment
    needs a start and an end time`, naming no file)."""
    (tmp_path / "ref.stm").write_text("ep 1 A 0.0 2.0 hello there\n", encoding="utf-8")
    (tmp_path / "hyp.stm").write_text("ep 1 X 0.0 2.0 hello there\n", encoding="utf-8")
    (tmp_path / "words.json").write_text(json.dumps([
        {"session_id": "ep", "speaker": "X", "start_time": 0.1, "end_time": 0.5,
         "words": "hello"},
        {"session_id": "ep", "speaker": "X", "start_time": 0.6, "end_time": None,
         "words": "there"}]), encoding="utf-8")
    reference: dict[str, str] = {"transcript": "ref.stm"}
    runs: dict[str, str] = {"transcript": "hyp.stm"}
    (reference if side == "reference" else runs)["words"] = "words.json"
    assert _refused_sample_ep(tmp_path, capsys, reference, runs) == [
        f"error: sample ep: {tmp_path / 'words.json'}: timestamps: a word without a start or "
        f"an end time (entry 1): 'there'"]


@pytest.mark.parametrize("side", ["reference", "run"])
def test_a_transcript_mixing_speakers_and_none_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], side: str) -> None:
    """A transcript (reference or run) whose entry 0 has a speaker and entry 1 none: exit 2,
    one line naming the sample, the file and the entry, no output directory."""
    (tmp_path / "whole.stm").write_text("ep 1 A 0.0 2.0 hello there\n", encoding="utf-8")
    (tmp_path / "mixed.json").write_text(json.dumps([
        {"session_id": "ep", "speaker": "A", "start_time": 0.0, "end_time": 1.0,
         "words": "hello"},
        {"session_id": "ep", "start_time": 1.0, "end_time": 2.0, "words": "there"}]),
        encoding="utf-8")
    reference, runs = ({"transcript": "mixed.json"}, {"transcript": "whole.stm"})
    if side == "run":
        reference, runs = runs, reference
    assert _refused_sample_ep(tmp_path, capsys, reference, runs) == [
        f"error: sample ep: {tmp_path / 'mixed.json'}: some segments have a speaker and "
        "some do not (entry 1)"]


def test_the_first_bad_sample_is_reported_not_a_later_one_the_support_scan_read(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Sample a's reference mixes speakers and none, and so does sample b's run. The scan
    for speaker support reads every run before any sample is scored; it used to refuse
    b's run first. Sample a, the first bad one in the manifest, is reported."""
    (tmp_path / "plain.stm").write_text("ep 1 X 0.0 2.0 hello there\n", encoding="utf-8")
    (tmp_path / "nospk.json").write_text(json.dumps([
        {"session_id": "ep", "start_time": 0.0, "end_time": 2.0, "words": "hello there"}]),
        encoding="utf-8")
    for name in ("mixed_a.json", "mixed_b.json"):
        (tmp_path / name).write_text(json.dumps([
            {"session_id": "ep", "speaker": "A", "start_time": 0.0, "end_time": 1.0,
             "words": "hello"},
            {"session_id": "ep", "start_time": 1.0, "end_time": 2.0, "words": "there"}]),
            encoding="utf-8")
    manifest = write(tmp_path, {
        "format": "speecheval.transcripts.manifest/1", "system": "s",
        "scenarios": {"q": {"unit": "word"}},
        "samples": [{"id": sample, "scenario": "q", "duration_s": 4.0, "source": "a",
                     "reference": {"transcript": reference}, "runs": [{"transcript": hyp}]}
                    for sample, reference, hyp in (("a", "mixed_a.json", "nospk.json"),
                                                   ("b", "plain.stm", "mixed_b.json"))]},
        "m.json")
    out = tmp_path / "out"
    code, err = run(manifest, out, capsys)
    assert_refused(code, err, out)
    assert err.splitlines() == [
        f"error: sample a: {tmp_path / 'mixed_a.json'}: some segments have a speaker and "
        "some do not (entry 1)"]


def test_a_scoring_bug_is_not_reported_as_bad_input(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A ValueError inside timestamp scoring is a fault of speecheval, not of the input:
    it propagates (a traceback at the command line) instead of becoming exit 2
    (unfixed: every ValueError became `sample low: timestamps: ...`, exit 2)."""
    import speecheval.transcripts.score.measures.timestamps as measure

    def broken(*args: object, **kwargs: object) -> None:
        raise ValueError("an internal invariant broke")

    monkeypatch.setattr(measure, "score_timestamps", broken)
    (tmp_path / "ref.stm").write_text("low 1 A 1.0 2.0 yes\n", encoding="utf-8")
    (tmp_path / "hyp.ctm").write_text("low 1 1.0 0.5 yes\n", encoding="utf-8")
    manifest = write(tmp_path, {
        "format": "speecheval.transcripts.manifest/1", "system": "s",
        "scenarios": {"q": {"unit": "word"}},
        "samples": [{"id": "low", "scenario": "q", "duration_s": 4.0, "source": "a",
                     "reference": {"transcript": "ref.stm"},
                     "runs": [{"transcript": "hyp.ctm"}]}]}, "m.json")
    with pytest.raises(ValueError, match="an internal invariant broke"):
        main(["transcripts", "score", "--manifest", str(manifest), "--out",
              str(tmp_path / "out")])
