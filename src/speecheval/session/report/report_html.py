"""The HTML report: one self-contained page with a timeline per session.

The page is the shared report shell (:mod:`speecheval.report.page`); this module says
what it holds. Each session's timeline (:mod:`speecheval.report.timeline`, inline SVG as
wide as the page) shows the user track above the agent track, each as its envelope with
the detected speech as bars under it, every turn's window shaded (green passed, red
failed) and labelled, and what the metrics measured: response latency (user offset to
agent onset) and barge-in stop time (user onset to agent stop) as labelled spans, each
clear (or server ``speech_started``) as a dashed line on the agent lanes, and the agent's
fault as a red line with its reason. The fault is also stated in words under the
session's heading, wherever in the session it happened.

The recording plays in the page: each session's stereo ``session.wav`` (user left,
agent right) is embedded as a ``data:`` URI, so the page works alone, sent by mail or
opened from a CI artifact. Past :data:`EMBED_LIMIT_BYTES` of audio per page the rest is
linked by its path relative to the page instead, and the page says so.
"""

from __future__ import annotations

from ...core.audio import encode_wav
from ...core.provenance import Provenance
from ...core.timeline import Span as Segment
from ...report import page as pg
from ...report.table import Table
from ...report.timeline import Bar, Marker, Shade, Stretch, Timeline, Track, Wave, to_svg
from ..metrics.evaluate import RunResult
from ..metrics.results import SessionMetrics, TurnMetrics
from ..record import events as ev
from ..record.recording import SessionRecording
from .recording_io import (
    AGENT_WAV,
    EVENTS_JSONL,
    SESSION_WAV,
    USER_WAV,
    session_dir,
    stereo_tracks,
)
from .report_md import (
    ASSERTION_HEADER,
    TURN_HEADER,
    VERDICT_TONES,
    assertion_cells,
    options_text,
    session_facts,
    summary_rows,
    turn_cells,
    verdict_text,
)

EMBED_LIMIT_BYTES = pg.EMBED_LIMIT_BYTES
"""Audio embedded per page at most; later sessions are linked by relative path."""

COLOURS = {"user": "#2563eb", "user_bar": "#1d4ed8", "agent": "#ea580c",
           "agent_bar": "#c2410c", "pass": "#dcfce7", "fail": "#fee2e2",
           "latency": "#15803d", "talk_over": "#b91c1c", "stop": "#7c3aed",
           "clear": "#7c3aed", "fault": "#dc2626"}
LANE, BARS, MEASURES = 70.0, 10.0, 30.0
AGENT_LANES = ("agent", "agent speech")

LEGEND = ("Blue: user, orange: agent (envelope, detected speech as bars). Shaded: each "
          "turn's audio, green if the turn passed, red if not. Green spans: response "
          "latency (red when the agent talked over the user); purple spans: barge-in stop "
          "time; dashed purple lines: the agent's clears; red line: the agent's fault. "
          "Hover a mark for its value.")


def _bars(segments: tuple[Segment, ...]) -> tuple[Bar, ...]:
    return tuple(Bar((a, b), tooltip=f"{a:.2f}-{b:.2f} s")
                 for a, b in ((s.start_s, s.end_s) for s in segments))


def _measures(turns: tuple[TurnMetrics, ...]) -> tuple[Stretch, ...]:
    """Response latency (first row) and barge-in stop time (second row) of every turn."""
    found = []
    for turn in turns:
        offset, onset = turn.user_offset_s, turn.user_onset_s
        latency = turn.response_latency_ms
        if offset is not None and latency is not None:
            colour = COLOURS["talk_over"] if turn.talk_over else COLOURS["latency"]
            found.append(Stretch((offset, offset + latency / 1000.0), f"{latency:g} ms", 0,
                                 colour))
        if onset is not None and turn.stop_ms is not None:
            found.append(Stretch((onset, onset + turn.stop_ms / 1000.0),
                                 f"stop {turn.stop_ms:g} ms", 1, COLOURS["stop"]))
    return tuple(found)


def _fault(fault: str, fault_s: float | None, duration_s: float) -> Marker:
    """A red line where the fault ended the session; at the right edge, labelled "after
    the end", when it was found only after the recording (a stall at close)."""
    after = fault_s is None or fault_s > duration_s + 0.001
    return Marker(duration_s if after else fault_s or 0.0,
                  "fault after the end" if after else "fault", COLOURS["fault"], width=2.0,
                  side="left", tooltip=f"agent fault: {fault}")


