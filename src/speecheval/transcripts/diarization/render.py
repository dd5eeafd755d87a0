"""Diarization results as JSON-ready dicts (seconds, fractions) and a plain-text table.

The JSON keys name the quantities (``der``, ``missed``, ``false_alarm``, ``confusion``,
``scored``); rates are fractions, times are seconds, a rate with an empty denominator is
``null``. The table is for people and shows percentages.
"""

from __future__ import annotations

from typing import Any

from ...core.timebase import from_us
from ...report.numbers import fixed, percent
from ...report.table import Align, Table, to_text
from .result import (
    DerComponents,
    DiarizationScore,
    DiarizationUnsupported,
    JerComponents,
    TurnCounts,
)
from .score import total as total_score
from .settings import collar_phrase

COLLAR_DEFINITION = ("no-score collar of +-collar seconds around every reference turn "
                     "boundary (md-eval -c); pyannote.metrics' collar is the total width, "
                     "2 x collar")
JER_DEFINITION = ("dscore: mean over reference speakers of 1 - |ref & sys| / |ref | sys| "
                  "with a Hungarian pairing minimising that error; unpaired reference "
                  "speakers count 1, unpaired system speakers are not penalised; over the "
                  "whole UEM, no collar, overlap included (as dscore scores it)")
JER_COLLARED_DEFINITION = ("jer_collared (speecheval only): the same Jaccard error over the "
                           "DER's scoring region, i.e. the UEM minus the collars (and minus "
                           "reference overlap with --exclude-overlap)")
COMPAT_DEFINITIONS = {
    "speecheval": "speecheval: a speaker's self-overlapping turns merged, overlap = two or "
                  "more distinct speakers, no collar at UEM edges, continuous time",
    "md-eval": "md-eval-22: turns as read (collars on every record's boundaries, -1 counts "
               "a speaker overlapping itself as overlap, its -1 defect included); JER as "
               "speecheval (md-eval has none)",
    "dscore": "dscore: turns cut at the UEM edges, merged, written with 3 decimals and "
              "scored by md-eval-22; JER on 10 ms frames",
}

_ALIGN: list[Align] = ["left", "right", "right", "right", "right", "right", "right", "right"]
"""File ids left, whatever they look like; numbers right."""


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
    """One file or a total; the top-level DER (and ``jer_collared``) is overlap-excluded
    when asked; ``jer`` is dscore's in every case."""
    headline = score.overlap_excluded if exclude_overlap else score.overlap_included
    collared: JerComponents = (score.jer_collared_overlap_excluded if exclude_overlap
                               else score.jer_collared)
    count = score.speaker_count
    return {
        **der_dict(headline),
        "regions": "exclude_overlap" if exclude_overlap else "all",
        "jer": score.jer.jer,
        "jer_reference_speakers": score.jer.speakers,
        "jer_collared": collared.jer,
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
    """Total over files plus per file, with the settings that produced them: ``collar``
    in seconds on each side of a reference boundary, stated in words beside it
    (``collar_plus_minus``, with pyannote.metrics' total width)."""
    total = total_score(files)
    return {
        "status": "scored",
        "track": total.track,
        "compat": total.compat,
        "compat_definition": COMPAT_DEFINITIONS[total.compat],
        "collar": total.collar,
        "collar_plus_minus": collar_phrase(total.collar),
        "collar_definition": COLLAR_DEFINITION,
        "mapping_region": total.mapping_region,
        "jer_definition": JER_DEFINITION,
        "jer_collared_definition": JER_COLLARED_DEFINITION,
        "uem": uem_source,
        **score_dict(total, exclude_overlap=exclude_overlap),
        "differences": total.differences.report_dict(),
        "speaker_mapping": [{"file": f, "reference": r, "system": s}
                            for f, r, s in total.mapping],
        "files": {key: {**score_dict(value, exclude_overlap=exclude_overlap),
                        "differences": value.differences.report_dict()}
                  for key, value in files.items()},
    }


def unsupported_dict(result: DiarizationUnsupported, *, uem_source: str) -> dict[str, Any]:
    """An unsupported system: every rate is ``null`` and the reason is given."""
    return {"status": result.status, "reason": result.reason, "uem": uem_source,
            "der": None, "jer": None, "files": list(result.file_ids)}


def table(files: dict[str, DiarizationScore], *, exclude_overlap: bool, title: str) -> str:
    """Per-file rows and a TOTAL row of scored/missed/FA/confusion seconds, DER and JER.

    Columns are as wide as their widest cell (:func:`speecheval.report.table.to_text`),
    so long file ids and 7-digit times stay aligned. JER is dscore's (no collar).
    """
    total = total_score(files)
    header = ("file", "scored_s", "missed_s", "fa_s", "conf_s", "DER", "JER", "spk ref/sys")
    cells = []
    for key, score in [*files.items(), ("TOTAL", total)]:
        headline = score.overlap_excluded if exclude_overlap else score.overlap_included
        count = score.speaker_count
        cells.append((key, fixed(headline.scored), fixed(headline.missed),
                      fixed(headline.false_alarm), fixed(headline.confusion),
                      percent(headline.der), percent(score.jer.jer),
                      f"{count.ref_speakers}/{count.hyp_speakers}"))
    rows = [title, to_text(Table.of(header, cells, align=_ALIGN)).rstrip()]
    rows.append(f"overlap excluded DER {percent(total.overlap_excluded.der)}, "
                f"overlap-only DER {percent(total.overlap_only.der)}, "
                f"speaker count accuracy {percent(total.speaker_count.accuracy)}, "
                f"mean |count error| {fixed(total.speaker_count.mean_abs_error, 2)}")
    collared = total.jer_collared_overlap_excluded if exclude_overlap else total.jer_collared
    rows.append(f"JER is dscore's (no collar); jer_collared {percent(collared.jer)}")
    rows.append(f"self-overlap merges: reference {total.ref_turns.merges}, "
                f"system {total.hyp_turns.merges}")
    return "\n".join(rows) + "\n"


def _turns_dict(counts: TurnCounts) -> dict[str, int]:
    return {"turns": counts.turns, "self_overlap_merges": counts.merges,
            "empty_turns_dropped": counts.empty}
