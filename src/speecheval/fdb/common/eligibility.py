"""Whether a capture may be scored: the ``reference-export`` checks, each a reason code.

A failed check adds its code to the sample's ``reasons`` (what ``unified-score`` counts
under ``counts.ineligible_reasons``) and a sentence to ``eligibility_details``:

``input_pacing``          an append started more than 80 ms after ``i * 80 ms``, completed
                          more than 80 ms after its deadline, or the input was not all sent
``window_error``          a client or server fault at or before T (after T it is only a
                          diagnostic, listed under ``faults_after_t``)
``dataset_hash_mismatch`` the dataset files now differ from those the run recorded
``output_rate``           no declared output rate, or audio at another rate mid-session
``no_output``             no audio was received (or the sample was never captured)

Times are compared in integer microseconds, so a packet exactly 80 ms late passes and
one 1 us later fails.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...core.timebase import to_us

TOLERANCE_US = 80_000


@dataclass
class Verdict:
    """The reasons, their sentences, and the diagnostics a reader may ignore."""

    reasons: list[str] = field(default_factory=list)
    details: list[str] = field(default_factory=list)
    pacing: dict[str, Any] = field(default_factory=dict)
    faults_after_t: list[dict[str, Any]] = field(default_factory=list)

    def fail(self, reason: str, detail: str) -> None:
        if reason not in self.reasons:
            self.reasons.append(reason)
        self.details.append(detail)


def check_pacing(appends: Sequence[Mapping[str, Any]], expected_packets: int,
                 verdict: Verdict) -> None:
    """Every append starts within 80 ms of its deadline and completes by deadline + 80 ms."""
    worst_start = worst_end = 0
    for append in appends:
        deadline = to_us(float(append["deadline_s"]))
        start_late = to_us(float(append["start_s"])) - deadline
        end_late = to_us(float(append["end_s"])) - deadline
        worst_start, worst_end = max(worst_start, start_late), max(worst_end, end_late)
        if start_late > TOLERANCE_US:
            verdict.fail("input_pacing", f"packet {append['seq']} started "
                         f"{start_late / 1000:g} ms after its deadline")
        if end_late > TOLERANCE_US:
            verdict.fail("input_pacing", f"packet {append['seq']} completed "
                         f"{end_late / 1000:g} ms after its deadline")
    if len(appends) < expected_packets:
        verdict.fail("input_pacing", f"{len(appends)} of {expected_packets} packets were sent")
    verdict.pacing = {"packets": len(appends), "expected_packets": expected_packets,
                      "max_start_late_s": worst_start / 1e6, "max_end_late_s": worst_end / 1e6}


def check_window(faults: Sequence[Mapping[str, Any]], duration_s: float,
                 verdict: Verdict) -> None:
    """A fault at or before T makes the window unusable; a later one is a diagnostic."""
    t_us = to_us(duration_s)
    for fault in faults:
        if to_us(float(fault["t_s"])) <= t_us:
            verdict.fail("window_error", f"fault at {fault['t_s']:g} s (T = {duration_s:g} s): "
                         f"{fault['reason']}")
        else:
            verdict.faults_after_t.append({"t_s": fault["t_s"], "reason": fault["reason"]})


def check_rate(declared: Any, audio_rates: Sequence[Any], verdict: Verdict) -> None:
    """The output rate is declared (a positive integer) and every chunk has it."""
    if not isinstance(declared, int) or isinstance(declared, bool) or declared <= 0:
        verdict.fail("output_rate", f"no declared output rate (got {declared!r})")
        return
    changed = sorted({r for r in audio_rates if r is not None and r != declared})
    if changed:
        verdict.fail("output_rate", f"audio at {', '.join(map(str, changed))} Hz in a "
                     f"session declared at {declared} Hz")


def check_dataset(recorded: Mapping[str, str], current: Mapping[str, str],
                  verdict: Verdict) -> None:
    """The sample's dataset files hash as they did when the run recorded them."""
    changed = sorted(name for name in set(recorded) | set(current)
                     if recorded.get(name) != current.get(name))
    if changed:
        verdict.fail("dataset_hash_mismatch", "dataset file(s) differ from the run's: "
                     + ", ".join(changed))
