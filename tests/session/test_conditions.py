"""Scenario conditions, each tested on a signal whose effect is known beforehand."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from speech_engine import require_speech

from speecheval.agents.mock import MockAgent, MockSettings
from speecheval.core.errors import InputError
from speecheval.core.pcm import to_int16
from speecheval.session.metrics.analyze import analyze
from speecheval.session.record import events as ev
from speecheval.session.record.recording import SessionRecording
from speecheval.session.run.send.codecs import (
    MulawPath,
    OpusPath,
    lowpass_taps,
    mulaw_decode,
    mulaw_encode,
    mulaw_roundtrip,
)
from speecheval.session.run.send.network import DRAW_BLOCK, NetworkModel
from speecheval.session.run.send.send_path import SendPath, speech_rms
from speecheval.session.run.synth import render_turns
from speecheval.session.run.virtual_runner import run_virtual
from speecheval.session.scenario.conditions import (
    CodecSpec,
    Conditions,
    EchoSpec,
    NetworkSpec,
    NoiseSpec,
)
from speecheval.session.scenario.load import load_scenario
from speecheval.session.scenario.model import Scenario

from .helpers import live_session, write_scenario

RATE = 16000

TWO_TURNS = """
name: conditions
turns:
  - id: ask
    audio: {synth: speech, duration_ms: 1500}
  - id: again
    audio: {synth: speech, duration_ms: 1500}
