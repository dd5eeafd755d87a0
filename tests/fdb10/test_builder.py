"""Tests of the generated FDB v1.0 reference trees (speecheval.fdb.v10.builder.trees)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from speecheval.core.audio import audio_info, read_mono
from speecheval.core.errors import InputError
from speecheval.core.hashing import sha256_file
from speecheval.core.timebase import to_us
from speecheval.fdb.v10.builder.clips import load_clips, speech_dir
from speecheval.fdb.v10.builder.mini import mini_specs
from speecheval.fdb.v10.builder.scale import scale_specs
from speecheval.fdb.v10.builder.spec import (
    DECLARED_SIZES,
    RATE,
    SUBSET_TASKS,
    BuiltSample,
    Placement,
    SampleSpec,
)
from speecheval.fdb.v10.builder.trees import build_mini_tree, build_tree
from speecheval.fdb.v10.cli.build import build_tree as build_tree_command
from speecheval.vad.silero import SileroVad

Words = list[tuple[int, int | None]]


@pytest.fixture(scope="module")
def mini(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[BuiltSample]]:
    root = tmp_path_factory.mktemp("mini") / "tree"
    return root, build_mini_tree(root)


def _manifest(root: Path) -> dict[str, Any]:
    return dict(json.loads((root / "manifest.json").read_text()))


def _words(root: Path, sample_id: str) -> Words:
    """Transcript words as integer microseconds (start, end or None)."""
    doc = json.loads((root / sample_id / "output.json").read_text())
    return [(to_us(c["timestamp"][0]),
             None if c["timestamp"][1] is None else to_us(c["timestamp"][1]))
            for c in doc["chunks"]]


def _annotation(root: Path, sample_id: str, name: str) -> list[dict[str, Any]]:
    return list(json.loads((root / sample_id / name).read_text()))


def _specs_by_id() -> dict[str, SampleSpec]:
    return {spec.sample_id: spec for spec in mini_specs()}


# --- tree format -------------------------------------------------------------------------


def test_manifest_lists_all_five_subsets_with_declared_sizes(mini: tuple[Path, list[BuiltSample]]
                                                             ) -> None:
    root, built = mini
    manifest = _manifest(root)
    assert manifest["kind"] == "fdb-v1.0-reference-tree"
    assert manifest["schema_version"] == 1
    assert manifest["dataset"]["declared"] == {
        "synthetic_pause_handling": 137, "candor_pause_handling": 216,
        "candor_turn_taking": 119, "synthetic_user_interruption": 200, "icc_backchannel": 55}
    samples = manifest["samples"]
    assert 40 <= len(samples) <= 60
    assert [s["sample_id"] for s in samples] == [b.sample_id for b in built]
    assert {s["subset"] for s in samples} == set(SUBSET_TASKS)
    for entry in samples:
        assert entry["sample_id"].startswith(entry["subset"] + "/")
        assert entry["task"] == SUBSET_TASKS[entry["subset"]]
        assert entry["eligible"] == (entry["reasons"] == [])


def test_ineligible_samples_have_one_or_several_reasons_in_several_subsets(
        mini: tuple[Path, list[BuiltSample]]) -> None:
    samples = _manifest(mini[0])["samples"]
    ineligible = [s for s in samples if not s["eligible"]]
    assert {len(s["reasons"]) for s in ineligible} >= {1, 2}
    assert len({s["subset"] for s in ineligible}) == 5


def test_hashes_in_manifest_and_asr_match_the_files(mini: tuple[Path, list[BuiltSample]]) -> None:
    root, _ = mini
    manifest = _manifest(root)
    for entry in manifest["samples"]:
        folder = root / entry["sample_id"]
        assert {p.name for p in folder.iterdir()} - {"output.json"} == set(entry["files"])
        for name, digest in entry["files"].items():
            assert sha256_file(folder / name) == digest, (entry["sample_id"], name)
    asr = json.loads((root / "asr.json").read_text())
    assert asr["kind"] == "fdb-v1.0-reference-asr"
    assert asr["schema_version"] == 1
    assert asr["asr"]["kind"] == "placement-times"
    assert asr["manifest_sha256"] == sha256_file(root / "manifest.json")
    with_output = [e["sample_id"] for e in manifest["samples"] if "output.wav" in e["files"]]
    assert sorted(asr["transcripts"]) == sorted(with_output)
    for sample_id, digest in asr["transcripts"].items():
        assert sha256_file(root / sample_id / "output.json") == digest


def test_output_wav_holds_exactly_round_t_times_rate_pcm16_samples(
        mini: tuple[Path, list[BuiltSample]]) -> None:
    root, _ = mini
    for entry in _manifest(root)["samples"]:
        if "output.wav" not in entry["files"]:
            continue
        info = audio_info(root / entry["sample_id"] / "output.wav")
        assert (info.rate, info.channels, info.subtype) == (RATE, 1, "PCM_16")
        assert info.n_samples == round(entry["input_duration_s"] * RATE), entry["sample_id"]
    # 11.23456 s * 16000 = 179752.96, so the file must hold 179753 samples.
    assert audio_info(root / "candor_pause_handling/7/output.wav").n_samples == 179753


def test_annotations_are_valid_and_in_the_official_layout(
        mini: tuple[Path, list[BuiltSample]]) -> None:
    root, _ = mini
    for entry in _manifest(root)["samples"]:
        sid, t_us = entry["sample_id"], to_us(entry["input_duration_s"])
        names = set(entry["files"]) - {"output.wav"}
        if entry["task"] == "pause_handling":
            assert names == {"pause.json"}
            pauses = _annotation(root, sid, "pause.json")
            assert pauses and all(p["text"] == "[PAUSE]" for p in pauses)
            times = [(to_us(p["timestamp"][0]), to_us(p["timestamp"][1])) for p in pauses]
            assert all(0 <= a <= b <= t_us for a, b in times), sid
            assert all(b1 <= a2 for (_, b1), (a2, _) in zip(times, times[1:], strict=False)), sid
        elif entry["task"] == "smooth_turn_taking":
            assert names == {"turn_taking.json"}
            (turn,) = _annotation(root, sid, "turn_taking.json")
            assert turn["text"] == "[TURN-TAKING]"
            assert 0 <= to_us(turn["timestamp"][0]) <= to_us(turn["timestamp"][1]) <= t_us
        elif entry["task"] == "user_interruption":
            assert names == {"interrupt.json"}
            (cut,) = _annotation(root, sid, "interrupt.json")
            assert set(cut) == {"context", "interrupt", "timestamp"}
            assert 0 <= to_us(cut["timestamp"][0]) <= to_us(cut["timestamp"][1]) <= t_us
        else:
            assert names == set()


def test_transcript_words_lie_in_the_window_and_interruption_words_start_at_r(
        mini: tuple[Path, list[BuiltSample]]) -> None:
    root, _ = mini
    for entry in _manifest(root)["samples"]:
        if "output.wav" not in entry["files"]:
            continue
        sid, t_us = entry["sample_id"], to_us(entry["input_duration_s"])
        words = _words(root, sid)
        assert words == sorted(words, key=lambda w: w[0])
        assert all(0 <= s < t_us and (e is None or s <= e <= t_us) for s, e in words), sid
        if entry["task"] == "user_interruption":
            r_us = to_us(_annotation(root, sid, "interrupt.json")[0]["timestamp"][1])
            assert all(s >= r_us for s, _ in words), sid


def test_float_noise_and_null_ends_survive_into_the_files(
        mini: tuple[Path, list[BuiltSample]]) -> None:
    root, _ = mini
    text = (root / "candor_turn_taking/3/turn_taking.json").read_text()
    assert "6.32000000000005" in text
    assert _words(root, "candor_turn_taking/3")[0][0] == to_us(6.32)
    assert "3.319999999999993" in (root / "candor_pause_handling/3/pause.json").read_text()
    assert _words(root, "candor_pause_handling/2") == [(3_200_000, None)]


def test_segment_to_t_sample_has_words_cut_at_t(mini: tuple[Path, list[BuiltSample]]) -> None:
    # l_museum placed at 6.34 s: "the" starts at 6.34 + 5.582 = 11.922 s and would end at
    # 6.34 + 5.842 = 12.182 s, past T = 12.0; "evening" would start at 12.222 s, after T.
    words = _words(mini[0], "synthetic_user_interruption/11")
    assert words[-1] == (11_922_000, 12_000_000)
    # The first word at or after R = 6.5 is "museum" at 6.34 + 0.3 = 6.64 s.
    assert words[0][0] == 6_640_000


def test_two_builds_write_identical_bytes(mini: tuple[Path, list[BuiltSample]],
                                          tmp_path: Path) -> None:
    first = mini[0]
    second = tmp_path / "again"
    build_mini_tree(second)
    files_a = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    files_b = sorted(p.relative_to(second) for p in second.rglob("*") if p.is_file())
    assert files_a == files_b
    for rel in files_a:
        assert (first / rel).read_bytes() == (second / rel).read_bytes(), rel


def test_existing_destination_is_refused_and_left_alone(tmp_path: Path) -> None:
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "keep.txt").write_text("x")
    with pytest.raises(InputError, match="already exists"):
        build_mini_tree(tmp_path / "tree")
    assert [p.name for p in (tmp_path / "tree").iterdir()] == ["keep.txt"]


# --- intended outcomes against the written times ----------------------------------------


def _pause_flags(words: Words, pauses: list[tuple[int, int]], t_us: int) -> dict[str, object]:
    """The spec's pause flags, worked out directly from the words (integer microseconds)."""
    first = pauses[0][0]
    starts = [s for s, _ in words]
    owners = [(a, nxt) for (a, _), nxt in zip(pauses, [p[0] for p in pauses[1:]] + [t_us + 1],
                                               strict=True)]
    return {
        "pause_intrusion": any(s >= first for s in starts),
        "inside_pause_onset": any(a <= s < b for s in starts for a, b in pauses),
        "pre_pause_speech": any(s < first for s in starts),
        "carry_in": any(s < first and e is not None and e > first for s, e in words),
        "any_speech": bool(words),
        "intrusion_words": sum(s >= first for s in starts),
        "intruded_pauses": sum(any(lo <= s < hi for s in starts) for lo, hi in owners),
    }


