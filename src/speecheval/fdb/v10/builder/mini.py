"""The bundled mini tree: one or more samples for every outcome class of every metric.

Each sample's ``intended`` mapping states, by hand, what the placement is designed to
produce; ``case`` says which class or edge case of the spec it exercises. Clip word times
are in ``data/speech/index.json`` (e.g. ``w_yeah`` is one word of 0.347 s; ``m_weather``
has words starting at 0, 0.3, 0.754, 1.241, 1.595, 1.977 and 2.379 s). The interruption
placements keep at least ~0.3 s between a clip edge and S or R, because Silero's segment
edges fall on 32 ms windows and can sit up to ~0.1 s off the clip edge, except in the
reply that begins exactly at R, which is placed on a window boundary (6.4 s = 200 windows)
so its segment cannot start before R.
"""

from __future__ import annotations

from collections.abc import Mapping

from .spec import Placement as P
from .spec import SampleSpec

_SP = "synthetic_pause_handling"
_CP = "candor_pause_handling"
_TT = "candor_turn_taking"
_UI = "synthetic_user_interruption"
_BC = "icc_backchannel"

_CONTEXTS = (
    ("Could you suggest some books to read this summer?",
     "Actually can we talk about films instead?"),
    ("What should I see on a weekend in the city?", "Wait, is the museum open on Sundays?"),
    ("How can I get more exercise with a busy job?", "Sorry, I meant something for mornings."),
)


def _pause(subset: str, local_id: str, t: float, pauses: tuple[tuple[float, float], ...],
           placements: tuple[P, ...], case: str, *, intrusion: bool = False,
           inside: bool = False, pre: bool = False, carry: bool = False, words: int = 0,
           intruded: int = 0, reasons: tuple[str, ...] = ()) -> SampleSpec:
    intended: Mapping[str, object] = {} if reasons else {
        "case": case, "pause_intrusion": intrusion, "inside_pause_onset": inside,
        "pre_pause_speech": pre, "carry_in": carry, "any_speech": bool(placements),
        "intrusion_words": words, "intruded_pauses": intruded}
    return SampleSpec(subset=subset, local_id=local_id, duration_s=t, pauses=pauses,
                      placements=placements, reasons=reasons, intended=intended)


def _turn(local_id: str, t: float, e: float, placements: tuple[P, ...], case: str,
          outcome: str, latency_s: float | None = None,
          reasons: tuple[str, ...] = ()) -> SampleSpec:
    intended: Mapping[str, object] = {} if reasons else {
        "case": case, "outcome": outcome, "latency_s": latency_s}
    return SampleSpec(subset=_TT, local_id=local_id, duration_s=t, turn=(e, e + 0.4),
                      placements=placements, reasons=reasons, intended=intended)


def _interrupt(local_id: str, t: float, s: float, r: float, placements: tuple[P, ...],
               case: str, outcome: str, *, at_onset: bool, at_end: bool,
               restarts: bool = False, stop_observed: bool | None = None,
               latency_s: float | None = None, reasons: tuple[str, ...] = (),
               has_output: bool = True) -> SampleSpec:
    intended: Mapping[str, object] = {} if reasons else {
        "case": case, "outcome": outcome, "speech_at_onset": at_onset,
        "speech_at_end": at_end, "restarts": restarts, "stop_observed": stop_observed,
        "latency_s": latency_s}
    context = _CONTEXTS[int(local_id) % len(_CONTEXTS)]
    return SampleSpec(subset=_UI, local_id=local_id, duration_s=t, interrupt=(s, r),
                      placements=placements, context=context, reasons=reasons,
                      has_output=has_output, intended=intended)


