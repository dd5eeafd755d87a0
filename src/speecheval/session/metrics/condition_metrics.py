"""What the scenario's conditions did to a session: self-interruptions and network damage.

**Self-interruption**: the agent stopped itself (a clear, or the server's
``speech_started``) while the agent was talking and the caller was not: no speech on the
clean user track (the script, which holds no echo or noise) between the start of the
agent's segment and the stop. With ``conditions.echo`` that is the agent hearing its own
voice; with a noise bed, the noise. The agent's segment is the last one that started at
or before the stop, and it must still be playing or have ended at most
``TALKING_SLACK_MS`` before it (the detector backdates a segment's end to its last
active frame).

**Network**: every packet's fate is in the log (``network`` events); a turn is affected
when a frame sent while its audio played was lost or late, so the agent heard part of
the caller's words as silence.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

from ...core.timebase import from_us, to_us
from ...core.timeline import Spans
from ..record import events as ev
from .results import ConditionFindings, NetworkDamage, SelfInterruption, TurnDamage

TALKING_SLACK_MS = 100


def condition_metrics(events: list[ev.Event], windows: tuple[ev.TurnWindow, ...],
                      user: Spans, agent: Spans, network: bool) -> ConditionFindings:
    """The session's conditions findings: self-interruptions, and the network's damage
    per turn when ``network`` is declared."""
    log = ev.parse_log(events)
    starts = [to_us(window.start_s) for window in windows]
    return ConditionFindings(
        self_interruptions=_self_interruptions(log.clears_s, windows, starts, user, agent),
        network=_network(events, windows) if network else None)


def _turn_at(t_us: int, windows: tuple[ev.TurnWindow, ...], starts: list[int]) -> str | None:
    k = bisect_right(starts, t_us) - 1
    return windows[k].turn_id if k >= 0 else None


def _self_interruptions(clears_s: tuple[float, ...], windows: tuple[ev.TurnWindow, ...],
                        starts: list[int], user: Spans, agent: Spans
                        ) -> tuple[SelfInterruption, ...]:
    found = []
    agent_starts = [int(s) for s in agent.starts]
    for t_s in clears_s:
        t = to_us(t_s)
        k = bisect_right(agent_starts, t) - 1
        if k < 0 or int(agent.ends[k]) < t - TALKING_SLACK_MS * 1000:
            continue  # the agent was not talking: nothing to interrupt
        seg_start = int(agent.starts[k])
        caller = (user.ends > seg_start) & (user.starts <= t)
        if not caller.any():
            found.append(SelfInterruption(t_s=from_us(t), turn=_turn_at(t, windows, starts)))
    return tuple(found)


def _network(events: list[ev.Event], windows: tuple[ev.TurnWindow, ...]) -> NetworkDamage:
    packets = [e for e in events if isinstance(e, ev.NetworkPacket)]
    turns = []
    # (send time, outcome) by time, so a turn's packets are one run found by bisection
    # (not every packet tested against every turn); whole microseconds: in float ms a
    # frame sent at a window's edge can fall on either side of it (8.06 s * 1000 > 8060)
    by_time = sorted((to_us(p.t_ms / 1000.0), p.outcome) for p in packets)
    sent = [t for t, _ in by_time]
    for window in windows:
        lo, hi = to_us(window.start_s), to_us(window.end_s)
        mine = [outcome for _, outcome in
                by_time[bisect_left(sent, lo):bisect_left(sent, hi)]]
        turns.append(TurnDamage(id=window.turn_id, lost=mine.count("lost"),
                                late=mine.count("late")))
    return NetworkDamage(
        packets=len(packets),
        lost=sum(p.outcome == "lost" for p in packets),
        late=sum(p.outcome == "late" for p in packets),
        reordered=sum(p.reordered for p in packets),
        turns=tuple(turns),
        affected_turns=tuple(t.id for t in turns if t.lost or t.late),
    )