def test_intended_pause_flags_follow_from_the_written_words(
        mini: tuple[Path, list[BuiltSample]]) -> None:
    root, built = mini
    pause_samples = [b for b in built if b.task == "pause_handling" and b.eligible]
    assert len(pause_samples) >= 12
    for sample in pause_samples:
        pauses = [(to_us(p["timestamp"][0]), to_us(p["timestamp"][1]))
                  for p in _annotation(root, sample.sample_id, "pause.json")]
        flags = _pause_flags(_words(root, sample.sample_id), pauses,
                             to_us(sample.input_duration_s))
        expected = {k: v for k, v in sample.intended.items() if k != "case"}
        assert flags == expected, sample.sample_id
    cases = {b.intended["case"] for b in pause_samples}
    assert {"word exactly at a pause start", "carry-in only", "no speech at all",
            "zero-length word (null end) inside a pause", "words in several owned intervals",
            "intrusion outside the pauses", "pre-pause speech only"} <= cases


def test_intended_turn_taking_outcomes_follow_from_the_written_words(
        mini: tuple[Path, list[BuiltSample]]) -> None:
    root, built = mini
    samples = [b for b in built if b.task == "smooth_turn_taking" and b.eligible]
    for sample in samples:
        e_us = to_us(_annotation(root, sample.sample_id, "turn_taking.json")[0]["timestamp"][0])
        starts = [s for s, _ in _words(root, sample.sample_id)]
        if not starts:
            outcome, latency = "no_response", None
        elif min(starts) < e_us:
            outcome, latency = "early_start", None
        else:
            outcome, latency = "response", (min(starts) - e_us) / 1e6
        assert (outcome, latency) == (sample.intended["outcome"], sample.intended["latency_s"])
    latencies = [x for b in samples if isinstance(x := b.intended["latency_s"], float)]
    # One latency in each class: 0 (exactly at E), <= 1, <= 2, <= 5 and > 5 s.
    assert 0.0 in latencies and 1.0 in latencies and 2.0 in latencies
    assert any(2 < x <= 5 for x in latencies) and any(x > 5 for x in latencies)
    assert {b.intended["outcome"] for b in samples} == {"early_start", "response", "no_response"}