def _pause_specs() -> list[SampleSpec]:
    return [
        _pause(_SP, "1", 8.0, ((3.2, 4.1),), (), "no speech at all"),
        # "I" 1.0-1.284, "see" 1.324-1.64, both before the pause at 4.5.
        _pause(_SP, "2", 9.0, ((4.5, 5.3),), (P("s_i_see", 1.0),), "pre-pause speech only",
               pre=True),
        # "okay" 4.2-4.629: after the first pause start, outside both pauses, owned by pause 1.
        _pause(_SP, "3", 10.0, ((2.5, 3.3), (6.0, 6.8)), (P("w_okay", 4.2),),
               "intrusion outside the pauses", intrusion=True, words=1, intruded=1),
        # "sure" 3.4-3.791 inside [3.0, 4.2).
        _pause(_SP, "4", 8.0, ((3.0, 4.2),), (P("w_sure", 3.4),), "onset inside a pause",
               intrusion=True, inside=True, words=1, intruded=1),
        _pause(_SP, "5", 8.0, ((3.5, 4.5),), (P("w_yeah", 3.5),),
               "word exactly at a pause start", intrusion=True, inside=True, words=1,
               intruded=1),
        # "right" 3.118-3.5 ends exactly at the pause start: pre-pause, not a carry-in.
        _pause(_SP, "6", 8.0, ((3.5, 4.5),), (P("w_right", 3.118),),
               "word ending exactly at a pause start", pre=True),
        _pause(_SP, "7", 8.0, ((3.0, 4.0),), (P("w_hello", 3.2),), "ineligible",
               reasons=("input_pacing",)),
        # Words at 3.0, 3.3, 3.754, 4.241 (owned by pause 1 = [2.0, 4.5)) and 4.595, 4.977,
        # 5.379 (owned by pause 2 = [4.5, 7.0), the first two inside [4.5, 5.2)).
        _pause(_SP, "8", 10.0, ((2.0, 2.8), (4.5, 5.2), (7.0, 7.6)), (P("m_weather", 3.0),),
               "words in several owned intervals", intrusion=True, inside=True, words=7,
               intruded=2),
        # "sense" 3.9-4.351 straddles the pause start 4.0 and no word starts after it.
        _pause(_SP, "9", 9.0, ((4.0, 5.0),), (P("s_makes_sense", 2.996),), "carry-in only",
               pre=True, carry=True),
        # "short" 4.913-5.334 straddles 5.0; "walk" 5.374 and "and" 5.782 start inside
        # [5.0, 5.9); then 6.184, 6.628, 7.04, 7.469, 7.879, all owned by pause 1.
        _pause(_CP, "1", 12.0, ((5.0, 5.9), (8.0, 8.8)), (P("l_walk", 3.0),),
               "carry-in that keeps talking", intrusion=True, inside=True, pre=True,
               carry=True, words=7, intruded=1),
        _pause(_CP, "2", 8.0, ((3.0, 4.0),), (P("w_okay", 3.2, null_end_words=(0,)),),
               "zero-length word (null end) inside a pause", intrusion=True, inside=True,
               words=1, intruded=1),
        # The annotation carries float noise, as in the official example; after microsecond
        # rounding the word starts exactly at the pause start.
        _pause(_CP, "3", 7.5, ((3.319999999999993, 4.0),), (P("w_great", 3.32),),
               "float-noise pause start equal to a word start", intrusion=True, inside=True,
               words=1, intruded=1),
        _pause(_CP, "4", 9.0, ((3.0, 4.0), (6.0, 6.5)), (P("w_okay", 5.0),), "ineligible",
               reasons=("input_pacing", "window_error")),
        # "good" 7.5, "question" 7.822: owned by the last pause, which runs to T.
        _pause(_CP, "5", 9.0, ((2.0, 2.6), (4.0, 4.7)), (P("s_good_question", 7.5),),
               "intrusion in the last owned interval", intrusion=True, words=2, intruded=1),
        _pause(_CP, "6", 6.0, ((2.0, 3.0), (3.5, 4.2)), (), "no speech, several pauses"),
        _pause(_CP, "7", 11.23456, ((4.0, 4.8),), (P("s_let_me_think", 0.9),),
               "pre-pause speech, T not on a millisecond", pre=True),
    ]