conditions:
"""


def run(tmp_path: Path, conditions: str, **mock: object) -> tuple[Scenario, SessionRecording]:
    scenario = load_scenario(write_scenario(tmp_path, TWO_TURNS + conditions))
    agent = MockAgent(MockSettings.from_options(dict(mock)))
    return scenario, run_virtual(scenario, render_turns(scenario), agent)


def level_db(x: np.ndarray) -> float:
    return float(10 * np.log10(np.mean(np.square(x.astype(np.float64))) + 1e-30))  # -300: zero


# --- G.711 mu-law ---------------------------------------------------------------------


def test_mulaw_codes_equal_audioop_for_every_sample_and_code() -> None:
    with warnings.catch_warnings():  # deprecated since 3.11, removed in 3.13: check only
        warnings.simplefilter("ignore", DeprecationWarning)
        audioop = pytest.importorskip("audioop")
    every = np.arange(-32768, 32768, dtype=np.int16)
    assert mulaw_encode(every).tobytes() == audioop.lin2ulaw(every.astype("<i2").tobytes(), 2)
    codes = np.arange(256, dtype=np.uint8)
    expected = np.frombuffer(audioop.ulaw2lin(codes.tobytes(), 2), dtype="<i2")
    assert np.array_equal(mulaw_decode(codes), expected)


def tone(freq: float, seconds: float, rate: int = RATE, dbfs: float = -20.0) -> np.ndarray:
    t = np.arange(int(seconds * rate)) / rate
    return np.round(10 ** (dbfs / 20) * np.sqrt(2) * 32767 * np.sin(2 * np.pi * freq * t)
                    ).astype(np.int16)


def through_frames(codec: object, signal: np.ndarray, frame: int) -> np.ndarray:
    return np.concatenate([codec(signal[i:i + frame])  # type: ignore[operator]
                           for i in range(0, signal.size, frame)])


@pytest.mark.parametrize("rate", [16000, 48000])
def test_mulaw_path_passes_3500_hz_and_cuts_5000_hz(rate: int) -> None:
    frame = rate // 50
    settle = rate // 10  # skip the filters' delay: (taps - 1) samples, under 10 ms
    passed = through_frames(MulawPath(rate), tone(3500, 1.0, rate), frame)[settle:]
    cut = through_frames(MulawPath(rate), tone(5000, 1.0, rate), frame)[settle:]
    # -20 dBFS in; mu-law's quantization noise is about 38 dB below the signal
    assert level_db(passed / 32767) == pytest.approx(-20.0, abs=0.5)
    assert level_db(cut / 32767) < -20.0 - 50.0


@pytest.mark.parametrize("rate", [16000, 24000, 48000])
def test_mulaw_path_in_frames_equals_one_block_and_the_plain_filters(rate: int) -> None:
    x = np.round(np.random.default_rng(1).standard_normal(rate // 2) * 3000).astype(np.int16)
    frame = rate // 50
    framed_path = MulawPath(rate)
    framed = np.concatenate([framed_path(x[i:i + frame]) for i in range(0, x.size, frame)])
    whole = MulawPath(rate).block(0, x)
    # the polyphase branches sum the same products however the signal is cut: exact
    assert np.array_equal(framed, whole)
    # the plain chain: filter, keep every m-th sample, mu-law, zeros between, filter;
    # the sums run in another order, so a sample may round the other way (1 LSB)
    m, taps = rate // 8000, lowpass_taps(rate)
    narrow = np.convolve(x.astype(np.float64), taps)[:x.size][::m]
    decoded = mulaw_roundtrip(np.clip(np.round(narrow), -32768, 32767).astype(np.int16))
    wide = np.zeros(x.size)
    wide[::m] = decoded * m
    plain = np.clip(np.round(np.convolve(wide, taps)[:x.size]), -32768, 32767)
    assert np.abs(whole - plain).max() <= 1


def test_mulaw_path_works_a_block_out_again_from_an_earlier_sample() -> None:
    x = np.round(np.random.default_rng(2).standard_normal(3200) * 3000).astype(np.int16)
    path = MulawPath(RATE)
    path.block(0, np.zeros(3200, np.int16))  # worked out ahead on a guess (silence)
    path.block(0, x[:960])
    again = path.block(960, x[960:])  # the rest: only samples before 960 are kept
    assert np.array_equal(again, MulawPath(RATE).block(0, x)[960:])


@pytest.mark.parametrize("rate", [16000, 48000])
def test_mulaw_path_passes_silence_through_without_filtering_exactly(rate: int) -> None:
    x = np.round(np.random.default_rng(3).standard_normal(rate // 5) * 3000).astype(np.int16)
    half = x.size // 2
    path = MulawPath(rate)
    path.block(0, x[:half])  # worked out ahead on a guess that proves wrong: speech
    silent = path.block(0, np.zeros(half, np.int16))  # again: silence after silence
    assert not silent.any()
    # the filters' memories now hold the silence, not the guess: the rest is as if
    # the whole signal had gone through at once
    after = path.block(half, x[half:])
    whole = MulawPath(rate).block(0, np.concatenate([np.zeros(half, np.int16), x[half:]]))
    assert np.array_equal(after, whole[half:])
    assert after.any()


def test_opus_path_keeps_a_tone_and_is_deterministic() -> None:
    pytest.importorskip("av")
    signal = tone(440, 1.0)
    first = through_frames(OpusPath(RATE, 320, 24000), signal, 320)
    second = through_frames(OpusPath(RATE, 320, 24000), signal, 320)
    assert first.size == signal.size
    assert np.array_equal(first, second)
    # the codec's delay is silence at the start; the tone comes through at its level
    assert level_db(first[RATE // 5:] / 32767) == pytest.approx(-20.0, abs=1.0)
    assert level_db(first[:16] / 32767) < -60  # the delay's silence at the start


# --- network --------------------------------------------------------------------------


def test_network_fates_worked_out_by_hand_for_seed_3() -> None:
    # default_rng(3).random(24), four draws per packet (u_loss, u_state, u_jitter, u_reorder):
    #   0: .0856 .2368 .8013 .5822   good; .0856 >= .05 kept; .2368 < .3 -> bad;
    #      delay .8013 * 40 = 32.05 ms > 20 ms buffer: late
    #   1: .0941 .4331 .4791 .1597   bad; .0941 < .9 lost; .4331 < .5 -> good;
    #      .1597 < .2 reordered: delay 19.16 + 20 = 39.16
    #   2: .7346 .1137 .3912 .5167   good; kept; .1137 < .3 -> bad; 15.65 ms: ok
    #   3: .4306 .5868 .7378 .9563   bad; lost; .5868 >= .5 stays bad
    #   4: .2842 .6485 .6962 .2927   bad; lost; stays bad
    #   5: .0015 .9735 .2984 .3140   bad; lost
    spec = NetworkSpec(p_good_to_bad=0.3, p_bad_to_good=0.5, loss_good=0.05, loss_bad=0.9,
                       jitter_ms=40, reorder=0.2, buffer_ms=20, seed=3)
    model = NetworkModel(spec, 20.0)
    fates = [model.fate(seq) for seq in range(6)]
    # packet k carries the value k + 1; silence plays as 0
    played = [0 if seq is None else seq + 1 for seq in map(model.played, range(6))]
    assert [f.outcome for f in fates] == ["late", "lost", "ok", "lost", "lost", "lost"]
    assert [f.state for f in fates] == ["good", "bad", "good", "bad", "bad", "bad"]
    assert [f.reordered for f in fates] == [False, True, False, False, False, False]
    assert fates[1].delay_ms == pytest.approx(39.16, abs=0.01)
    # one frame of buffer: slot k plays packet k - 1; only packet 2 (value 3) arrived
    assert played == [0, 0, 0, 3, 0, 0]


def test_network_alternating_burst_model_drops_every_second_packet() -> None:
    # good -> bad and bad -> good with probability 1: the state alternates whatever the
    # draws, and the bad state loses every packet
    spec = NetworkSpec(p_good_to_bad=1.0, p_bad_to_good=1.0, loss_good=0.0, loss_bad=1.0)
    model = NetworkModel(spec, 20.0)
    outcomes = [model.fate(seq).outcome for seq in range(6)]
    assert outcomes == ["ok", "lost"] * 3


def test_network_fates_drawn_in_blocks_equal_four_draws_per_packet() -> None:
    # the module's rule, one packet at a time from its own generator, over three blocks
    spec = NetworkSpec(p_good_to_bad=0.2, p_bad_to_good=0.4, loss_good=0.1, loss_bad=0.7,
                       jitter_ms=30, reorder=0.1, buffer_ms=25, seed=11)
    rng, bad, expected = np.random.default_rng(11), False, []
    for seq in range(3 * DRAW_BLOCK + 5):
        u_loss, u_state, u_jitter, u_reorder = rng.random(4)
        lost = u_loss < (0.7 if bad else 0.1)
        state = "bad" if bad else "good"
        bad = bool(u_state >= 0.4) if bad else bool(u_state < 0.2)
        delay = u_jitter * 30 + (20.0 if u_reorder < 0.1 else 0.0)
        outcome = "lost" if lost else "late" if delay > 25 else "ok"
        expected.append((seq, state, round(float(delay), 3), bool(u_reorder < 0.1), outcome))
    model = NetworkModel(spec, 20.0)
    got = [model.fate(seq) for seq in range(len(expected))]
    assert [(f.seq, f.state, f.delay_ms, f.reordered, f.outcome) for f in got] == expected


def test_network_events_one_per_frame_and_affected_turns(tmp_path: Path) -> None:
    scenario, recording = run(tmp_path, """
  network: {p_good_to_bad: 1.0, p_bad_to_good: 1.0}