def test_intended_interruption_latencies_follow_from_the_written_words(
        mini: tuple[Path, list[BuiltSample]]) -> None:
    root, built = mini
    for sample in built:
        if sample.task != "user_interruption" or not sample.eligible:
            continue
        r_us = to_us(_annotation(root, sample.sample_id, "interrupt.json")[0]["timestamp"][1])
        starts = [s for s, _ in _words(root, sample.sample_id)]
        if sample.intended["outcome"] == "response":
            assert (starts[0] - r_us) / 1e6 == sample.intended["latency_s"], sample.sample_id
        if sample.intended["outcome"] == "no_response":
            assert starts == []
    outcomes = {b.intended["outcome"] for b in built
                if b.task == "user_interruption" and b.eligible}
    assert outcomes == {"not_exercised", "speaking_at_end", "response", "no_response"}


# --- Silero: the interruption flags hold on the real audio -------------------------------


def _silero_segments() -> Callable[[Path], list[tuple[float, float]]]:
    """Segments with the spec's settings, from speecheval's Silero wrapper."""
    vad = SileroVad()
    return lambda path: [(s.start_s, s.end_s) for s in vad.segments(read_mono(path))]


def test_silero_sees_the_intended_interruption_flags(mini: tuple[Path, list[BuiltSample]]
                                                     ) -> None:
    segments = _silero_segments()
    root, built = mini
    specs = _specs_by_id()
    checked = 0
    for sample in built:
        if sample.task != "user_interruption" or not sample.eligible:
            continue
        s, r = specs[sample.sample_id].interrupt or (0.0, 0.0)
        segs = [(to_us(a), to_us(b)) for a, b in segments(root / sample.sample_id / "output.wav")]
        s_us, r_us, t_us = to_us(s), to_us(r), to_us(sample.input_duration_s)
        covering = [b for a, b in segs if a <= s_us < b]
        seen = {
            "speech_at_onset": bool(covering),
            "speech_at_end": any(a < r_us < b for a, b in segs),
            "restarts": any(s_us < a < r_us for a, _ in segs),
            "stop_observed": None if not covering else covering[0] < t_us,
        }
        intended = {k: sample.intended[k] for k in seen}
        assert seen == intended, (sample.sample_id, segs)
        checked += 1
    assert checked == 13