def _turn_specs() -> list[SampleSpec]:
    return [
        _turn("1", 9.0, 4.0, (P("w_yeah", 3.6), P("m_help", 4.6)),
              "acknowledgment before E, then an answer", "early_start"),
        _turn("2", 9.0, 4.0, (P("s_i_see", 3.999),), "negative latency of 1 ms",
              "early_start"),
        # E = 6.32000000000005 rounds to 6.32 s, the word start: latency 0, not early.
        _turn("3", 11.3, 6.32000000000005, (P("w_hello", 6.32),),
              "reply exactly at E (float noise)", "response", 0.0),
        _turn("4", 8.0, 3.0, (P("w_sure", 3.45),), "response within 1 s", "response", 0.45),
        _turn("5", 7.5, 2.5, (P("m_plan", 3.5),), "latency exactly 1 s", "response", 1.0),
        _turn("6", 8.5, 3.5, (P("m_suggest", 5.0),), "response within 2 s", "response", 1.5),
        _turn("7", 7.6, 2.5, (P("w_okay", 6.3),), "response within 5 s", "response", 3.8),
        _turn("8", 9.0, 2.0, (P("w_right", 7.5),), "response after 5 s inside the window",
              "response", 5.5),
        _turn("9", 8.0, 3.0, (), "no response", "no_response"),
        _turn("10", 8.0, 3.0, (P("w_sure", 3.5),), "ineligible", "response",
              reasons=("window_error", "dataset_hash_mismatch")),
        _turn("11", 9.2, 4.2, (P("s_let_me_think", 5.9),), "response within 2 s", "response",
              1.7),
        _turn("12", 10.0, 5.0, (P("m_tell_more", 5.8),), "response within 1 s", "response",
              0.8),
        _turn("13", 8.0, 3.0, (P("w_okay", 5.0),), "latency exactly 2 s", "response", 2.0),
    ]


