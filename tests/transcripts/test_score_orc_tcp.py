"""ORC-WER and tcpWER as ``transcripts score`` measures (``extra_measures`` in the manifest):
checked against meeteval 0.4.3 on random samples inside the score output."""

from __future__ import annotations

import json
import logging
import random
from pathlib import Path
from typing import Any

import pytest

from speecheval.cli import main
from speecheval.transcripts.score.run import write_run

COLLAR_S = 1.0


def _seglst(segments: list[dict[str, Any]]) -> str:
    return json.dumps(segments)


def _random_segments(rng: random.Random, speakers: str, count: int) -> list[dict[str, Any]]:
    words = ["a", "bb", "ccc", "dddd"]
    starts = sorted(rng.sample(range(0, 40), count))
    return [{"session_id": "x", "speaker": rng.choice(speakers), "start_time": t / 2,
             "end_time": t / 2 + rng.choice([0.5, 1.0, 2.5]),
             "words": " ".join(rng.choice(words) for _ in range(rng.randrange(1, 5)))}
            for t in starts]


def _manifest(folder: Path, samples: list[str], extra: str, runs: dict[str, str] | None = None
              ) -> Path:
    lines = ["format: speecheval.transcripts.manifest/1", "system: s", "required_repeats: 1",
             extra, "scenarios:", "  meet: {unit: word}", "samples:"]
    for sample in samples:
        run = (runs or {}).get(sample, f"{{transcript: {sample}.hyp.json}}")
        lines += [f"  - id: {sample}", "    scenario: meet", "    duration_s: 30",
                  "    source: src", f"    reference: {{transcript: {sample}.ref.json}}",
                  f"    runs: [{run}]"]
    path = folder / "m.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def _rows(out: Path) -> dict[str, dict[str, Any]]:
    return {row["sample_id"]: row for row in map(json.loads, (out / "samples.jsonl")
                                                   .read_text().splitlines())}


