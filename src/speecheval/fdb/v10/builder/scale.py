"""Seeded sample specifications for a tree the size of the full v1.0 set.

Every subset gets its declared number of samples (727 in all). Interruption samples last
about 30 s, pause samples 5-20 s and turn-taking samples 10-15 s, as in the dataset. Each
sample follows one behaviour pattern (silent, early start, response, speaking over the
interruption, ...) drawn from ``numpy.random.default_rng(seed)``. ``intended`` records the
pattern and, for turn-taking and interruption, the outcome and latency it produces; the
interruption answers keep the same >= 0.3 s margins around S and R as the mini tree (a
Silero run over all 200 interruption samples of seed 0 matched every intended
speech_at_onset and speech_at_end). Pause and backchannel patterns are nominal: a scorer
decides their flags from the words. Times are drawn on the millisecond grid so placements
land on samples.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ....core.timebase import from_us, to_us
from .clips import ClipLibrary, load_clips
from .spec import DECLARED_SIZES, Placement, SampleSpec

_GAP_S = 0.04  # gap between chained clips: one continuous speech segment for Silero
_MARGIN_S = 0.3  # distance kept between a clip edge and S or R
_INELIGIBLE_SHARE = 0.02
_REASONS = ["input_pacing", "window_error", "dataset_hash_mismatch"]


class _Draw:
    """Millisecond-grid draws from one seeded generator."""

    def __init__(self, seed: int, clips: ClipLibrary) -> None:
        self.rng = np.random.default_rng(seed)
        self.names = sorted(clips.clips)
        self.durations = {name: clips[name].duration_s for name in self.names}

    def time(self, low: float, high: float) -> float:
        return round(float(self.rng.uniform(low, high)), 3)

    def choice(self, options: list[str], weights: list[float]) -> str:
        return str(self.rng.choice(options, p=np.asarray(weights) / sum(weights)))

    def clip(self, prefix: str) -> str:
        pool = [n for n in self.names if n.startswith(prefix)]
        return str(pool[int(self.rng.integers(len(pool)))])

    def chain_ending(self, stop: float, span: float) -> tuple[Placement, ...]:
        """Clips joined by short gaps that speak for about ``span`` s and end at ``stop``."""
        picked: list[str] = []
        total = -_GAP_S
        while True:
            room = span - total - _GAP_S
            fits = [n for n in self.names if self.durations[n] <= room]
            if not fits:
                break
            name = fits[int(self.rng.integers(len(fits)))]
            picked.append(name)
            total += _GAP_S + self.durations[name]
        return self.chain_from(round(stop - total, 3), picked)

    def chain_from(self, start: float, names: list[str]) -> tuple[Placement, ...]:
        placements = []
        cursor = start
        for name in names:
            placements.append(Placement(name, round(cursor, 3)))
            cursor += self.durations[name] + _GAP_S
        return tuple(placements)

    def chain_starting(self, start: float, span: float) -> tuple[Placement, ...]:
        """Clips joined by short gaps from ``start``, about ``span`` s long (at least one)."""
        names = [self.clip("l_")]
        total = self.durations[names[0]]
        while total < span:
            names.append(self.clip(self.choice(["l_", "m_"], [2, 1])))
            total += _GAP_S + self.durations[names[-1]]
        return self.chain_from(start, names)


def _latency(reference: float, start: float) -> float:
    """Latency of a word at ``start`` after ``reference``, exact on the microsecond grid."""
    return from_us(to_us(start) - to_us(reference))


def _pause_sample(draw: _Draw, subset: str, local_id: str) -> SampleSpec:
    t = draw.time(5.0, 20.0)
    n_pauses = int(draw.rng.integers(1, 4))
    pauses: list[tuple[float, float]] = []
    cursor = draw.time(1.5, min(4.0, t / 3))
    for _ in range(n_pauses):
        length = draw.time(0.4, 1.5)
        if cursor + length > t - 0.5:
            break
        pauses.append((cursor, round(cursor + length, 3)))
        cursor = round(cursor + length + draw.time(1.0, 3.0), 3)
    first, last_end = pauses[0][0], pauses[-1][1]
    pattern = draw.choice(
        ["silent", "pre_pause", "intrusion", "talk_over_first_pause", "inside_pause"],
        [4, 1.5, 2.5, 1, 1])
    placements: tuple[Placement, ...] = ()
    if pattern == "pre_pause" and first > 0.9:
        placements = (Placement(draw.clip("w_"), draw.time(0.1, first - 0.5)),)
    elif pattern == "intrusion" and t - last_end > 1.2:
        placements = (Placement(draw.clip("s_"), draw.time(last_end, t - 1.2)),)
    elif pattern == "talk_over_first_pause":
        placements = draw.chain_ending(round(first + draw.time(0.2, 1.0), 3), first - 0.2)
    elif pattern == "inside_pause":
        a, b = pauses[int(draw.rng.integers(len(pauses)))]
        placements = (Placement(draw.clip("w_"), draw.time(a, b)),)
    else:
        pattern = "silent"
    return SampleSpec(subset=subset, local_id=local_id, duration_s=t, pauses=tuple(pauses),
                      placements=placements, intended={"pattern": pattern})


def _turn_sample(draw: _Draw, local_id: str) -> SampleSpec:
    t = draw.time(10.0, 15.0)
    e = round(t - draw.time(4.8, 5.5), 3)
    pattern = draw.choice(["early_start", "response", "no_response"], [1.5, 7, 1.5])
    placements: tuple[Placement, ...] = ()
    latency: float | None = None
    if pattern == "early_start":
        placements = (Placement(draw.clip("w_"), draw.time(e - 1.0, e - 0.35)),
                      Placement(draw.clip("m_"), draw.time(e + 0.2, e + 1.0)))
    elif pattern == "response":
        start = draw.time(e, e + 4.5)
        latency = _latency(e, start)
        placements = (Placement(draw.clip(draw.choice(["w_", "s_", "m_"], [1, 1, 2])), start),)
    return SampleSpec(subset="candor_turn_taking", local_id=local_id, duration_s=t,
                      turn=(e, round(e + draw.time(0.2, 1.0), 3)), placements=placements,
                      intended={"pattern": pattern, "outcome": pattern, "latency_s": latency})


def _interrupt_sample(draw: _Draw, local_id: str) -> SampleSpec:
    t = draw.time(27.0, 33.0)
    s = draw.time(8.0, 14.0)
    r = round(s + draw.time(1.5, 3.5), 3)
    pattern = draw.choice(["response", "no_response", "speaking_at_end", "not_exercised"],
                          [6, 1, 1, 2])
    answer_start = draw.time(1.5, 3.5)
    if pattern == "not_exercised":
        answer = draw.chain_ending(round(s - draw.time(_MARGIN_S + 0.2, 2.0), 3),
                                   s - 2.5 - answer_start)
    elif pattern == "speaking_at_end":
        answer = draw.chain_starting(answer_start, r + draw.time(_MARGIN_S, 5.0) - answer_start)
    else:
        stop = draw.time(s + _MARGIN_S, r - _MARGIN_S - 0.2)
        answer = draw.chain_ending(stop, stop - answer_start)
    reply: tuple[Placement, ...] = ()
    latency: float | None = None
    if pattern in ("response", "not_exercised"):
        reply_start = round(r + draw.time(0.2, 4.0), 3)
        reply = draw.chain_starting(reply_start, draw.time(2.0, t - reply_start))
        latency = _latency(r, reply_start) if pattern == "response" else None
    intended = {"pattern": pattern, "outcome": pattern,
                "speech_at_onset": pattern != "not_exercised",
                "speech_at_end": pattern == "speaking_at_end", "latency_s": latency}
    return SampleSpec(subset="synthetic_user_interruption", local_id=local_id, duration_s=t,
                      interrupt=(s, r), placements=answer + reply,
                      context=("(generated context)", "(generated interruption)"),
                      intended=intended)


def _backchannel_sample(draw: _Draw, local_id: str) -> SampleSpec:
    t = draw.time(8.0, 15.0)
    count = int(draw.rng.integers(0, 4))
    slots = np.linspace(0.5, t - 1.0, count + 1)
    placements = tuple(Placement(draw.clip("w_"), draw.time(float(lo), float(lo) + 0.5))
                       for lo in slots[:count])
    return SampleSpec(subset="icc_backchannel", local_id=local_id, duration_s=t,
                      placements=placements, intended={"pattern": f"{count} backchannels"})


def _sample(draw: _Draw, subset: str, local_id: str) -> SampleSpec:
    if subset.endswith("pause_handling"):
        return _pause_sample(draw, subset, local_id)
    if subset == "candor_turn_taking":
        return _turn_sample(draw, local_id)
    if subset == "synthetic_user_interruption":
        return _interrupt_sample(draw, local_id)
    return _backchannel_sample(draw, local_id)


def scale_specs(seed: int = 0, clips: ClipLibrary | None = None) -> list[SampleSpec]:
    """All 727 samples of the full-size tree, deterministic from ``seed``.

    About one sample in fifty is marked ineligible with one or two capture-check reasons,
    so the scorer's ineligible bookkeeping runs at full size too.
    """
    draw = _Draw(seed, load_clips() if clips is None else clips)
    specs: list[SampleSpec] = []
    for subset, size in DECLARED_SIZES.items():
        for index in range(1, size + 1):
            spec = _sample(draw, subset, str(index))
            if draw.rng.random() < _INELIGIBLE_SHARE:
                count = int(draw.rng.integers(1, 3))
                reasons = tuple(sorted(draw.rng.choice(_REASONS, size=count, replace=False)))
                spec = replace(spec, reasons=tuple(str(r) for r in reasons))
            specs.append(spec)
    return specs