""")
    packets = [e for e in recording.events if isinstance(e, ev.NetworkPacket)]
    assert recording.sent is not None
    assert len(packets) * 320 == recording.sent.size == recording.user.size
    frames = recording.sent.reshape(-1, 320)
    for packet in packets:
        if packet.outcome == "lost":
            assert not frames[packet.seq].any()
        else:
            assert np.array_equal(frames[packet.seq],
                                  recording.user[packet.seq * 320:(packet.seq + 1) * 320])
    conditions = analyze(recording, scenario).conditions
    assert conditions is not None
    network = conditions.report_dict()["network"]
    assert network["lost"] == len(packets) // 2
    assert network["affected_turns"] == ["ask", "again"]
    # ask plays 500..2000 ms: frames 25..99, of which the odd ones, 25, 27, ..., 99
    # ((99 - 25) / 2 + 1 = 38 of 75) are lost
    assert network["turns"][0] == {"id": "ask", "lost": 38, "late": 0}


# --- the send path working ahead ------------------------------------------------------


def test_virtual_send_path_working_ahead_equals_one_frame_at_a_time(tmp_path: Path) -> None:
    # echo 60 ms: the virtual runner works three 20 ms frames ahead while the agent talks
    # and up to 32 while it is silent, and again from each turn start and each packet of
    # agent audio; the real clock's way (one frame, the agent audio played so far) on the
    # recorded tracks must give the same bytes
    conditions = """
  echo: {delay_ms: 60, level_db: -20, reflections: [{delay_ms: 7, level_db: -6}]}
  noise: {kind: white, snr_db: 30, seed: 4}
  codec: {kind: mulaw}
  network: {p_good_to_bad: 0.2, p_bad_to_good: 0.5, jitter_ms: 30, buffer_ms: 40, seed: 2}
