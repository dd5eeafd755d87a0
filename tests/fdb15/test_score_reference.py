"""fdb15 score's figures beside the headline, on a hand-made tree of espeak-ng speech
checked by real Silero: the 0.5 s bridging of a sentence pause, a system that keeps
talking with the official response figure beside its status, the response anchored on
the user's speech end, the means, and the Table 1 pilot of the clean sessions.

Silero works in 32 ms windows (the official column's pads by 30 ms), so times are checked
within 0.1 s of where the speech was cut; the comments give the planned times.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from speecheval.cli import main
from speecheval.core.audio import write_wav
from speecheval.fdb.v15.builder import speech

pytestmark = pytest.mark.skipif(shutil.which("espeak-ng") is None,
                                reason="espeak-ng is not installed (apt-get install espeak-ng)")

RATE = 16_000
N = 12 * RATE
REPLY = ("Sure, here is a long answer about that topic with many words in it and then some "
         "more words to keep talking for a while longer")
CONTEXT = (0.3, 1.3)   # the context turn, in input.wav and clean_input.wav
# sample -> (metadata window, user overlap speech, output stretches, clean output stretch)
PLAN = {
    # a sentence pause of 0.22 s at 7.1: the system never yields
    "user_interruption/1": ((5.0, 6.0), (5.0, 6.0), [(2.0, 7.1), (7.32, 10.0)], (2.4, 8.4)),
    # keeps talking to the end of the file: no stop, no re-entry
    "user_backchannel/1": ((5.0, 6.0), (5.0, 6.0), [(2.0, None)], (2.2, 9.2)),
    # the user's speech runs 0.2 s past the metadata window's end
    "talking_to_other/1": ((5.0, 5.8), (5.0, 6.0), [(2.0, 5.4), (7.0, 9.0)], None),
}


def _place(track: np.ndarray, audio: np.ndarray, start: float, end: float | None) -> None:
    first = round(start * RATE)
    last = track.size if end is None else round(end * RATE)
    track[first:last] = audio[:last - first]


def _tree(root: Path) -> Path:
    reply = np.tile(speech.utterance(REPLY, "en-us", RATE), 2)   # about 14 s
    user = speech.utterance("Wait, can you make that shorter please?", "en-us", RATE)
    for sample_id, (window, overlap, stretches, clean) in PLAN.items():
        folder = root / sample_id
        folder.mkdir(parents=True)
        context = np.zeros(N)
        _place(context, user, *CONTEXT)
        heard = context.copy()
        _place(heard, user, *overlap)
        write_wav(folder / "input.wav", heard, RATE)
        output = np.zeros(N)
        for start, end in stretches:
            part = np.zeros(N)
            _place(part, reply, start, end)
            output += part
        write_wav(folder / "output.wav", output, RATE)
        if clean is not None:
            write_wav(folder / "clean_input.wav", context, RATE)
            clean_output = np.zeros(N)
            _place(clean_output, reply, *clean)
            write_wav(folder / "clean_output.wav", clean_output, RATE)
        (folder / "metadata.json").write_text(json.dumps(
            {"context_text": "hi", "current_turn_text": "wait", "timestamps": list(window)}))
    return root


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    tree = _tree(tmp_path_factory.mktemp("reference15") / "tree")
    out = tree.parent / "scored"
    console = io.StringIO()
    with contextlib.redirect_stdout(console):
        assert main(["fdb15", "score", "--tree", str(tree), "--out", str(out),
                     "--jobs", "1"]) == 0
    return out, console.getvalue()


def _rows(out: Path) -> dict[str, dict]:
    lines = (out / "timing-samples.jsonl").read_text().splitlines()
    return {row["sample_id"]: row for row in map(json.loads, lines)}


def _scenarios(out: Path) -> dict[str, dict]:
    return json.loads((out / "timing.json").read_text())["scenarios"]


def test_a_sentence_pause_is_bridged_not_a_stop(scored: tuple[Path, str]) -> None:
    out, _ = scored
    row = _rows(out)["user_interruption/1"]
    # unbridged: the 0.22 s pause at 7.1 reads as a stop 7.1 - 5.0 = 2.1 s after the onset
    assert row["unbridged_stop_status"] == "stopped"
    assert row["unbridged_stop_latency_s"] == pytest.approx(2.1, abs=0.1)
    # bridged (the headline): the system speaks on to 10.0, 10.0 - 5.0 = 5.0 s
    assert row["stop_status"] == "stopped"
    assert row["stop_latency_s"] == pytest.approx(5.0, abs=0.1)
    assert row["response_status"] == "speaking_through_end"
    assert row["bridging_changed"] is True
    bridging = _scenarios(out)["user_interruption"]["bridging"]
    assert (bridging["bridge_gap_s"], bridging["trials_changed"],
            bridging["stop_changed"]) == (0.5, 1, 1)
    settings = json.loads((out / "timing.json").read_text())["provenance"]["settings"]
    assert settings["bridge_gap_s"] == 0.5


def test_a_system_that_keeps_talking_gets_its_status_and_the_official_figure(
        scored: tuple[Path, str]) -> None:
    out, _ = scored
    row = _rows(out)["user_backchannel/1"]
    assert (row["stop_status"], row["response_status"]) == (
        "right_censored", "speaking_through_end")
    assert row["response_latency_s"] is None
    # the official pairs the context's end (near 1.3) with the output's start (near 2.0):
    # one gap, the interval's length; the overlap's end has no output start after it
    [[user_end, start]] = row["official"]["latency_resp_list"]
    assert (user_end, start) == (pytest.approx(1.3, abs=0.1), pytest.approx(2.0, abs=0.1))
    [gap] = row["official_response_gaps_s"]
    assert gap == round(start - user_end, 3)
    assert row["official_response_gap_mean_s"] == row["official_response_gap_median_s"] == gap
    figure = _scenarios(out)["user_backchannel"]["official_response"]
    assert (figure["files_with_a_gap"], figure["files_without_a_gap"]) == (1, 0)
    assert figure["file_mean"]["mean"] == figure["file_mean"]["median"] == gap


def test_response_latency_from_the_window_end_and_from_the_users_speech_end(
        scored: tuple[Path, str]) -> None:
    out, _ = scored
    row = _rows(out)["talking_to_other/1"]
    # the window ends at 5.8, the user's speech at 6.0; the output re-enters at 7.0
    assert row["response_latency_s"] == pytest.approx(1.2, abs=0.1)        # 7.0 - 5.8
    assert row["user_end_s"] == pytest.approx(6.0, abs=0.1)
    assert row["response_status_from_user_end"] == "responded"
    assert row["response_latency_from_user_end_s"] == pytest.approx(
        row["response_latency_s"] - (row["user_end_s"] - 5.8), abs=1e-6)
    scenario = _scenarios(out)["talking_to_other"]
    anchored = scenario["response_from_user_end"]
    assert (anchored["user_end_found"], anchored["statuses"]["responded"]) == (1, 1)
    assert anchored["latency"]["median"]["value"] == row["response_latency_from_user_end_s"]
    # one trial: the mean is the value, no sd, and every resample gives it
    mean = scenario["response_latency_mean"]
    assert (mean["n"], mean["mean"], mean["sd"], mean["median"]) == (
        1, row["response_latency_s"], None, row["response_latency_s"])
    assert mean["mean_interval"]["low"] == mean["mean_interval"]["high"] == mean["mean"]
    stop_mean = scenario["stop_latency_mean"]
    assert stop_mean["mean"] == pytest.approx(0.4, abs=0.1)                # 5.4 - 5.0
    # a censored stop has no place in a mean: it is counted as left out
    assert _scenarios(out)["user_backchannel"]["stop_latency_mean"] == {
        "n": 0, "mean": None, "sd": None, "mean_interval": None, "median": None,
        "left_out": {"right_censored": 1}}


def test_table1_pilot_of_the_clean_sessions(scored: tuple[Path, str]) -> None:
    out, console = scored
    rows = _rows(out)
    # the context ends near 1.3; the clean reply runs 2.4-8.4: 1.1 s latency, 6.0 s long
    clean = rows["user_interruption/1"]
    assert clean["clean_response_status"] == "responded"
    assert clean["clean_context_end_s"] == pytest.approx(1.3, abs=0.1)
    assert clean["clean_response_latency_s"] == pytest.approx(1.1, abs=0.1)
    # the length runs from the reply's start to its end: Silero lets go of an abrupt cut a
    # few 32 ms windows late (its 0.35 release threshold), so the end is checked to 0.15 s
    start = clean["clean_context_end_s"] + clean["clean_response_latency_s"]
    assert start == pytest.approx(2.4, abs=0.1)
    assert start + clean["clean_output_length_s"] == pytest.approx(8.4, abs=0.15)
    assert rows["talking_to_other/1"]["clean_response_status"] == "not_recorded"
    pilot = json.loads((out / "timing.json").read_text())["table1_pilot"]
    assert pilot["available"] is True
    assert sorted(pilot["rows"]) == ["all", "talking_to_other", "user_backchannel",
                                     "user_interruption"]
    every = pilot["rows"]["all"]
    assert (every["trials"], every["clean_sessions"]) == (3, 2)
    backchannel = rows["user_backchannel/1"]
    lengths = [clean["clean_output_length_s"], backchannel["clean_output_length_s"]]
    assert every["output_length_s"]["mean"] == pytest.approx(sum(lengths) / 2, abs=1e-9)
    # two values: sd = |l1 - l2| / sqrt(2) (planned 6.0 and 7.0 s: 0.7071)
    assert every["output_length_s"]["sd"] == pytest.approx(
        abs(lengths[0] - lengths[1]) / 2 ** 0.5, abs=1e-9)
    assert backchannel["clean_output_length_s"] == pytest.approx(7.0, abs=0.15)
    assert pilot["rows"]["talking_to_other"]["clean_sessions"] == 0
    assert "Table 1 pilot: clean (context-only) sessions" in console
    line = next(li for li in console.splitlines() if li.startswith("all"))
    assert "2/3" in line and "\u00b1" in line
    # the clean files are inputs of the provenance record
    inputs = json.loads((out / "timing.json").read_text())["provenance"]["inputs"]
    assert "user_interruption/1/clean_output.wav" in json.dumps(inputs)
    assert "talking_to_other/1/clean_output.wav" not in json.dumps(inputs)
