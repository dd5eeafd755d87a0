"""What the system declares and what the data audit holds, in the tables for people.

The Markdown and HTML tables name the diarization table's track (speaker labels from
the system's own decoding, or from an external diarizer: never ranked together) and the
timestamps' provenance (native, or ``supported_via_forced_aligner``) in their titles,
count the runs whose timestamps are ``out_of_official_input_range``, and list each
scenario's data audit (:mod:`.audit`). Nothing is added for a system that declares
nothing and samples without audit keys, so those reports keep their bytes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .declarations import OUT_OF_RANGE, Declared
from .measures.timestamps import Timestamps
from .table_entries import TimestampsEntry
from .tables import Tables

SPEAKER_LABELS = {
    "joint": " [speaker labels: joint, from the system's own decoding]",
    "external": " [speaker labels: external diarizer, a track of its own, never ranked "
                "with joint systems]",
}


def diarization_title(declared: Declared) -> str:
    """What the diarization table's title adds: the declared track, if any."""
    return SPEAKER_LABELS.get(declared.speaker_labels or "", "")


def timestamps_title(declared: Declared, supported: bool) -> str:
    """What the timestamps table's title adds: the declared provenance, if any."""
    if declared.timestamp_source is None:
        return ""
    return f" [timestamps: {declared.timestamp_support(supported)}]"


def timestamps_note(tables: Tables) -> str:
    """What the timestamps table's note adds when an official input range is declared:
    how many runs it left out."""
    limit = tables.system_support.declared.timestamp_max_input_s
    if limit is None:
        return ""
    entries = [t.entry(Timestamps.name, TimestampsEntry) for t in tables.scenarios.values()]
    count = sum(e.out_of_official_input_range for e in entries if e is not None)
    return (f" Samples longer than the timestamp provider's official input range "
            f"({limit:g} s) are {OUT_OF_RANGE}: {count} runs left out, not ranked.")


def audit_table(tables: Tables) -> tuple[str, str, Sequence[str], Sequence[Sequence[str]]]:
    """Title, note, header and rows of the data-audit table (one row per scenario)."""
    rows = [(name, "synthetic" if audit.synthetic else "real",
             _listed(audit.reference_types), _listed(audit.licenses),
             _listed(audit.data_revisions))
            for name, audit in tables.audit.items()]
    return ("Data audit",
            "Per scenario, what its samples declare (sample counts); synthetic samples are "
            "scored in scenarios of their own, named '<scenario> (synthetic)', never pooled "
            "with real recordings.",
            ("scenario", "data", "reference types", "licences", "data revisions"), rows)


def _listed(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{value} ({n})" for value, n in counts.items())
