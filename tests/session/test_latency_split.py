"""The latency split: endpointing, decision, generation and delivery from server events."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from speecheval.session.metrics.analyze import analyze
from speecheval.session.metrics.latency_split import with_latency_split
from speecheval.session.metrics.results import TurnMetrics
from speecheval.session.metrics.summary import summarize
from speecheval.session.record import events as ev
from speecheval.session.scenario.load import load_scenario

from .helpers import live_session, write_scenario


def turn(**values: object) -> TurnMetrics:
    base: dict[str, object] = dict(
        id="t", expect="respond", trigger="session_start", start_s=0.5, end_s=5.0,
        audio_end_s=1.5, user_onset_s=0.5, user_offset_s=1.5, responded=True,
        response_latency_ms=900.0, ttfa_ms=700.0, talk_over=False, stopped=None,
        stop_ms=None, clear_stop_ms=None, false_barge_in=None, spurious_response=None,
        transcript=None, wer=None, passed=True, notes=())
    return TurnMetrics(**{**base, **values})  # type: ignore[arg-type]


def test_split_adds_up_to_the_response_latency() -> None:
    # offset 1500 ms; speech_stopped at 1800 (endpointing 300), response.created at 1850
    # (decision 50); first audio 1500 + 700 = 2200 (generation 2200 - 1850 = 350); onset
    # 1500 + 900 = 2400 (delivery 900 - 700 = 200); 300 + 50 + 350 + 200 = 900
    events: list[ev.Event] = [
        ev.ServerEvent(t_ms=1000.0, name="speech_stopped"),  # a pause mid-sentence: earlier
        ev.ServerEvent(t_ms=1800.0, name="speech_stopped"),
        ev.ServerEvent(t_ms=1850.0, name="response_created"),
        ev.ServerEvent(t_ms=2300.0, name="response_created"),  # after the first audio
    ]
    (split,) = [t.latency_split for t in with_latency_split((turn(),), events)]
    assert split is not None
    assert dataclasses.asdict(split) == {"endpointing_ms": 300.0, "decision_ms": 50.0,
                                         "generation_ms": 350.0, "delivery_ms": 200.0}


def test_missing_server_events_are_null() -> None:
    only_created: list[ev.Event] = [ev.ServerEvent(t_ms=1850.0, name="response_created")]
    (split,) = [t.latency_split for t in with_latency_split((turn(),), only_created)]
    assert split is not None
    assert dataclasses.asdict(split) == {"endpointing_ms": None, "decision_ms": None,
                                         "generation_ms": 350.0, "delivery_ms": 200.0}
    # no server event in the whole session: no split at all (and none in the report)
    (plain,) = with_latency_split((turn(),), [])
    assert plain.latency_split is None and "latency_split" not in plain.report_dict()
    # a talk-over has no time to first audio: only what does not need it
    (over,) = [t.latency_split for t in with_latency_split(
        (turn(response_latency_ms=-200.0, ttfa_ms=None),), only_created)]
    assert over is not None
    assert dataclasses.asdict(over) == dict.fromkeys(("endpointing_ms", "decision_ms",
                                                      "generation_ms", "delivery_ms"))


def test_openai_realtime_local_agent_gives_the_split(tmp_path: Path) -> None:
    scenario = load_scenario(write_scenario(tmp_path, """
name: split
tail_ms: 1500
turns:
  - id: ask
    audio: {synth: speech, duration_ms: 800}
"""))
    options = {"endpoint_silence_ms": "300", "response_delay_ms": "200"}
    recording = live_session(scenario, {"api_key_env": ""}, options, "openai-realtime")
    assert recording.fault is None
    names = [e.name for e in recording.events if isinstance(e, ev.ServerEvent)]
    assert names == ["speech_stopped", "response_created"]
    metrics = analyze(recording, scenario)
    found = metrics.turns[0].latency_split
    assert found is not None
    split = dataclasses.asdict(found)
    assert None not in split.values()
    # the local agent endpoints after 300 ms of silence (on a 10 ms grid, plus the socket
    # and this machine's load), then replies 200 ms later, starting with response.created
    assert 280 <= split["endpointing_ms"] <= 1000  # type: ignore[operator]
    assert 180 <= split["decision_ms"] <= 1000  # type: ignore[operator]
    latency = metrics.turns[0].response_latency_ms
    assert sum(split.values()) == pytest.approx(latency, abs=0.01)  # type: ignore[arg-type]
    summary = summarize([metrics])
    assert summary.report_dict()["latency_split_ms"]["endpointing"]["count"] == 1