def session_timeline(session: SessionMetrics, recording: SessionRecording) -> Timeline:
    """The timeline of one session (``session``: its metrics)."""
    log = ev.parse_log(recording.events)
    duration = session.duration_s
    rate = recording.sample_rate
    tracks = (
        Track("user", LANE, COLOURS["user"], wave=Wave(recording.user, rate)),
        Track("user speech", BARS, COLOURS["user_bar"], "", spans=_bars(
            session.user_segments)),
        Track("agent", LANE, COLOURS["agent"], wave=Wave(recording.agent, rate)),
        Track("agent speech", BARS, COLOURS["agent_bar"], "", spans=_bars(
            session.agent_segments)),
        Track("measures", MEASURES, caption="", intervals=_measures(session.turns)))
    shades = tuple(Shade((t.start_s, t.audio_end_s), COLOURS["pass" if t.passed else "fail"],
                         t.id, t.id)
                   for t in session.turns if t.start_s is not None and t.audio_end_s is not None)
    markers = [Marker(t, color=COLOURS["clear"], dashed=True, width=1.5, tracks=AGENT_LANES,
                      tooltip=f"clear at {t:.3f} s") for t in log.clears_s]
    if session.fault:
        markers.append(_fault(session.fault, log.fault_s, duration))
    return Timeline(duration, tracks, markers=tuple(markers), shades=shades)


def _audio(recording: SessionRecording, folder: str) -> list[pg.Block]:
    """The session's stereo recording (embedded while the page's budget allows) and the
    files next to the page."""
    files: list[pg.Inline] = ["Files next to this page: "]
    for index, name in enumerate((SESSION_WAV, USER_WAV, AGENT_WAV, EVENTS_JSONL)):
        files += [pg.Code(f"{folder}/{name}"), " (stereo), " if index == 0 else
                  ", " if index < 3 else "."]
    return [pg.Audio("Both sides (user left, agent right):", f"{folder}/{SESSION_WAV}",
                     lambda: encode_wav(stereo_tracks(recording), recording.sample_rate)),
            pg.Paragraph(tuple(files), "note")]


def _session(index: int, session: SessionMetrics, recording: SessionRecording
             ) -> pg.Section:
    number = index + 1
    blocks: list[pg.Block] = []
    if session.fault:
        blocks.append(pg.Paragraph((f"Agent fault: {session.fault}",), "fault"))
    blocks.append(pg.Paragraph((f"{session_facts(session)}.",)))
    blocks.append(pg.Figure(to_svg(session_timeline(session, recording),
                                   ident=f"session{number}",
                                   description=f"timeline of session {number}")))
    if index == 0:
        blocks.append(pg.Paragraph((LEGEND,), "note"))
    blocks += _audio(recording, session_dir(index))
    blocks.append(pg.TableBlock(Table.of(TURN_HEADER, [turn_cells(t) for t in session.turns],
                                         tones=VERDICT_TONES)))
    return pg.Section(f"Session {number}", tuple(blocks))


def build_page(result: RunResult, record: Provenance) -> pg.Page:
    """What the page shows of the run; ``record`` is its provenance."""
    summary = result.summary
    verdict = verdict_text(result)
    facts = (pg.Fact("Agent", (pg.Code(result.agent),)),
             pg.Fact("Clock", (result.clock,)),
             pg.Fact("Sessions", (str(summary.sessions),)),
             pg.Fact("Result", (pg.Tone(verdict, "pass" if verdict == "PASS" else "fail"),)),
             pg.Fact("Agent options (credentials removed)", (pg.Code(options_text(result)),)))
    provenance = (("speecheval", record.tool_version),
                  ("scenario", f"{result.scenario.path.name} sha256 "
                               f"{record.inputs['scenario'][:12]}"))
    blocks: list[pg.Block] = []
    if summary.faulted_sessions:
        blocks.append(pg.Paragraph((f"The agent failed in {summary.faulted_sessions} of "
                                    f"{summary.sessions} session(s); see each session.",),
                                   "fault"))
    blocks.append(pg.Section("Summary", (pg.TableBlock(Table.of(
        ["Metric", "Value"], summary_rows(summary), align=["left", "left"])),)))
    assertions: pg.Block = (
        pg.TableBlock(Table.of(ASSERTION_HEADER, [assertion_cells(a)
                                                  for a in result.assertions],
                               tones=VERDICT_TONES))
        if result.assertions else pg.Paragraph(("The scenario has no assertions.",)))
    blocks.append(pg.Section("Assertions", (assertions,)))
    blocks += [_session(index, session, result.recordings[index])
               for index, session in enumerate(result.sessions)]
    return pg.Page(f"Session report: {result.scenario.name}", facts, provenance, tuple(blocks),
                   embed_limit_bytes=EMBED_LIMIT_BYTES)


def render_html(result: RunResult, record: Provenance) -> str:
    """The whole page."""
    return pg.render_page(build_page(result, record))
