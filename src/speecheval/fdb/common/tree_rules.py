"""The rules of a tree's ``manifest.json`` and ``asr.json``, written once in plain Python.

Why a module of its own: two readers apply them. ``tree_schema`` (pydantic) calls each
rule from its validators and words a broken one with the file, key and line;
``tree_fast`` calls the same rules on the parsed file so that a well-formed tree is read
without importing pydantic. Each rule returns the problem in the words the schema shows,
or None when it holds, so the two readers cannot drift apart: a rule changes here, for
both. The keys a sample may carry are listed here too (``tree_schema.SampleEntry``
declares them with their types; a test compares the two).
"""

from __future__ import annotations

from ...core.timebase import to_us
from .tree import ANNOTATION_FILES, OUTPUT_WAV, SCHEMA_VERSION, SILERO_WINDOW_S, SUBSET_TASKS

SAMPLE_KEYS = frozenset({"sample_id", "subset", "task", "input_duration_s", "eligible",
                         "reasons", "files"})
"""The keys every sample of ``manifest.json`` has."""
TRACE_RECORDS = ("capture", "playout", "pacing")
TRACE_LISTS = ("eligibility_details", "faults_after_t")
"""What ``reference-export`` adds for a reader to trace a sample back to its capture
(docs/fdb10-capture.md): optional records and lists that scoring never reads, named so
that a misspelt scoring key is still refused."""

_MIN_DURATION_US = to_us(SILERO_WINDOW_S)


def kind_problem(kind: str, expected: str) -> str | None:
    if kind != expected:
        return f"kind must be {expected!r}, found {kind!r}"
    return None


def version_problem(value: int) -> str | None:
    if value != SCHEMA_VERSION:
        return (f"unsupported schema_version {value!r} "
                f"(this speecheval reads {SCHEMA_VERSION})")
    return None


def declared_problem(declared: dict[str, int]) -> str | None:
    """``dataset.declared``: only subsets of v1.0, none with a negative size."""
    for subset, size in declared.items():
        if subset not in SUBSET_TASKS:
            return f"names unknown subset {subset!r}"
        if size < 0:
            return f"size of {subset} must be >= 0, got {size}"
    return None


def subset_problem(subset: str) -> str | None:
    if subset not in SUBSET_TASKS:
        return f"unknown subset {subset!r}"
    return None


def duration_problem(duration: float) -> str | None:
    """A sample is at least one Silero window long: a shorter one is a broken manifest."""
    if duration <= 0:
        return f"input_duration_s must be a positive number, found {duration!r}"
    if to_us(duration) < _MIN_DURATION_US:
        return (f"input_duration_s {duration!r} s is shorter than one Silero "
                f"window ({SILERO_WINDOW_S} s = 512 samples at 16 kHz)")
    return None


def sample_problem(sample_id: str, subset: str, task: str, eligible: bool,
                   reasons: tuple[str, ...], files: dict[str, str]) -> str | None:
    """The fields of one sample agree: its id is ``<subset>/<id>``, its task is its
    subset's, an ineligible sample gives reasons and an eligible one none, and an
    eligible sample lists the hash of its output and of its task's annotation."""
    parts = sample_id.split("/")
    if not (len(parts) == 2 and parts[0] == subset and parts[1] not in ("", ".", "..")):
        return f"sample_id must be '{subset}/<id>'"
    expected = SUBSET_TASKS[subset]
    if task != expected:
        return f"task {task!r} does not match subset {subset} ({expected})"
    if not eligible and not reasons:
        return "an ineligible sample must give its reasons"
    if eligible and reasons:
        return "an eligible sample must have no reasons"
    if eligible:
        for name in (OUTPUT_WAV, ANNOTATION_FILES[task]):
            if name is not None and name not in files:
                return f"files has no sha256 for {name}"
    return None
