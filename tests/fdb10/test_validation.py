"""Every check of "Inputs and checks" stops with the sample id and the problem (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from speecheval.cli import main
from speecheval.core.errors import InputError
from speecheval.core.hashing import sha256_file
from speecheval.fdb.v10.scoring.unified import score_tree

from .treekit import Spec, interrupt, pauses, turn, write_tree

P, TT, UI = "synthetic_pause_handling", "candor_turn_taking", "synthetic_user_interruption"


def good_specs() -> list[Spec]:
    return [Spec(P, "p", 6.0, [("a", 2.5, 2.7)], pauses((2, 3), (4, 5))),
            Spec(TT, "t", 6.0, [("a", 2.5, 2.7)], turn(2.0)),
            Spec(UI, "u", 10.0, [("a", 8.0, 8.2)], interrupt(5.0, 7.0))]


def expect_error(tree: Path, sample_id: str | None, fragment: str) -> InputError:
    with pytest.raises(InputError) as info:
        score_tree(tree)
    assert fragment in str(info.value)
    if sample_id is not None:
        assert info.value.sample_id == sample_id
    return info.value


def rewrite(tree: Path, relative: str, data: object) -> None:
    (tree / relative).write_text(json.dumps(data))


def test_good_tree_scores(tmp_path: Path, hand_segments) -> None:
    hand_segments({f"{UI}/u": [(0.0, 6.0)]})
    rows = {row["sample_id"]: row for row in
            (r.report_dict() for r in score_tree(write_tree(tmp_path / "t", good_specs())).rows)}
    expected = {
        # T = 6, pauses [2, 3) and [4, 5), one word 2.5-2.7: it starts after the first
        # pause start (intrusion) inside [2, 3); pause 1 owns [2, 4), so 1 of 2 pauses is
        # intruded; it covers 0.2 s of 1 + 1 = 2 s of pause time.
        f"{P}/p": {"eligible": True, "words": 1, "pause_intrusion": True,
                   "inside_pause_onset": True, "pre_pause_speech": False, "carry_in": False,
                   "any_speech": True, "intrusion_words": 1, "pauses": 2,
                   "intruded_pauses": 1, "pause_s": 2.0, "intrusion_s": 0.2,
                   "first_pause_start_s": 2.0},
        # E = 2.0, first word 2.5: response, latency 0.5; observable T - E = 4.0
        f"{TT}/t": {"eligible": True, "E": 2.0, "outcome": "response", "first_word_s": 2.5,
                    "latency_s": 0.5, "observable_s": 4.0},
        # S = 5, R = 7, T = 10; speech [0, 6) covers S (stop 6 - 5 = 1.0, observed since
        # 6 < T), ends before R; speech inside [5, 7] = 1.0; first word 8.0 -> latency 1.0
        f"{UI}/u": {"eligible": True, "S": 5.0, "R": 7.0, "outcome": "response",
                    "speech_at_onset": True, "speech_at_end": False,
                    "speech_before_onset": True, "stop_s": 1.0, "stop_observed": True,
                    "speech_in_interruption_s": 1.0, "restarts": 0, "first_word_s": 8.0,
                    "latency_s": 1.0, "segments": [[0.0, 6.0]]},
    }
    assert set(rows) == set(expected)
    for sample_id, values in expected.items():
        assert {key: rows[sample_id][key] for key in values} == values, sample_id


def test_tree_without_asr_json_is_refused(tmp_path: Path, hand_segments) -> None:
    tree = write_tree(tmp_path / "t", good_specs(), with_asr=False)
    expect_error(tree, None, "no asr.json")


@pytest.mark.parametrize("relative,sample_id,fragment", [
    (f"{P}/p/output.json", f"{P}/p", "differs from asr.json"),
    (f"{P}/p/pause.json", f"{P}/p", "differs from manifest.json"),
    (f"{TT}/t/turn_taking.json", f"{TT}/t", "differs from manifest.json"),
])
def test_changed_files_are_refused(tmp_path: Path, hand_segments, relative: str,
                                   sample_id: str, fragment: str) -> None:
    tree = write_tree(tmp_path / "t", good_specs())
    path = tree / relative
    path.write_text(path.read_text() + " ")
    expect_error(tree, sample_id, fragment)


def test_changed_interruption_audio_is_refused(tmp_path: Path) -> None:
    # The real Silero path reads and hashes the file, so no segment seam here.
    tree = write_tree(tmp_path / "t", good_specs())
    wav = tree / UI / "u" / "output.wav"
    data = bytearray(wav.read_bytes())
    data[-1] ^= 1
    wav.write_bytes(bytes(data))
    expect_error(tree, f"{UI}/u", "output.wav differs from manifest.json")


def test_audio_must_hold_exactly_t_seconds(tmp_path: Path, hand_segments) -> None:
    specs = good_specs()
    specs[0].audio = np.zeros(round(6.0 * 16000) - 1, np.int16)   # one sample short
    tree = write_tree(tmp_path / "t", specs)
    expect_error(tree, f"{P}/p", "needs exactly 96000")


@pytest.mark.parametrize("spec,fragment", [
    (Spec(P, "p", 6.0, [("a", 6.5, 6.7)], pauses((2, 3))), "outside the input window"),
    (Spec(P, "p", 6.0, [("a", -0.1, 0.2)], pauses((2, 3))), "outside the input window"),
    (Spec(P, "p", 6.0, [("a", 2.0, 1.0)], pauses((2, 3))), "ends before it starts"),
    (Spec(P, "p", 6.0, [], []), "non-empty list"),
    (Spec(P, "p", 6.0, [], pauses((3, 2))), "ends before it starts"),
    (Spec(P, "p", 6.0, [], pauses((3, 4), (1, 2))), "sorted and not overlap"),
    (Spec(P, "p", 6.0, [], pauses((1, 3), (2, 4))), "sorted and not overlap"),
    (Spec(P, "p", 6.0, [], pauses((5, 7))), "outside the input window"),
    (Spec(TT, "t", 6.0, [], turn(6.5)), "E (turn_taking[0] start)"),
    (Spec(UI, "u", 10.0, [], interrupt(7.0, 5.0)), "ends (R) before it starts (S)"),
    (Spec(UI, "u", 10.0, [], interrupt(5.0, 11.0)), "R (interruption end)"),
    (Spec(UI, "u", 10.0, [("early", 6.9, 7.2)], interrupt(5.0, 7.0)), "before R"),
    (Spec(P, "p", 6.0, [("a", "x", 1.0)], pauses((2, 3))), "is not a number"),
])
def test_bad_times_name_the_sample(tmp_path: Path, hand_segments, spec: Spec,
                                   fragment: str) -> None:
    tree = write_tree(tmp_path / "t", [spec])
    expect_error(tree, spec.sample_id, fragment)


def _manifest(tree: Path) -> dict:
    return json.loads((tree / "manifest.json").read_text())


@pytest.mark.parametrize("mutate,fragment", [
    (lambda m: m.update(kind="other"), "kind must be"),
    (lambda m: m.update(schema_version=2), "unsupported schema_version"),
    (lambda m: m["samples"][0].update(subset="nope"), "unknown subset"),
    (lambda m: m["samples"][0].update(task="backchannel"), "does not match subset"),
    (lambda m: m["samples"][0].update(sample_id="x/p"), "sample_id must be"),
    (lambda m: m["samples"][0].update(input_duration_s=0), "positive number"),
    (lambda m: m["samples"][0].update(input_duration_s=0.031999), "shorter than one Silero"),
    (lambda m: m["samples"][0].update(eligible=False), "must give its reasons"),
    (lambda m: m["samples"].append(dict(m["samples"][0])), "listed twice"),
    (lambda m: m["dataset"]["declared"].update(synthetic_pause_handling=0), "more than"),
    (lambda m: m["samples"][0]["files"].pop("pause.json"), "no sha256 for pause.json"),
])
def test_manifest_checks(tmp_path: Path, hand_segments, mutate, fragment: str) -> None:
    tree = write_tree(tmp_path / "t", good_specs())
    manifest = _manifest(tree)
    mutate(manifest)
    rewrite(tree, "manifest.json", manifest)
    expect_error(tree, None, fragment)


def test_eligible_sample_missing_from_asr_json(tmp_path: Path, hand_segments) -> None:
    tree = write_tree(tmp_path / "t", good_specs())
    asr = json.loads((tree / "asr.json").read_text())
    del asr["transcripts"][f"{TT}/t"]
    rewrite(tree, "asr.json", asr)
    expect_error(tree, f"{TT}/t", "no transcript hash")


def test_cli_exit_2_and_no_output_left(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       hand_segments) -> None:
    tree = write_tree(tmp_path / "t", good_specs())
    path = tree / P / "p" / "output.json"
    path.write_text(path.read_text() + " ")
    out = tmp_path / "scores"
    assert main(["fdb10", "unified-score", "--tree", str(tree), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"sample {P}/p" in err and "differs from asr.json" in err
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["t"]   # no staging directory left


def test_cli_refuses_existing_output(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                     hand_segments) -> None:
    tree = write_tree(tmp_path / "t", good_specs())
    (tmp_path / "scores").mkdir()
    assert main(["fdb10", "unified-score", "--tree", str(tree),
                 "--out", str(tmp_path / "scores")]) == 2
    assert "never overwritten" in capsys.readouterr().err


def test_changed_interruption_annotation_is_refused(tmp_path: Path, hand_segments) -> None:
    tree = write_tree(tmp_path / "t", good_specs())
    path = tree / UI / "u" / "interrupt.json"
    path.write_text(path.read_text() + " ")
    expect_error(tree, f"{UI}/u", "interrupt.json differs from manifest.json")


@pytest.mark.parametrize("relative,sample_id,fragment", [
    (f"{P}/p/output.json", f"{P}/p", "output.json is missing"),
    (f"{P}/p/pause.json", f"{P}/p", "pause.json is missing"),
    (f"{TT}/t/output.wav", f"{TT}/t", "output.wav is missing"),
])
def test_missing_files_are_refused(tmp_path: Path, hand_segments, relative: str,
                                   sample_id: str, fragment: str) -> None:
    tree = write_tree(tmp_path / "t", good_specs())
    (tree / relative).unlink()
    expect_error(tree, sample_id, fragment)


def test_stereo_output_is_refused(tmp_path: Path, hand_segments) -> None:
    specs = good_specs()
    specs[1].audio = np.zeros((round(6.0 * 16000), 2), np.int16)
    tree = write_tree(tmp_path / "t", specs)
    expect_error(tree, f"{TT}/t", "must be mono, found 2 channels")


def test_invalid_json_is_refused(tmp_path: Path, hand_segments) -> None:
    tree = write_tree(tmp_path / "t", good_specs())
    (tree / "manifest.json").write_text("{not json")
    expect_error(tree, None, "manifest.json: line 1: not valid JSON")


@pytest.mark.parametrize("transcript,fragment", [
    ("{not json", "is not valid JSON"),
    ('{"text": "", "chunks": {}}', "'chunks' list"),
    ('{"text": "a", "chunks": [{"text": "a", "timestamp": [1.0]}]}', "[start, end]"),
    ('{"text": "a", "chunks": [{"text": 3, "timestamp": [1.0, 2.0]}]}', "text must be a string"),
])
def test_malformed_transcripts_are_refused(tmp_path: Path, hand_segments, transcript: str,
                                           fragment: str) -> None:
    tree = write_tree(tmp_path / "t", good_specs())
    (tree / P / "p" / "output.json").write_text(transcript)
    asr = json.loads((tree / "asr.json").read_text())
    asr["transcripts"][f"{P}/p"] = sha256_file(tree / P / "p" / "output.json")
    rewrite(tree, "asr.json", asr)
    expect_error(tree, f"{P}/p", fragment)


@pytest.mark.parametrize("spec,fragment", [
    (Spec(TT, "t", 6.0, [], turn(-0.5)), "E (turn_taking[0] start)"),
    (Spec(UI, "u", 10.0, [], interrupt(-1.0, 2.0)), "S (interruption onset)"),
    (Spec(P, "p", 6.0, [], ["[PAUSE] 2 3"]), "pause 0 is not an object"),
])
def test_more_bad_annotations(tmp_path: Path, hand_segments, spec: Spec, fragment: str) -> None:
    tree = write_tree(tmp_path / "t", [spec])
    expect_error(tree, spec.sample_id, fragment)


@pytest.mark.parametrize("mutate,fragment", [
    (lambda a: a.update(kind="fdb-v1.0-reference-tree"), "kind must be"),
    (lambda a: a.update(schema_version=9), "unsupported schema_version"),
    (lambda a: a.update(transcripts=["x"]), "transcripts (line 1): must be a mapping"),
    (lambda a: a.update(asr="whisper"), "asr (line 1): must be a mapping, got 'whisper'"),
])
def test_asr_json_checks(tmp_path: Path, hand_segments, mutate, fragment: str) -> None:
    tree = write_tree(tmp_path / "t", good_specs())
    asr = json.loads((tree / "asr.json").read_text())
    mutate(asr)
    rewrite(tree, "asr.json", asr)
    expect_error(tree, None, fragment)


def test_declared_unknown_subset_is_refused(tmp_path: Path, hand_segments) -> None:
    tree = write_tree(tmp_path / "t", good_specs())
    manifest = _manifest(tree)
    manifest["dataset"]["declared"]["made_up_subset"] = 3
    rewrite(tree, "manifest.json", manifest)
    expect_error(tree, None, "unknown subset 'made_up_subset'")


def test_t_shorter_than_one_silero_window_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], hand_segments) -> None:
    # The case: T = 0.00002 s with a 0-sample wav (round(0.00002 * 16000) = 0).
    specs = good_specs()
    specs[2] = Spec(UI, "u", 0.00002, [], interrupt(0.0, 0.0))
    tree = write_tree(tmp_path / "t", specs)
    out = tmp_path / "scores"
    assert main(["fdb10", "unified-score", "--tree", str(tree), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"sample {UI}/u" in err and "shorter than one Silero window" in err
    assert not out.exists()


def test_t_of_exactly_one_silero_window_is_scored(tmp_path: Path, hand_segments) -> None:
    # 0.032 s is one window: 512 samples at 16 kHz, 256 at 8 kHz.
    hand_segments({f"{UI}/u": [(0.0, 0.032)]})
    specs = [Spec(UI, "u", 0.032, [], interrupt(0.01, 0.02)),
             Spec(TT, "t", 0.032, [], turn(0.01), rate=8000)]
    rows = [r.report_dict() for r in score_tree(write_tree(tmp_path / "t", specs)).rows]
    assert [r["outcome"] for r in rows] == ["no_response", "speaking_at_end"]


def test_minimum_t_is_the_silero_window() -> None:
    from speecheval.fdb.common.tree import SILERO_WINDOW_S
    from speecheval.vad import silero_spec

    for rate, (window, _context) in silero_spec.FRAMING.items():
        assert window / rate == SILERO_WINDOW_S


def _replace_output(tree: Path, sample_id: str, data: bytes) -> Path:
    """Put ``data`` in the sample's output.wav and list its sha256 in manifest.json."""
    wav = tree / sample_id / "output.wav"
    wav.write_bytes(data)
    manifest = _manifest(tree)
    entry = next(s for s in manifest["samples"] if s["sample_id"] == sample_id)
    entry["files"]["output.wav"] = sha256_file(wav)
    rewrite(tree, "manifest.json", manifest)
    return wav