# --- the full-size tree -----------------------------------------------------------------


def test_scale_specs_have_the_declared_sizes_and_realistic_lengths() -> None:
    specs = scale_specs(0)
    assert len(specs) == 727
    for subset, size in DECLARED_SIZES.items():
        assert sum(s.subset == subset for s in specs) == size
    lengths = {task: [s.duration_s for s in specs if s.task == task]
               for task in ("pause_handling", "smooth_turn_taking", "user_interruption")}
    assert all(5.0 <= t <= 20.0 for t in lengths["pause_handling"])
    assert all(10.0 <= t <= 15.0 for t in lengths["smooth_turn_taking"])
    assert all(27.0 <= t <= 33.0 for t in lengths["user_interruption"])
    assert 5 <= sum(not s.eligible for s in specs) <= 30
    patterns = {str(s.intended["pattern"]) for s in specs if s.task == "user_interruption"}
    assert patterns == {"response", "no_response", "speaking_at_end", "not_exercised"}


def test_scale_specs_are_deterministic_from_the_seed() -> None:
    assert scale_specs(0) == scale_specs(0)
    assert scale_specs(0) != scale_specs(1)


def test_scale_interruption_answers_keep_margins_around_s_and_r() -> None:
    clips = load_clips()
    for spec in scale_specs(0):
        if spec.interrupt is None or spec.intended["pattern"] == "speaking_at_end":
            continue
        s, r = spec.interrupt
        first_reply = min((p.start_s for p in spec.placements if p.start_s > r), default=None)
        answer = [p for p in spec.placements if p.start_s < r]
        stop = max(p.start_s + clips[p.clip].duration_s for p in answer)
        if spec.intended["pattern"] == "not_exercised":
            assert stop <= s - 0.3, spec.sample_id
        else:
            assert s + 0.3 <= stop <= r - 0.3, spec.sample_id
        assert first_reply is None or first_reply >= r + 0.2