"""
    scenario, recording = run(tmp_path, conditions)
    assert recording.sent is not None
    clips = [to_int16(clip) for clip in render_turns(scenario)]
    path = SendPath(scenario.conditions, RATE, 20.0, 320, clips)
    assert path.ahead == 1
    one_by_one = [path.send(i, recording.user[i * 320:(i + 1) * 320],
                            recording.agent[max(0, i - 1) * 320:i * 320] if i else
                            recording.agent[:0]).copy()
                  for i in range(recording.user.size // 320)]
    assert np.array_equal(np.concatenate(one_by_one), recording.sent)
    assert path.events == [e for e in recording.events if isinstance(e, ev.NetworkPacket)]
    _, again = run(tmp_path, conditions)  # and the same bytes every run
    assert again.sent is not None and again.sent.tobytes() == recording.sent.tobytes()
    assert again.events == recording.events


# --- echo and self-interruption -------------------------------------------------------


def test_echo_delay_and_level_measured_back_by_cross_correlation(tmp_path: Path) -> None:
    scenario, recording = run(tmp_path, """
  echo:
    delay_ms: 80
    level_db: -12
    reflections: [{delay_ms: 15, level_db: -6}]
""", interruptible=False)
    assert recording.sent is not None
    echo = recording.sent.astype(np.float64) - recording.user
    agent = recording.agent.astype(np.float64)
    # where the echo paths are: peaks of the room's impulse response, deconvolved
    # (echo = h * agent, so H = E / A where the agent's spectrum has energy)
    n = 1 << int(np.ceil(np.log2(agent.size + 4000)))
    spectrum_a, spectrum_e = np.fft.rfft(agent, n), np.fft.rfft(echo, n)
    power = np.abs(spectrum_a) ** 2
    h = np.fft.irfft(spectrum_e * np.conj(spectrum_a) / (power + 1e-3 * power.max()), n)
    direct = int(np.argmax(h[:4000]))
    masked = h[:4000].copy()
    masked[direct - 40:direct + 40] = 0
    reflection = int(np.argmax(masked))
    assert (direct, reflection) == (1280, 1280 + 240)  # 80 ms, then 15 ms more, at 16 kHz
    # how loud each path is: least squares of the echo on the agent track at those lags
    def delayed(lag: int) -> np.ndarray:
        return np.concatenate([np.zeros(lag), agent[:agent.size - lag]])
    paths = np.stack([delayed(direct), delayed(reflection)], axis=1)
    gains = np.linalg.lstsq(paths, echo, rcond=None)[0]
    # -12 dB is 0.2512, and -12 - 6 dB is 0.1259; the mix is rounded to int16
    assert gains == pytest.approx([10 ** (-12 / 20), 10 ** (-18 / 20)], abs=1e-4)
    assert np.max(np.abs(echo - paths @ gains)) < 0.52  # nothing else: int16 rounding


def test_loud_echo_makes_the_mock_interrupt_itself(tmp_path: Path) -> None:
    scenario, recording = run(tmp_path, "  echo: {delay_ms: 60, level_db: -10}\n")
    conditions = analyze(recording, scenario).conditions
    assert conditions is not None
    turns = [found.turn for found in conditions.self_interruptions]
    assert turns[:2] == ["ask", "again"]  # each reply cut short by its own echo
    # the mock hears 100 ms of loud echo, reacts 150 ms later: the reply lasts ~300 ms
    clears = [e.t_ms for e in recording.events if isinstance(e, ev.AgentClear)]
    first_audio = next(e.t_ms for e in recording.events if isinstance(e, ev.AgentAudio))
    assert 250 <= clears[0] - first_audio <= 400


def test_quiet_echo_interrupts_nothing(tmp_path: Path) -> None:
    # the mock's voice at -20 dBFS, 60 dB down: -80 dBFS, far under its -45 dB threshold
    scenario, recording = run(tmp_path, "  echo: {delay_ms: 60, level_db: -60}\n")
    conditions = analyze(recording, scenario).conditions
    assert conditions is not None and conditions.report_dict() == {"self_interruptions": []}


def test_a_real_barge_in_is_not_a_self_interruption(tmp_path: Path) -> None:
    body = """