def test_truncated_output_is_refused_as_truncated(tmp_path: Path, hand_segments) -> None:
    # Header: 96000 frames (6 s at 16 kHz) = 192000 bytes; only 30 ms (960 bytes) present.
    # libsndfile alone reports 480 frames, which read as "holds 480 samples".
    tree = write_tree(tmp_path / "t", good_specs())
    wav = tree / P / "p" / "output.wav"
    wav.write_bytes(wav.read_bytes()[:44 + 960])
    error = expect_error(tree, f"{P}/p", "truncated audio: the header declares 192000 bytes "
                                         "of samples (6.000 s) but only 960 (0.030 s)")
    assert error.path == str(wav)


def test_non_finite_interruption_output_is_refused(tmp_path: Path) -> None:
    tree = write_tree(tmp_path / "t", good_specs())
    samples = np.zeros(160000, np.float32)
    samples[16000] = np.nan                       # 1.000 s into the 10 s output
    from speecheval.core.audio import encode_wav

    wav = _replace_output(tree, f"{UI}/u", encode_wav(samples, 16000, "FLOAT"))
    error = expect_error(tree, f"{UI}/u", "audio has 1 non-finite samples (NaN or infinite), "
                                          "the first at sample 16000 (1.000 s)")
    assert error.path == str(wav)