def test_a_slice_of_the_scale_tree_builds_with_valid_hashes(tmp_path: Path) -> None:
    specs = scale_specs(0)[::60]
    built = build_tree(tmp_path / "t", specs, revision="test", generator={"name": "test"})
    assert len(built) == len(specs)
    manifest = _manifest(tmp_path / "t")
    for entry, spec in zip(manifest["samples"], specs, strict=True):
        folder = tmp_path / "t" / entry["sample_id"]
        assert audio_info(folder / "output.wav").n_samples == spec.n_samples
        for name, digest in entry["files"].items():
            assert sha256_file(folder / name) == digest
        starts = [s for s, _ in _words(tmp_path / "t", spec.sample_id)]
        if spec.turn is not None:
            assert spec.intended["outcome"] == (
                "no_response" if not starts else
                "early_start" if starts[0] < to_us(spec.turn[0]) else "response")
        reference = spec.turn or spec.interrupt
        if reference is not None and spec.intended["outcome"] == "response":
            reference_us = to_us(reference[0] if spec.turn else reference[1])
            assert (starts[0] - reference_us) / 1e6 == spec.intended["latency_s"]
    tasks = {s.task for s in specs}
    assert {"smooth_turn_taking", "user_interruption"} <= tasks


# --- clips, specs and the CLI ------------------------------------------------------------


def test_committed_clips_are_small_and_have_exact_word_times() -> None:
    folder = speech_dir()
    assert sum(p.stat().st_size for p in folder.glob("*.wav")) < 1_500_000
    index = json.loads((folder / "index.json").read_text())
    clips = load_clips()
    assert len(clips.clips) == len(index["clips"])
    for entry in index["clips"]:
        clip = clips[entry["name"]]
        assert clip.pcm.shape[0] == entry["n_samples"]
        words = clip.words
        assert words[0].start_us == 0
        assert words[-1].end_us == clip.pcm.shape[0] * 1_000_000 // RATE
        for w, nxt in zip(words, words[1:], strict=False):
            assert w.end_us < nxt.start_us <= w.end_us + 60_000  # gaps of 40 ms, under 60
        assert " ".join(w.text for w in words) == clip.text
        assert "," not in clip.text


def test_spec_refuses_off_sample_placements_and_mismatched_annotations() -> None:
    # Word times must be whole samples and whole microseconds: 2 samples = 125 us is the
    # finest step; one sample (62.5 us) or 30 us is refused.
    for bad in (1.00003, 1.0000625):
        with pytest.raises(ValueError, match="not on a sample"):
            Placement("w_yeah", bad)
    assert Placement("w_yeah", 1.000125).start_sample == 16002
    with pytest.raises(ValueError, match="does not match task"):
        SampleSpec(subset="candor_turn_taking", local_id="1", duration_s=5.0,
                   pauses=((1.0, 2.0),))
    with pytest.raises(ValueError, match="duplicate"):
        build_tree(Path("unused"), [mini_specs()[0]] * 2, revision="x", generator={})


def test_cli_builds_the_mini_tree_and_refuses_an_existing_directory(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(build_tree_command, ["--out", str(tmp_path / "t")])
    assert result.exit_code == 0, result.output
    assert "48 samples (42 eligible)" in result.output
    again = runner.invoke(build_tree_command, ["--out", str(tmp_path / "t")])
    assert isinstance(again.exception, InputError)
    usage = runner.invoke(build_tree_command, ["--out", str(tmp_path / "u"), "--seed", "3"])
    assert usage.exit_code == 2
    assert not (tmp_path / "u").exists()