name: barge
turns:
  - id: ask
    audio: {synth: speech, duration_ms: 1000}
  - id: cut
    audio: {synth: speech, duration_ms: 800}
    start: {after: agent_speech_start, delay_ms: 500}
    expect: stop
conditions:
  echo: {delay_ms: 60, level_db: -60}
"""
    scenario = load_scenario(write_scenario(tmp_path, body))
    recording = run_virtual(scenario, render_turns(scenario),
                            MockAgent(MockSettings.from_options({"response_ms": 3000})))
    metrics = analyze(recording, scenario)
    assert metrics.turns[1].stopped is True
    assert metrics.conditions is not None
    assert metrics.conditions.report_dict() == {"self_interruptions": []}


# --- noise beds -----------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["white", "music", "babble"])
def test_noise_bed_at_the_stated_snr(tmp_path: Path, kind: str) -> None:
    if kind == "babble":
        require_speech()
    scenario, recording = run(tmp_path, f"""
  noise: {{kind: {kind}, snr_db: 15, seed: 4, loop_ms: 2000}}
""", endpoint_silence_ms=300)
    assert recording.sent is not None
    loop = 2 * RATE  # one whole loop of the bed: its RMS is exactly the target
    bed = recording.sent[:loop].astype(np.float64) - recording.user[:loop]
    clips = [np.round(c * 32767).astype(np.int16) for c in render_turns(scenario)]
    snr = 20 * np.log10(speech_rms(clips) / np.sqrt(np.mean(np.square(bed))))
    assert snr == pytest.approx(15.0, abs=0.05)  # int16 rounding of the mix only


def test_noise_beds_are_seeded(tmp_path: Path) -> None:
    body = "  noise: {kind: music, snr_db: 20, seed: %d}\n"
    one = run(tmp_path / "a" if (tmp_path / "a").mkdir() is None else tmp_path, body % 1)[1]
    again = run(tmp_path / "b" if (tmp_path / "b").mkdir() is None else tmp_path, body % 1)[1]
    other = run(tmp_path / "c" if (tmp_path / "c").mkdir() is None else tmp_path, body % 2)[1]
    assert one.sent is not None and again.sent is not None and other.sent is not None
    assert np.array_equal(one.sent, again.sent)
    assert not np.array_equal(one.sent, other.sent)


def test_noise_over_silent_turns_is_refused(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """An SNR over a user whose turns are all silent has no level to refer to: refused by
    validate and before any session of run, naming the condition and the turns (unfixed:
    the bed was scaled to zero and the session ran without noise)."""
    from speecheval.cli import main

    path = write_scenario(tmp_path, """
name: quiet-caller
turns:
  - id: hush
    audio: {synth: silence, duration_ms: 500}
  - id: hush-again
    audio: {synth: silence, duration_ms: 500}
conditions:
  noise: {kind: white, snr_db: 15}
""")
    expected = (f"error: {path}: conditions.noise: snr_db 15 is measured against the user's "
                "speech, but the audio of every turn is silent ('hush' (line 3), "
                "'hush-again' (line 5)): the noise level is undefined; give a turn with "
                "sound or remove the noise")
    assert main(["session", "validate", str(path)]) == 2
    assert capsys.readouterr().err.splitlines() == [expected]
    assert main(["session", "run", str(path), "--out", str(tmp_path / "run")]) == 2
    assert capsys.readouterr().err.splitlines() == [expected]
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(("level_db", "refused"), [(-100, True), (-90, False)])
def test_silent_means_silent_once_sent_as_int16(tmp_path: Path, level_db: int, refused: bool,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """A tone that rounds to zero in int16 is silence; a quiet one that does not is sound.
    Peak of a tone at -100 dBFS: 1e-5 * sqrt(2) = 1.41e-5, under half an int16 step
    (0.5 / 32768 = 1.53e-5), so every sample rounds to 0; at -90 dBFS, 1e-4.5 * sqrt(2) =
    4.47e-5, a step and more. Four turns: the message names three and counts the rest."""
    from speecheval.cli import main

    path = write_scenario(tmp_path, f"""