def test_orc_and_tcp_equal_meeteval_on_random_samples(tmp_path: Path,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    api = pytest.importorskip("meeteval.wer.api", reason="meeteval is a test-only peer")
    from meeteval.io import SegLST

    caplog.set_level(logging.ERROR)
    rng = random.Random(12)
    cases = {}
    for k in range(12):
        ref = _random_segments(rng, "AB", rng.randrange(1, 7))
        hyp = _random_segments(rng, "XYZ", rng.randrange(1, 7))
        (tmp_path / f"c{k}.ref.json").write_text(_seglst(ref))
        (tmp_path / f"c{k}.hyp.json").write_text(_seglst(hyp))
        cases[f"c{k}"] = (ref, hyp)
    manifest = _manifest(tmp_path, sorted(cases),
                         f"extra_measures: {{orc: true, tcp_collar_s: {COLLAR_S}}}")
    write_run(manifest, tmp_path / "out", ("test",))
    rows = _rows(tmp_path / "out")
    for sample, (ref, hyp) in cases.items():
        orc = api.orcwer(SegLST(ref), SegLST(hyp))["x"]
        tcp = api.tcpwer(SegLST(ref), SegLST(hyp), collar=COLLAR_S)["x"]
        row = rows[sample]
        assert (row["orc"]["errors"], row["orc"]["length"]) == (orc.errors, orc.length), sample
        assert row["orc"]["orcwer"] == pytest.approx(orc.error_rate)
        assert (row["tcp"]["errors"], row["tcp"]["length"]) == (tcp.errors, tcp.length), sample
        assert row["tcp"]["tcpwer"] == pytest.approx(tcp.error_rate)
        assert row["tcp"]["collar_s"] == COLLAR_S
    scenario = json.loads((tmp_path / "out" / "scenarios.json").read_text())["scenarios"]["meet"]
    assert scenario["orc"]["scored_runs"] == scenario["tcp"]["scored_runs"] == 12
    assert scenario["tcp"]["collar_s"] == COLLAR_S
    # micro: summed errors over summed reference words, as meeteval's combined error rate
    orc_total = sum(r["orc"]["errors"] for r in rows.values())
    words = sum(r["orc"]["length"] for r in rows.values())
    assert scenario["orc"]["rate"]["micro"] == pytest.approx(orc_total / words)
    table = (tmp_path / "out" / "scenarios.md").read_text()
    assert "| meet | ORC-WER | 12 | 0 |" in table
    assert "| meet | tcpWER (collar +-1.000 s) | 12 | 0 |" in table
    assert "tcpWER (collar +-1.000 s)" in (tmp_path / "out" / "report.html").read_text()
    settings = json.loads((tmp_path / "out" / "run.json").read_text())["settings"]
    assert settings["tcp_collar_s"] == COLLAR_S and "orc_definition" in settings


def _one_sample(folder: Path, ref: str, hyp: str) -> None:
    (folder / "a.ref.json").write_text(ref)
    (folder / "a.hyp.json").write_text(hyp)


def test_hand_case_failed_run_and_untimed_system(tmp_path: Path) -> None:
    # reference A "x y" [0, 2] (x [0,1], y [1,2]), B "z" [5, 6]; system P "x y z" [0, 6]
    # (points x 1, y 3, z 5). ORC: both utterances to P: "x y z" = "x y z", 0 errors.
    # tcp, collar 1: pairs A-P, B-dummy; x [0,1]~[0,2] ok, y [1,2]~[2,4] no (2 < 2 fails),
    # z inserted: A-P aligns "x y" with "x y z" -> y deleted + y, z inserted = 3,
    # B unpaired: z deleted = 1; total 4 over 3 words. Alternative A-dummy, B-P: A 2 del,
    # B "z" [5,6] vs "x y z": z [4,6] matches, x, y inserted: 2 -> 4 too.
    _one_sample(tmp_path, _seglst([
        {"session_id": "x", "speaker": "A", "start_time": 0, "end_time": 2, "words": "x y"},
        {"session_id": "x", "speaker": "B", "start_time": 5, "end_time": 6, "words": "z"}]),
        _seglst([{"session_id": "x", "speaker": "P", "start_time": 0, "end_time": 6,
                  "words": "x y z"}]))
    (tmp_path / "b.ref.json").write_text((tmp_path / "a.ref.json").read_text())
    manifest = _manifest(tmp_path, ["a", "b"], "extra_measures: {orc: true, tcp_collar_s: 1}",
                         runs={"b": "{failed: timeout}"})
    write_run(manifest, tmp_path / "out", ("test",))
    rows = _rows(tmp_path / "out")
    assert (rows["a"]["orc"]["errors"], rows["a"]["orc"]["assignment"]) == (0, ["P", "P"])
    assert (rows["a"]["tcp"]["errors"], rows["a"]["tcp"]["length"]) == (4, 3)
    # the failed run of a system that names speakers: empty output, all 3 words deleted
    assert (rows["b"]["orc"]["deletions"], rows["b"]["tcp"]["deletions"]) == (3, 3)


def test_without_extra_measures_nothing_changes(tmp_path: Path) -> None:
    _one_sample(tmp_path, _seglst([{"session_id": "x", "speaker": "A", "start_time": 0,
                                    "end_time": 1, "words": "x"}]),
                _seglst([{"session_id": "x", "speaker": "P", "words": "x"}]))
    write_run(_manifest(tmp_path, ["a"], ""), tmp_path / "plain", ("test",))
    row = _rows(tmp_path / "plain")["a"]
    assert "orc" not in row and "tcp" not in row and "orc" not in row["status"]
    scenario = json.loads((tmp_path / "plain" / "scenarios.json").read_text())
    assert "orc" not in scenario["scenarios"]["meet"]
    # selected: the untimed system is unsupported for tcp, scored for ORC
    write_run(_manifest(tmp_path, ["a"], "extra_measures: {orc: true, tcp_collar_s: 5}"),
              tmp_path / "chosen", ("test",))
    row = _rows(tmp_path / "chosen")["a"]
    assert row["tcp"] is None and row["status"]["tcp"].startswith("unsupported")
    assert row["orc"]["errors"] == 0


def test_a_negative_collar_is_refused(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    _one_sample(tmp_path, _seglst([{"session_id": "x", "speaker": "A", "words": "x"}]),
                _seglst([{"session_id": "x", "speaker": "P", "words": "x"}]))
    manifest = _manifest(tmp_path, ["a"], "extra_measures: {tcp_collar_s: -1}")
    code = main(["transcripts", "score", "--manifest", str(manifest),
                 "--out", str(tmp_path / "out")])
    assert code == 2
    assert "extra_measures.tcp_collar_s (line 4)" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