def _interrupt_specs() -> list[SampleSpec]:
    return [
        # Speech 1.0-3.446 ends long before S; the reply at 7.8 comes after R.
        _interrupt("1", 14.0, 5.0, 7.0, (P("m_help", 1.0), P("s_makes_sense", 7.8)),
                   "not exercised", "not_exercised", at_onset=False, at_end=False),
        # Speech starts at 5.6, after S, and runs past R: a segment starts inside (S, R).
        _interrupt("2", 14.0, 5.0, 7.0, (P("l_novel", 5.6),),
                   "not exercised but speech at end", "not_exercised", at_onset=False,
                   at_end=True, restarts=True),
        # One segment 3.0-9.344 covers S and R.
        _interrupt("3", 14.0, 5.0, 7.0, (P("l_museum", 3.0),), "speaking at end",
                   "speaking_at_end", at_onset=True, at_end=True, stop_observed=True),
        # Speech 3.0-5.446 covers S = 4.0; reply at 6.9, R = 6.5.
        _interrupt("4", 14.0, 4.0, 6.5, (P("m_help", 3.0), P("s_good_question", 6.9)),
                   "response after 0.4 s", "response", at_onset=True, at_end=False,
                   stop_observed=True, latency_s=0.4),
        _interrupt("5", 14.0, 4.0, 6.0, (P("m_weather", 2.5), P("m_plan", 7.5)),
                   "response after 1.5 s", "response", at_onset=True, at_end=False,
                   stop_observed=True, latency_s=1.5),
        _interrupt("6", 15.0, 4.5, 6.2, (P("m_suggest", 3.0), P("s_i_see", 9.2)),
                   "response after 3 s", "response", at_onset=True, at_end=False,
                   stop_observed=True, latency_s=3.0),
        _interrupt("7", 16.0, 4.0, 6.0, (P("m_tell_more", 3.0), P("w_okay", 12.0)),
                   "response after 6 s", "response", at_onset=True, at_end=False,
                   stop_observed=True, latency_s=6.0),
        # R = 6.4 s is a Silero window boundary (200 x 512 samples), so the reply's segment
        # starts at R at the earliest: it does not carry over R.
        _interrupt("8", 14.0, 4.0, 6.4, (P("m_help", 3.0), P("w_yeah", 6.4)),
                   "reply beginning exactly at R", "response", at_onset=True, at_end=False,
                   stop_observed=True, latency_s=0.0),
        # Speech 2.0-7.475 covers S and ends ~1 s before R; nothing after R.
        _interrupt("9", 14.0, 4.0, 8.5, (P("l_walk", 2.0),), "no response", "no_response",
                   at_onset=True, at_end=False, stop_observed=True),
        # Stops at 4.956, restarts 5.6-6.772 inside (S, R), replies at 8.3 after R = 7.5.
        _interrupt("10", 15.0, 4.0, 7.5,
                   (P("m_plan", 2.5), P("s_let_me_think", 5.6), P("w_sure", 8.3)),
                   "restart inside (S, R), then a response", "response", at_onset=True,
                   at_end=False, restarts=True, stop_observed=True, latency_s=0.8),
        # Two clips joined by a 39 ms gap speak from 0.6 s to past T = 12.0.
        _interrupt("11", 12.0, 4.0, 6.5, (P("l_novel", 0.6), P("l_museum", 6.34)),
                   "segment runs to T (no observed stop)", "speaking_at_end", at_onset=True,
                   at_end=True, stop_observed=False),
        # Stops at 4.946, restarts at 6.0 and talks past R = 7.0.
        _interrupt("12", 14.0, 4.0, 7.0, (P("m_help", 2.5), P("l_novel", 6.0)),
                   "stop, restart before R and carry over it", "speaking_at_end",
                   at_onset=True, at_end=True, restarts=True, stop_observed=True),
        _interrupt("13", 14.0, 4.0, 6.5, (P("m_help", 3.0), P("w_okay", 7.0)), "ineligible",
                   "response", at_onset=True, at_end=False,
                   reasons=("input_pacing", "window_error")),
        _interrupt("14", 14.0, 4.0, 6.5, (P("m_help", 3.0),), "ineligible, no output",
                   "no_response", at_onset=True, at_end=False, reasons=("window_error",),
                   has_output=False),
        # S and R off the millisecond grid, as in the official annotation; T * rate is not
        # whole either. Speech 3.2-6.031 covers S; the reply starts at 9.5 = R + 1.356.
        _interrupt("15", 13.78931, 5.530666666666667, 8.144,
                   (P("m_weather", 3.2), P("m_suggest", 9.5)),
                   "response with annotation times off the grid", "response", at_onset=True,
                   at_end=False, stop_observed=True, latency_s=1.356),
    ]


def _backchannel_specs() -> list[SampleSpec]:
    return [
        SampleSpec(subset=_BC, local_id="1", duration_s=10.0,
                   placements=(P("w_yeah", 2.0), P("w_okay", 5.5)),
                   intended={"case": "two backchannels"}),
        SampleSpec(subset=_BC, local_id="2", duration_s=8.0, intended={"case": "silence"}),
        SampleSpec(subset=_BC, local_id="3", duration_s=12.0,
                   placements=(P("s_i_see", 3.0), P("m_plan", 7.0)),
                   intended={"case": "backchannel then a takeover"}),
        SampleSpec(subset=_BC, local_id="4", duration_s=9.0, placements=(P("w_right", 4.0),),
                   reasons=("input_pacing",)),
    ]


def mini_specs() -> list[SampleSpec]:
    """All mini-tree samples in report order (subset order, then id)."""
    return [*_pause_specs(), *_turn_specs(), *_interrupt_specs(), *_backchannel_specs()]