name: quiet-caller
turns:
  - id: a
    audio: {{synth: tone, duration_ms: 500, freq_hz: 440, level_db: {level_db}}}
  - id: b
    audio: {{synth: silence, duration_ms: 500}}
  - id: c
    audio: {{synth: silence, duration_ms: 500}}
  - id: d
    audio: {{synth: silence, duration_ms: 500}}
conditions:
  noise: {{kind: white, snr_db: 15}}
""")
    code = main(["session", "validate", str(path)])
    err = capsys.readouterr().err
    if refused:
        assert code == 2
        assert "silent ('a' (line 3), 'b' (line 5), 'c' (line 7) and 1 more)" in err
    else:
        assert code == 0, err


# --- the scenario file ----------------------------------------------------------------


@pytest.mark.parametrize(("conditions", "expected"), [
    ("  echo: {delay_ms: 10}\n",
     "conditions.echo.delay_ms (line 8): must be at least frame_ms (20 ms)"),
    ("  echo: {dealy_ms: 40}\n", "conditions.echo.dealy_ms (line 8): unknown key"),
    ("  noise: {kind: white, snr_db: 10, voices: 3}\n",
     "conditions.noise.voices (line 8): applies to kind: babble only"),
    ("  noise: {kind: pink, snr_db: 10}\n", "conditions.noise.kind (line 8)"),
    ("  codec: {kind: opus}\n", "conditions.codec.bitrate (line 8): is required for opus"),
    ("  codec: {kind: mulaw, bitrate: 8000}\n",
     "conditions.codec.bitrate (line 8): G.711 mu-law is always 64 kbit/s"),
    ("  network: {loss_bad: 1.5}\n",
     "conditions.network.loss_bad (line 8): must be a probability between 0 and 1"),
    ("  network: {buffer_ms: 30}\n",
     "conditions.network.buffer_ms (line 8): must be a whole number of frames"),
    # the limits declared on the dataclasses' fields, which the schema is made from
    ("  noise: {kind: babble, snr_db: 10, voices: 13}\n",
     "conditions.noise.voices (line 8): must be <= 12, got 13"),
    ("  noise: {kind: white, snr_db: 10, loop_ms: 500}\n",
     "conditions.noise.loop_ms (line 8): must be >= 1000, got 500"),
    ("  codec: {kind: opus, bitrate: 5000}\n",
     "conditions.codec.bitrate (line 8): must be >= 6000, got 5000"),
    ("  echo: {reflections: [{delay_ms: 0, level_db: -6}]}\n",
     "conditions.echo.reflections[0].delay_ms (line 8): must be > 0, got 0"),
    ("  echo: {reflections: [{delay_ms: 5}]}\n",
     "conditions.echo.reflections[0].level_db (line 8): is required"),
    ("  network: {jitter_ms: 3600001}\n",
     "conditions.network.jitter_ms (line 8): must be at most 3600000 ms (one hour)"),
    ("  network: {seed: -1}\n", "conditions.network.seed (line 8): must be >= 0, got -1"),
])
def test_bad_conditions_are_named(tmp_path: Path, conditions: str, expected: str) -> None:
    path = write_scenario(tmp_path, TWO_TURNS + conditions)
    with pytest.raises(InputError) as caught:
        load_scenario(path)
    assert expected in str(caught.value)


def test_every_key_has_its_dataclass_default(tmp_path: Path) -> None:
    scenario = load_scenario(write_scenario(tmp_path, TWO_TURNS + """
  echo: {}
  noise: {kind: music, snr_db: 20}
  codec: {kind: mulaw}
  network: {}
