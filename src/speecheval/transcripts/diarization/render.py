"""Diarization results as JSON-ready dicts (seconds, fractions) and a plain-text table.

The JSON keys name the quantities (``der``, ``missed``, ``false_alarm``, ``confusion``,
``scored``); rates are fractions, times are seconds, a rate with an empty denominator is
``null``. The table is for people and shows percentages.
"""

from __future__ import annotations

from typing import Any

from ...core.timebase import from_us
from .result import (
    DerComponents,
    DiarizationScore,
    DiarizationUnsupported,
    JerComponents,
    TurnCounts,
)
from .score import total as total_score

COLLAR_DEFINITION = ("no-score collar of +-collar seconds around every reference turn "
                     "boundary (md-eval -c); pyannote.metrics' collar is the total width, "
                     "2 x collar")
JER_DEFINITION = ("dscore: mean over reference speakers of 1 - |ref & sys| / |ref | sys| "
                  "with a Hungarian pairing minimising that error; unpaired reference "
                  "speakers count 1, unpaired system speakers are not penalised")


def der_dict(components: DerComponents) -> dict[str, Any]:
    """DER components in seconds and the rate as a fraction."""
    return {
        "der": components.der,
        "scored": components.scored,
        "missed": components.missed,
        "false_alarm": components.false_alarm,
        "confusion": components.confusion,
        "scored_region": from_us(components.region_us),
    }


def score_dict(score: DiarizationScore, *, exclude_overlap: bool) -> dict[str, Any]:
    """One file or a total; the top-level DER is overlap-excluded when asked."""
    headline = score.overlap_excluded if exclude_overlap else score.overlap_included
    jer: JerComponents = score.jer_overlap_excluded if exclude_overlap else score.jer
    count = score.speaker_count
    return {
        **der_dict(headline),
        "regions": "exclude_overlap" if exclude_overlap else "all",
        "jer": jer.jer,
        "jer_reference_speakers": jer.speakers,
        "overlap_included": der_dict(score.overlap_included),
        "overlap_excluded": der_dict(score.overlap_excluded),
        "overlap_only": der_dict(score.overlap_only),
        "speaker_count": {
            "reference_speakers": count.ref_speakers,
            "system_speakers": count.hyp_speakers,
            "error": count.mean_signed_error,
            "abs_error": count.mean_abs_error,
            "accuracy": count.accuracy,
            "files": count.files,
        },
        "reference_turns": _turns_dict(score.ref_turns),
        "system_turns": _turns_dict(score.hyp_turns),
    }


def report_dict(files: dict[str, DiarizationScore], *, exclude_overlap: bool,
                uem_source: str) -> dict[str, Any]:
    """Total over files plus per file, with the settings that produced them."""
    total = total_score(files)
    return {
        "status": "scored",
        "track": total.track,
        "collar": total.collar,
        "collar_definition": COLLAR_DEFINITION,
        "mapping_region": total.mapping_region,
        "jer_definition": JER_DEFINITION,
        "uem": uem_source,
        **score_dict(total, exclude_overlap=exclude_overlap),
        "speaker_mapping": [{"file": f, "reference": r, "system": s}
                            for f, r, s in total.mapping],
        "files": {key: score_dict(value, exclude_overlap=exclude_overlap)
                  for key, value in files.items()},
    }


def unsupported_dict(result: DiarizationUnsupported, *, uem_source: str) -> dict[str, Any]:
    """An unsupported system: every rate is ``null`` and the reason is given."""
    return {"status": result.status, "reason": result.reason, "uem": uem_source,
            "der": None, "jer": None, "files": list(result.file_ids)}


def table(files: dict[str, DiarizationScore], *, exclude_overlap: bool, title: str) -> str:
    """Per-file rows and a TOTAL row of scored/missed/FA/confusion seconds, DER and JER."""
    total = total_score(files)
    header = (f"{'file':<24} {'scored_s':>10} {'missed_s':>9} {'fa_s':>9} {'conf_s':>9} "
              f"{'DER':>8} {'JER':>8} {'spk ref/sys':>11}")
    rows = [title, header, "-" * len(header)]
    for key, score in [*files.items(), ("TOTAL", total)]:
        headline = score.overlap_excluded if exclude_overlap else score.overlap_included
        jer = (score.jer_overlap_excluded if exclude_overlap else score.jer).jer
        count = score.speaker_count
        rows.append(f"{key:<24} {headline.scored:>10.3f} {headline.missed:>9.3f} "
                    f"{headline.false_alarm:>9.3f} {headline.confusion:>9.3f} "
                    f"{_percent(headline.der):>8} {_percent(jer):>8} "
                    f"{f'{count.ref_speakers}/{count.hyp_speakers}':>11}")
    rows.append(f"overlap excluded DER {_percent(total.overlap_excluded.der)}, "
                f"overlap-only DER {_percent(total.overlap_only.der)}, "
                f"speaker count accuracy {_percent(total.speaker_count.accuracy)}, "
                f"mean |count error| {_number(total.speaker_count.mean_abs_error)}")
    rows.append(f"self-overlap merges: reference {total.ref_turns.merges}, "
                f"system {total.hyp_turns.merges}")
    return "\n".join(rows) + "\n"


def _turns_dict(counts: TurnCounts) -> dict[str, int]:
    return {"turns": counts.turns, "self_overlap_merges": counts.merges,
            "empty_turns_dropped": counts.empty}


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.2f}%"


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"
