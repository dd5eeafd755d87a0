"""``speecheval transcripts score`` on examples/transcripts: numbers worked out by hand.

The example (two scenarios, two required repeats) is described in its manifest. Every
expected value below is derived in the comments from the transcripts themselves.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from speecheval.cli import main
from speecheval.core.hashing import sha256_file
from speecheval.core.provenance import read_provenance

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "transcripts" / "manifest.yaml"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("score") / "run"
    assert main(["transcripts", "score", "--manifest", str(EXAMPLE), "--out", str(out)]) == 0
    return out


def rows(run_dir: Path) -> dict[tuple[str, int], dict[str, Any]]:
    lines = (run_dir / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    return {(r["sample_id"], r["repeat"]): r for r in map(json.loads, lines)}


def scenarios(run_dir: Path) -> dict[str, Any]:
    return json.loads((run_dir / "scenarios.json").read_text(encoding="utf-8"))


def test_summary_lines(run_dir: Path) -> None:
    # meeting-en, repeat 1: en-standup 'kubernetes' -> 'cooper nettie' (1 S + 1 I) and
    # '3' -> 'three' (1 S) over 13 words; en-review 'approval by' -> 'a proval' (2 S) over
    # 10 words: 5 / 23 = 21.74 %. Repeat 2: en-review failed, all 10 words deleted:
    # 3 + 10 = 13 / 23 = 56.52 %. podcast-zh-en: '里' -> '儿' (1 of 22) and 'api' -> 'app'
    # (1 of 10 MER tokens): 2 / 32 = 6.25 % in both repeats.
    assert (run_dir / "summary.txt").read_text(encoding="utf-8").splitlines() == [
        "%WER 21.74 [ 5 / 23, 1 ins, 0 del, 4 sub ] scenario=meeting-en repeat=1",
        "%WER 56.52 [ 13 / 23, 1 ins, 10 del, 2 sub ] scenario=meeting-en repeat=2",
        "%MER 6.25 [ 2 / 32, 0 ins, 0 del, 2 sub ] scenario=podcast-zh-en repeat=1",
        "%MER 6.25 [ 2 / 32, 0 ins, 0 del, 2 sub ] scenario=podcast-zh-en repeat=2",
        # Scenario macros: meeting-en mean over repeats of (3/13 + 2/10) / 2 and
        # (3/13 + 1) / 2 = 41.54 %; duration-weighted (3/13*10 + 0.2*8) / 18 and
        # (3/13*10 + 1*8) / 18, mean 39.49 %. podcast: (1/22 + 1/10) / 2 = 7.27 %,
        # (1/22*12 + 0.1*6) / 18 = 6.36 %. Each macro carries the lowest maturity of the
        # scenarios it averages: meeting-en (WER) and podcast-zh-en (MER) are both
        # exploratory, with 2 rated samples each.
        "# WER scenario macro 41.54% over meeting-en; duration-weighted 39.49% (separate); "
        "maturity exploratory",
        "# MER scenario macro 7.27% over podcast-zh-en; duration-weighted 6.36% (separate); "
        "maturity exploratory",
    ]


def test_per_sample_rows(run_dir: Path) -> None:
    table = rows(run_dir)
    assert len(table) == 10  # 5 samples x 2 repeats
    standup = table[("en-standup", 1)]
    # meeting-en's WER rests on 2 speech samples (the silence clip gives no WER).
    assert standup["maturity"] == "exploratory"
    assert table[("zh-podcast", 2)]["maturity"] == "exploratory"
    assert standup["text"]["wer"] == pytest.approx(3 / 13)
    # cp: alice (8 words) vs S1: 1 S + 1 I; bob (5) vs S2: 1 S -> 3 / 13.
    assert standup["cp"]["cpwer"] == pytest.approx(3 / 13)
    # WDER: all 13 reference words align (kubernetes->cooper, 3->three substituted, nettie
    # inserted), S1 said alice's 8 and S2 bob's 5: mapping S1->alice, S2->bob, 0 / 13.
    assert standup["wder"] == {"wder": 0.0, "aligned_tokens": 13, "speaker_errors": 0}
    # DER: collars +-0.25 s leave [0.25, 2.75], [3.75, 5.75], [6.75, 8.75] scored (6.5 s);
    # spk1 speaks over bob in [5.0, 5.75]: 0.75 s confusion -> 0.75 / 6.5.
    assert standup["diarization"]["der"] == pytest.approx(0.75 / 6.5)
    assert standup["diarization"]["confusion"] == pytest.approx(0.75)
    # Punctuation: 7 reference marks, none written -> recall 0, precision undefined.
    assert standup["punctuation"] == {"f1": 0.0, "hypothesis": 0, "matched": 0,
                                      "precision": None, "recall": 0.0, "reference": 7}
    assert standup["terms"]["reference"] == 1 and standup["terms"]["matched"] == 0

    review = table[("en-review", 1)]
    assert review["text"]["wer"] == pytest.approx(0.2)
    # The SRT hypothesis has no speakers: unsupported, never a rate of 0.
    assert review["cp"] is None and review["diarization"] is None
    assert review["status"]["cp"].startswith("unsupported")
    assert review["status"]["diarization"].startswith("unsupported")
    assert review["wder"] is None and review["status"]["wder"].startswith("unsupported")
    # '1,200' -> number 1200 on both sides; marks ', . .' on both sides.
    assert review["numbers"]["matched"] == 1 and review["punctuation"]["f1"] == 1.0
    failed = table[("en-review", 2)]
    assert failed["failed"] and failed["failure"] == "timeout after 600 s"
    assert failed["text"]["deletions"] == 10 and failed["text"]["wer"] == 1.0
    # The system attributes speakers (en-standup, zh-podcast), so its failed run is a
    # speaker-attribution failure too, decided for the system and not per sample: all 10
    # words deleted, cpWER 10 / 10. DER: carol 0-4 and dave 4.5-7.5 less +-0.25 s collars
    # leave 3.5 + 2.5 = 6 s, all missed: 6 / 6.
    assert failed["cp"]["cpwer"] == 1.0 and failed["cp"]["deletions"] == 10
    assert failed["diarization"]["der"] == 1.0 and failed["diarization"]["missed"] == 6.0
    # WDER counts only aligned words: a failed run has none, so no WDER, with the reason.
    assert failed["wder"] is None and failed["status"]["wder"] == "failed run: no word aligned"
    # Its successful SRT run names no speakers and stays unsupported on its own.
    assert review["status"]["cp"].startswith("unsupported")

    silence = table[("en-silence", 1)]
    # 'Thank you.' -> 8 characters over 5 s.
    assert silence["text"] is None
    assert silence["hallucination"]["hallucinated_chars_per_second"] == pytest.approx(1.6)

    switch = table[("zh-en-codeswitch", 1)]
    # MER tokens 我 们 用 python 写 一 个 api 接 口: 'api' -> 'app' is 1 of 10.
    assert switch["text"]["mer"] == pytest.approx(0.1)
    # Terms Python (found) and API (missed): precision 1/1, recall 1/2.
    assert (switch["terms"]["precision"], switch["terms"]["recall"]) == (1.0, 0.5)
    # DER: A 0-5.5 against spk0 0.2-5.0; scored [0.25, 5.25] and [5.75, 6]: A missed in
    # [5.0, 5.25] -> 0.25 / 5.0.
    assert switch["diarization"]["der"] == pytest.approx(0.05)


def test_timestamps_of_the_word_timed_sample(run_dir: Path) -> None:
    ts = rows(run_dir)[("en-standup", 1)]["timestamps"]
    assert ts["granularity"] == "token"
    turns = ts["turns"]
    # Matched words: 5 of 6 (alice), 4 of 5 (bob), 2 of 2 (alice): 11 / 13; all three
    # turns have anchors in their first and last 20 %.
    assert (turns["matched_reference_tokens"], turns["reference_tokens"]) == (11, 13)
    assert turns["scorable_turns"] == 3
    # Predicted turns 0.1-3.1, 3.6-6.1, 6.6-7.9 against 0-3, 3.5-6, 6.5-9: start errors
    # 0.1 each; end errors 0.1, 0.1, 1.1 (mean 1.3 / 3; two hits at 1.0 s).
    assert turns["start"]["mean_s"] == pytest.approx(0.1)
    assert turns["end"]["mean_s"] == pytest.approx(1.3 / 3)
    assert turns["end"]["hits"] == {"0.25": 2, "0.5": 2, "1.0": 2}
    # IoU 2.9/3.1, 2.4/2.6, 1.3/2.5.
    assert turns["mean_iou"] == pytest.approx((2.9 / 3.1 + 2.4 / 2.6 + 1.3 / 2.5) / 3)
    # Boundaries: reference 0 3 3.5 6 6.5 9; system RTTM 0.1 3.1 3.4 5.0 6.2 6.6 9.0:
    # six matches within 0.25 s, 5.0 unmatched: precision 6/7, recall 1.
    bounds = ts["turn_boundaries"]["0.25"]
    assert (bounds["matched"], bounds["reference"], bounds["hypothesis"]) == (6, 6, 7)
    # Speech: reference 8.0 s; words 5.8 s; shared 2.5 + 2.0 + 1.1 = 5.6 s.
    assert ts["speech"]["speech_coverage"] == pytest.approx(0.7)
    assert ts["speech"]["speech_iou"] == pytest.approx(5.6 / 8.2)
    # Segment-only systems go to the diagnostic file, not the main rows.
    review = rows(run_dir)[("en-review", 1)]["timestamps"]
    assert review["granularity"] == "segment" and "segment_pairs_diagnostic" not in review


def test_scenario_aggregation_and_maturity(run_dir: Path) -> None:
    doc = scenarios(run_dir)
    meeting = doc["scenarios"]["meeting-en"]
    text = meeting["text"]
    # Repeat 1: macro (3/13 + 2/10) / 2, micro 5/23. Repeat 2: macro (3/13 + 1) / 2,
    # micro 13/23. Reported: mean over repeats; std of the two macros = 0.4 / sqrt(2).
    macro1, macro2 = (3 / 13 + 0.2) / 2, (3 / 13 + 1.0) / 2
    assert [r["macro"] for r in text["per_repeat"]] == pytest.approx([macro1, macro2])
    assert text["macro"] == pytest.approx((macro1 + macro2) / 2)
    assert text["micro"] == pytest.approx((5 / 23 + 13 / 23) / 2)
    assert text["repeat_std"]["macro"] == pytest.approx(0.4 / 2 ** 0.5)
    assert text["failed_runs"] == 1
    # Duration-weighted (separate column): repeat 1 (3/13 * 10 + 0.2 * 8) / 18.
    assert text["per_repeat"][0]["duration_weighted"] == pytest.approx(
        (3 / 13 * 10 + 0.2 * 8) / 18)
    # Evidence per measure: the WER of meeting-en comes from 2 speech samples (the silence
    # clip gives none), so it is exploratory although the scenario has 3 samples from 3
    # sources; the scenario's headline level is its text rate's. podcast: 2 samples.
    assert meeting["maturity"] == {"level": "exploratory",
                                   "reasons": ["fewer than 3 samples (2)"]}
    assert meeting["maturity_measure"] == "text"
    assert text["maturity"] == meeting["maturity"]
    assert text["evidence"] == {"samples": 2, "independent_sources": 2,
                                "independent_speakers": 4, "missing_runs": 0}
    # Hallucination rests on the one silence clip alone: pipeline_smoke.
    assert meeting["hallucination"]["maturity"]["level"] == "pipeline_smoke"
    assert meeting["hallucination"]["evidence"]["samples"] == 1
    # DER: en-standup (2 runs) and the failed en-review run: 2 samples, exploratory.
    assert meeting["diarization"]["der"]["evidence"]["samples"] == 2
    assert meeting["diarization"]["der"]["maturity"]["level"] == "exploratory"
    podcast = doc["scenarios"]["podcast-zh-en"]
    assert podcast["maturity"]["level"] == "exploratory"
    assert podcast["text"]["macro"] == pytest.approx((1 / 22 + 0.1) / 2)
    assert podcast["text"]["micro"] == pytest.approx(2 / 32)
    assert doc["run_maturity"]["level"] == "exploratory"
    # required_repeats 2 is below the spec's 3: that alone would block decision_grade.
    assert ("required_repeats is 2, fewer than the 3 repeats per sample the spec "
            "prescribes") in doc["run_maturity"]["reasons"]
    # Only en-review's successful SRT run is unsupported; its failed run is scored.
    assert (meeting["cp"]["scored_runs"], meeting["cp"]["unsupported_runs"]) == (3, 1)
    # WDER: the two en-standup runs (0 / 13 each) are scored; the failed en-review run
    # is left out (no aligned word) and the SRT run is unsupported.
    assert (meeting["wder"]["scored_runs"], meeting["wder"]["unsupported_runs"]) == (2, 1)
    assert meeting["wder"]["rate"]["micro"] == 0.0
    assert doc["system_support"]["speaker_attribution"] is True
    assert meeting["hallucination"]["nonempty_output_rate"] == 1.0
    # Across scenarios only scenario macros: one scenario per rate here.
    assert doc["cross_scenario"]["by_rate"]["mer"]["scenario_macro"] == pytest.approx(
        (1 / 22 + 0.1) / 2)
    # podcast-zh-en is exploratory: its macro is exploratory and says why.
    mer = doc["cross_scenario"]["by_rate"]["mer"]["maturity"]
    assert mer == {"level": "exploratory", "reasons": [
        "scenarios not all qualified: podcast-zh-en (exploratory)",
        "run maturity is exploratory"]}


def test_parity_tracks_are_separate_files(run_dir: Path) -> None:
    moss = json.loads((run_dir / "parity_moss.json").read_text(encoding="utf-8"))
    # zh-podcast (raw tagged text) 1 error in 22 characters per repeat; zh-en-codeswitch
    # (SegLST, written as tagged text) "我们用python写一个api接口" (17) vs "...app接口": 1.
    # Two repeats each: CER = cpCER = (2 + 2) / (44 + 34), delta 0.
    table = moss["scenarios"]["podcast-zh-en"]
    assert table["cer"] == pytest.approx(4 / 78) and table["delta_cp"] == 0.0
    # en-review (STM vs SRT): "thebudgetis1200dollarsweneedapprovalbyfriday" (44) vs
    # "...weneedaprovalfriday": one p and "by" deleted, 3; its failed repeat deletes all 44
    review = [(r["repeat"], r["cer"]["errors"], r["cer"]["length"]) for r in moss["runs"]
              if r["sample_id"] == "en-review"]
    assert review == [(1, 3, 44), (2, 44, 44)]
    assert moss["scenarios"]["meeting-en"]["samples"] == 4  # en-silence has no reference
    lattifai = json.loads((run_dir / "parity_lattifai.json").read_text(encoding="utf-8"))
    assert lattifai["collar_s"] == 0.1
    diagnostic = json.loads((run_dir / "timestamps_segment_diagnostic.json")
                            .read_text(encoding="utf-8"))
    # en-review repeat 1 (repeat 2 failed): carol 0-4 vs 0.2-3.9, dave 4.5-7.5 vs 4.6-7.4.
    meeting = diagnostic["scenarios"]["meeting-en"]
    assert meeting["unique_pairs"] == 2
    assert meeting["start"]["mean_s"] == pytest.approx(0.15)
    main_tables = (run_dir / "scenarios.json").read_text(encoding="utf-8")
    assert "moss" not in main_tables and "lattifai" not in main_tables


def test_html_report_has_alignment_and_timeline(run_dir: Path) -> None:
    report = (run_dir / "report.html").read_text(encoding="utf-8")
    assert report.startswith("<!DOCTYPE html>") and "<script" not in report
    assert '<span class="step S"><b>S&nbsp;</b><span>kubernetes</span>' in report
    assert "<title>ref alice 0.000-3.000 s</title>" in report
    assert "<title>hyp spk1 5.000-6.200 s</title>" in report
    assert report.count("<svg") == 10


def test_rerun_is_byte_identical(run_dir: Path, tmp_path: Path,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # The same command (run.json records it, --out included) in two places.
    for place in ("first", "second"):
        (tmp_path / place).mkdir()
        monkeypatch.chdir(tmp_path / place)
        assert main(["transcripts", "score", "--manifest", str(EXAMPLE), "--out", "run"]) == 0
    first, second = tmp_path / "first" / "run", tmp_path / "second" / "run"
    names = sorted(p.name for p in run_dir.iterdir())
    assert names == sorted(p.name for p in first.iterdir()) == sorted(
        p.name for p in second.iterdir())
    for name in names:
        assert (first / name).read_bytes() == (second / name).read_bytes(), name
        if name != "run.json":  # its command names a different --out
            assert (run_dir / name).read_bytes() == (first / name).read_bytes(), name


def test_run_json_is_the_provenance_record(run_dir: Path) -> None:
    record = read_provenance(run_dir / "run.json")
    assert record.command[:3] == ("speecheval", "transcripts", "score")
    assert record.settings["manifest_format"] == "speecheval.transcripts.manifest/1"
    # The manifest and every file it names, hashed under their path from the manifest.
    manifest_dir = EXAMPLE.parent
    assert record.inputs["manifest.yaml"] == sha256_file(EXAMPLE)
    for name, digest in record.inputs.items():
        assert sha256_file(manifest_dir / name) == digest
    assert len(record.inputs) > 5
    assert record.packages["pyyaml"] is not None