def test_unknown_sample_key_is_refused_with_sample_key_and_line(tmp_path: Path,
                                                                hand_segments) -> None:
    tree = write_tree(tmp_path / "t", good_specs())
    manifest = _manifest(tree)
    manifest["samples"][1]["eligable"] = True  # a misspelt key must not read as absent
    (tree / "manifest.json").write_text(json.dumps(manifest, indent=1))
    lines = (tree / "manifest.json").read_text().splitlines()
    line = next(i for i, text in enumerate(lines, 1) if '"eligable"' in text)
    error = expect_error(tree, f"{TT}/t", f"samples[1].eligable (line {line}): unknown key; "
                                          "allowed keys are capture, eligibility_details, "
                                          "eligible, faults_after_t, files, ")
    assert error.path == str(tree / "manifest.json")


def test_a_writers_own_top_level_record_is_accepted(tmp_path: Path, hand_segments) -> None:
    hand_segments({f"{UI}/u": [(0.0, 6.0)]})
    tree = write_tree(tmp_path / "t", good_specs())
    manifest = _manifest(tree)
    manifest["capture"] = {"tool": "someone else's recorder"}
    rewrite(tree, "manifest.json", manifest)
    asr = json.loads((tree / "asr.json").read_text())
    asr["notes"] = ["transcribed twice"]
    rewrite(tree, "asr.json", asr)
    assert score_tree(tree).rows


def test_manifest_sample_errors_name_the_sample(tmp_path: Path, hand_segments) -> None:
    tree = write_tree(tmp_path / "t", good_specs())
    manifest = _manifest(tree)
    manifest["samples"][1]["input_duration_s"] = "6.0"
    rewrite(tree, "manifest.json", manifest)
    expect_error(tree, f"{TT}/t", "samples[1].input_duration_s (line 1): must be a number, "
                                  "got '6.0'")