"""))
    assert scenario.conditions == Conditions(echo=EchoSpec(), noise=NoiseSpec("music", 20.0),
                                             codec=CodecSpec("mulaw"), network=NetworkSpec())
    assert scenario.conditions.echo == EchoSpec(100.0, -20.0, ())
    assert scenario.conditions.noise == NoiseSpec("music", 20.0, 0, 4, 8000.0)


def test_mulaw_needs_a_multiple_of_8000_hz(tmp_path: Path) -> None:
    path = write_scenario(tmp_path, "sample_rate: 22050\nframe_ms: 20\n" + TWO_TURNS.lstrip()
                          + "  codec: {kind: mulaw}\n")
    with pytest.raises(InputError, match="multiple of 8000, got 22050"):
        load_scenario(path)


def test_without_conditions_nothing_changes(tmp_path: Path) -> None:
    scenario = load_scenario(write_scenario(tmp_path, TWO_TURNS.replace("conditions:\n", "")))
    recording = run_virtual(scenario, render_turns(scenario), MockAgent())
    assert recording.sent is None
    assert analyze(recording, scenario).conditions is None
    assert "conditions" not in analyze(recording, scenario).report_dict()


# --- the real clock -------------------------------------------------------------------


def test_conditions_apply_on_the_real_clock_too(tmp_path: Path) -> None:
    scenario = load_scenario(write_scenario(tmp_path, """
name: real
tail_ms: 600
turns:
  - id: ask
    audio: {synth: speech, duration_ms: 600}
conditions:
  echo: {delay_ms: 40, level_db: -6}
  network: {p_good_to_bad: 1.0, p_bad_to_good: 1.0}
"""))
    recording = live_session(scenario)
    assert recording.fault is None and recording.sent is not None
    assert recording.sent.size == recording.user.size
    frames = recording.sent.reshape(-1, 320)
    packets = [e for e in recording.events if isinstance(e, ev.NetworkPacket)]
    assert len(packets) == frames.shape[0]  # one per frame sent, tail included
    # the clean script is the reference: 600 ms of speech from 500 ms, then silence
    assert not recording.user[:8000].any() and recording.user[8000:17600].any()
    assert not recording.user[17600:].any()
    assert [p.outcome for p in packets[:4]] == ["ok", "lost", "ok", "lost"]
    assert all(not frames[p.seq].any() for p in packets if p.outcome == "lost")
    # after the script, the agent's reply comes back as echo on the frames that got through
    reply = np.flatnonzero(np.abs(recording.agent) > 300)
    assert reply.size
    echoed = frames[[p.seq for p in packets if p.outcome == "ok"
                     and p.t_ms > reply[0] / 16 + 40]]
    assert echoed.any()


def test_mulaw_tables_equal_the_formula() -> None:
    every = np.arange(-32768, 32768, dtype=np.int16)
    assert np.array_equal(mulaw_roundtrip(every), mulaw_decode(mulaw_encode(every)))


def test_max_self_interruptions_fails_the_run_in_both_reports(tmp_path: Path) -> None:
    import json

    from speecheval.cli import main

    path = write_scenario(tmp_path, TWO_TURNS + "  echo: {delay_ms: 60, level_db: -10}\n"
                          + "assert: {max_self_interruptions: 0}\n")
    code = main(["session", "run", str(path), "--out", str(tmp_path / "run")])
    assert code == 1
    report = json.loads((tmp_path / "run" / "report.json").read_text())
    (assertion,) = report["assertions"]
    assert assertion["key"] == "max_self_interruptions" and assertion["actual"] >= 2
    assert not assertion["passed"]
    assert report["summary"]["conditions"]["self_interruptions"] == assertion["actual"]
    voicebench = json.loads((tmp_path / "run" / "report.voicebench.json").read_text())
    assert voicebench["assertions"] == [assertion]
    assert (tmp_path / "run" / "sessions" / "001" / "sent.wav").is_file()
    assert "Self-interruptions" in (tmp_path / "run" / "report.md").read_text()


def test_mulaw_path_keeps_only_the_recent_input() -> None:
    # 4 s at 16 kHz through the codec in 20 ms frames, forgetting what is behind
    # each frame: the filters' buffers stop growing (64k samples), and the output is that
    # of a path that forgets nothing
    x = np.round(np.random.default_rng(3).standard_normal(RATE * 4) * 3000).astype(np.int16)
    keeping, forgetting = MulawPath(RATE), MulawPath(RATE)
    out = []
    for start in range(0, x.size, 320):
        forgetting.forget(start)
        out.append(forgetting.block(start, x[start:start + 320]))
    assert np.array_equal(np.concatenate(out), keeping.block(0, x))
    assert forgetting.mic.origin > 0 and forgetting.mic.data.size <= 1 << 16
    assert forgetting.decoded.origin > 0
