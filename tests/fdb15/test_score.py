"""fdb15 score on a small hand-made tree: Silero on real espeak-ng speech, statuses as
planned, latencies near the planned cut times, summaries, files and bad input.

Every sample has the window a = 5.0 s, b = 6.0 s and a 12 s output. Silero pads
segments by 30 ms and works in 32 ms windows, so measured times are checked within
0.1 s of where the speech was cut.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from speech_engine import needs_speech, require_pinned_engine

from speecheval.cli import main
from speecheval.core.audio import write_wav
from speecheval.fdb.v15.builder import speech

pytestmark = needs_speech

RATE = 16_000
REPLY = ("Sure, here is a long answer about that topic with many words in it and then some "
         "more words to keep talking for a while longer")
# sample -> output speech stretches in seconds (None: to the end of the file)
PLAN: dict[str, list[tuple[float, float | None]]] = {
    "user_interruption/1": [(2.0, 5.5), (7.0, 9.0)],    # stops 0.5 s in, responds 1.0 s after
    "user_backchannel/1": [(2.0, 8.0)],                 # speaks through the overlap end
    "talking_to_other/1": [],                           # silent
    "background_speech/1": [(3.0, None)],               # still speaking when the output ends
}


def _speech(start: float, end: float | None, n: int) -> np.ndarray:
    reply = np.tile(speech.utterance(REPLY, "en-us", RATE), 2)   # about 14 s
    first = round(start * RATE)
    last = n if end is None else round(end * RATE)
    out = np.zeros(n)
    out[first:last] = reply[:last - first]
    return out


def _tree(root: Path) -> Path:
    user = speech.utterance("Wait, can you make that shorter please?", "en-us", RATE)
    for sample_id, stretches in PLAN.items():
        folder = root / sample_id
        folder.mkdir(parents=True)
        n = 12 * RATE
        heard = np.zeros(n)
        heard[5 * RATE:5 * RATE + RATE] = user[:RATE]
        write_wav(folder / "input.wav", heard, RATE)
        output = sum((_speech(a, b, n) for a, b in stretches), np.zeros(n))
        write_wav(folder / "output.wav", output, RATE)
        (folder / "metadata.json").write_text(json.dumps(
            {"context_text": "hi", "current_turn_text": "wait", "timestamps": [5.0, 6.0]}))
    return root


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tree = _tree(tmp_path_factory.mktemp("tree15") / "tree")
    assert main(["fdb15", "score", "--tree", str(tree), "--jobs", "1"]) == 0
    return tree / "fdb15-timing"


def _rows(out: Path) -> dict[str, dict]:
    lines = (out / "timing-samples.jsonl").read_text().splitlines()
    return {row["sample_id"]: row for row in map(json.loads, lines)}


def test_statuses_and_latencies_per_trial(scored: Path) -> None:
    # the expected statuses hold for 1.51's reply: with the wheel's 1.52 Silero hears
    # background_speech/1 stop before its output ends (stopped, not right_censored)
    require_pinned_engine()
    rows = _rows(scored)
    cut = rows["user_interruption/1"]
    assert (cut["stop_status"], cut["response_status"]) == ("stopped", "responded")
    assert cut["stop_latency_s"] == pytest.approx(0.5, abs=0.1)       # 5.5 - 5.0
    assert cut["response_latency_s"] == pytest.approx(1.0, abs=0.1)   # 7.0 - 6.0
    through = rows["user_backchannel/1"]
    assert (through["stop_status"], through["response_status"]) == (
        "stopped", "speaking_through_end")
    assert through["stop_latency_s"] == pytest.approx(3.0, abs=0.1)   # 8.0 - 5.0
    assert through["response_latency_s"] is None
    silent = rows["talking_to_other/1"]
    assert (silent["stop_status"], silent["response_status"]) == (
        "not_speaking_at_onset", "no_response")
    censored = rows["background_speech/1"]
    assert (censored["stop_status"], censored["response_status"]) == (
        "right_censored", "speaking_through_end")
    assert censored["output_duration_s"] == 12.0 and censored["window_s"] == [5.0, 6.0]


def test_official_column_beside_each_trial(scored: Path) -> None:
    row = _rows(scored)["user_interruption/1"]
    official = row["official"]
    # the user speaks 5.0-6.0 over output speech 2.0-5.5: one overlap from the user's
    # onset to the output's end, which the official column's Silero pads by 30 ms: our
    # unpadded end (5.0 + stop latency) + 0.030
    [[start, end]] = official["latency_stop_list"]
    assert start == pytest.approx(5.0, abs=0.1)
    assert end == pytest.approx(5.0 + row["stop_latency_s"] + 0.030, abs=0.0015)
    # after the user's end (about 6.0) the output starts again near 7.0
    assert official["latency_resp_list"][-1][1] == pytest.approx(7.0, abs=0.1)


def test_scenario_summaries(scored: Path) -> None:
    # the expected statuses hold for 1.51's reply: with the wheel's 1.52 Silero hears
    # background_speech/1 stop before its output ends (stopped, not right_censored)
    require_pinned_engine()
    document = json.loads((scored / "timing.json").read_text())
    assert document["kind"] == "fdb-v1.5-timing"
    assert document["provenance"]["settings"]["bootstrap"] == {"resamples": 2000, "seed": 0}
    scenarios = document["scenarios"]
    assert sorted(scenarios) == ["background_speech", "talking_to_other", "user_backchannel",
                                 "user_interruption"]
    interruption = scenarios["user_interruption"]
    assert (interruption["declared"], interruption["trials"]) == (200, 1)
    stopped = interruption["stop_statuses"]["stopped"]
    # 1 of 1: Wilson interval 1 / (1 + z^2) = 1 / 4.841459 = 0.206549 to exactly 1
    assert (stopped["count"], stopped["n"]) == (1, 1)
    assert stopped["interval"] == pytest.approx([0.206549, 1.0], abs=1e-6)
    median = interruption["stop_latency"]["median"]
    # one trial: every resample is that trial, so the interval is the value itself
    assert median["interval"]["low"] == median["interval"]["high"] == median["value"]
    # censored stop: +inf, so the median is not reached
    background = scenarios["background_speech"]["stop_latency"]
    assert (background["n"], background["observed"]) == (1, 0)
    assert background["median"]["reached"] is False
    # not speaking at the onset: no stop value; no response: +inf
    silent = scenarios["talking_to_other"]
    assert silent["stop_latency"]["n"] == 0
    assert silent["response_latency"]["n"] == 1
    assert silent["response_latency"]["median"]["reached"] is False
    assert silent["response_statuses"]["no_response"]["count"] == 1


def test_same_bytes_every_time_and_with_two_worker_processes(scored: Path) -> None:
    # the fixture timed the trials in this process (--jobs 1); here two workers do
    again = scored.parent / "again"
    assert main(["fdb15", "score", "--tree", str(scored.parent), "--out", str(again),
                 "--jobs", "2"]) == 0
    assert (again / "timing-samples.jsonl").read_bytes() == (
        scored / "timing-samples.jsonl").read_bytes()
    first = json.loads((scored / "timing.json").read_text())
    second = json.loads((again / "timing.json").read_text())
    first["provenance"].pop("command")
    second["provenance"].pop("command")
    assert first == second
    shutil.rmtree(again)


@pytest.mark.parametrize(("breaks", "message"), [
    (lambda f: (f / "output.wav").unlink(), "output.wav is missing"),
    (lambda f: (f / "metadata.json").write_text('{"timestamps": [5.0, 6.0]}'),
     "context_text"),
    (lambda f: (f / "input.wav").write_bytes(b"RIFF nonsense"), "input.wav"),
    (lambda f: (f / "clean_output.wav").write_bytes((f / "output.wav").read_bytes()),
     "clean_input.wav is missing beside clean_output.wav"),
])
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_bad_input_names_sample_and_file_and_writes_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], breaks, message: str,
        jobs: str) -> None:
    tree = _tree(tmp_path / "tree")
    breaks(tree / "user_backchannel/1")
    assert main(["fdb15", "score", "--tree", str(tree), "--jobs", jobs]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert "sample user_backchannel/1" in err and message in err
    assert not (tree / "fdb15-timing").exists()


def test_tree_without_scenarios_is_bad_input(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fdb15", "score", "--tree", str(tmp_path)]) == 2
    assert "no Full-Duplex-Bench v1.5 scenario folder" in capsys.readouterr().err


def test_without_clean_sessions_the_table1_pilot_says_why(scored: Path) -> None:
    from speecheval.fdb.v15.report.score_files import pilot_text

    pilot = json.loads((scored / "timing.json").read_text())["table1_pilot"]
    assert pilot == {"available": False,
                     "note": "no trial folder holds clean_output.wav: the clean "
                             "(context-only) sessions were not recorded, so there is no "
                             "Table 1 pilot"}
    assert pilot_text(pilot) == f"Table 1 pilot: {pilot['note']}\n"
    rows = _rows(scored)
    assert {row["clean_response_status"] for row in rows.values()} == {"not_recorded"}
