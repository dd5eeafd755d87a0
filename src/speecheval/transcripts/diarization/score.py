"""Score a diarization hypothesis against a reference, file by file, over an explicit UEM.

The main protocol (spec §diarization): collar ±0.25 s around every reference boundary
(pyannote.metrics would call this ``collar=0.5``), overlapping speech included, the
overlap-excluded variant in md-eval's ``-1`` sense and overlap-only DER reported beside
it with the same speaker mapping, JER as dscore defines it (no collar), and the speaker
count error. ``compat="md-eval"`` and ``compat="dscore"`` reproduce those tools instead
(:mod:`.compat`).
The LattifAI parity track (:func:`score_lattifai_parity`) uses LattifAI's collar,
pyannote's total width 0.2 s, i.e. ±0.1 s, and pyannote's mapping region; its results
carry ``track="lattifai_parity"`` and cannot be added to main-track results.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...core.errors import InputError
from ...core.timebase import from_us, to_us
from ...core.timeline import Spans
from ..formats.rttm import RTTM, RttmColumns, RttmTurn
from ..formats.rttm_fields import NA
from ..formats.uem import UEM
from .compat import file_view
from .metrics import der_components, jer_components, optimal_mapping, speakers_present
from .result import (
    Compat,
    DiarizationScore,
    DiarizationUnsupported,
    MappingRegion,
    SpeakerCount,
    Track,
)
from .settings import LATTIFAI_COLLAR_S as LATTIFAI_COLLAR_S  # re-exported, as MAIN_COLLAR_S
from .settings import MAIN_COLLAR_S as MAIN_COLLAR_S  # re-exported: long imported from here
from .turns import turn_spans

NO_SPEAKERS = "the system gives no speaker attribution"

FileScores = dict[str, DiarizationScore]


def default_uem(ref: RTTM, hyp: RTTM | None, compat: Compat = "speecheval") -> UEM:
    """The scoring region when no UEM is given and the audio duration is unknown.

    speecheval: ``[0, last turn end over reference and hypothesis]`` for every file in
    either, so everything either side annotated is scored from the start of the
    recording. md-eval: the extent of the file's reference turns (a file with system
    turns only gets their extent, and md-eval does not score it). dscore: the extent of
    the turns of both.

    >>> ref = RTTM.parse("SPEAKER a 1 2 3 <NA> <NA> A <NA> <NA>")
    >>> hyp = RTTM.parse("SPEAKER a 1 1 7 <NA> <NA> X <NA> <NA>")
    >>> [default_uem(ref, hyp, c).regions("a") for c in ("speecheval", "md-eval", "dscore")]
    [((0.0, 8.0),), ((2.0, 5.0),), ((1.0, 8.0),)]
    """
    sides = [ref.columns] if hyp is None else [ref.columns, hyp.columns]
    ref_files = set(ref.file_ids())
    extents: dict[str, tuple[int, int]] = {}
    for side, columns in enumerate(sides):
        for file_id, (low, high) in _file_extents(columns).items():
            if side == 1 and compat == "md-eval" and file_id in ref_files:
                continue
            known = extents.get(file_id, (low, high))
            extents[file_id] = (min(known[0], low), max(known[1], high))
    regions: dict[str, tuple[tuple[float, float], ...]] = {
        key: ((0.0 if compat == "speecheval" else from_us(low), from_us(high)),)
        for key, (low, high) in extents.items()}
    return UEM.from_regions(regions)


def _file_extents(columns: RttmColumns) -> dict[str, tuple[int, int]]:
    """``(first start, last end)`` in µs of each file's turns."""
    count = len(columns.file_names)
    present = np.bincount(columns.files, minlength=count) > 0
    low = np.full(count, np.iinfo(np.int64).max)
    high = np.full(count, np.iinfo(np.int64).min)
    np.minimum.at(low, columns.files, columns.starts)
    np.maximum.at(high, columns.files, columns.ends)
    return {columns.file_names[i]: (int(low[i]), int(high[i]))
            for i in np.flatnonzero(present).tolist()}


def score_files(ref: RTTM, hyp: RTTM | None, uem: UEM, *, collar_s: float = MAIN_COLLAR_S,
                track: Track = "main", mapping_region: MappingRegion = "uem",
                compat: Compat = "speecheval") -> FileScores | DiarizationUnsupported:
    """Score every file of ``uem``; ``sum(result.values())`` is the corpus total.

    ``hyp`` is ``None`` (or has only ``<NA>`` speakers) for a system without speaker
    attribution: the result is :class:`DiarizationUnsupported`, never a DER of 0.
    Every file in ``ref`` or ``hyp`` must have a UEM region, so no annotated speech is
    silently left out of the denominator. ``compat`` picks whose definition is scored
    (:mod:`.compat`); input those tools would read differently is refused first.
    """
    if collar_s < 0:
        raise InputError(f"collar must be non-negative, got {collar_s}")
    file_ids = uem.file_ids()
    if not file_ids:
        raise InputError("the UEM names no file, so nothing can be scored", path=uem.path)
    _check_labels(ref, role="reference")
    unsupported = _unsupported_reason(hyp)
    if hyp is None or unsupported is not None:
        return DiarizationUnsupported(file_ids=file_ids, reason=unsupported or NO_SPEAKERS)
    _check_covered(ref, uem)
    _check_covered(hyp, uem)
    if compat != "speecheval":
        check_compat_input(compat, ref, hyp, uem)
    ref_files, hyp_files = ref.columns.spans_by_file(), hyp.columns.spans_by_file()
    return {
        file_id: score_file(file_id, ref_files.get(file_id, Spans.empty()),
                            hyp_files.get(file_id, Spans.empty()), uem.regions(file_id),
                            collar_s=collar_s, track=track, mapping_region=mapping_region,
                            compat=compat)
        for file_id in file_ids
    }


def check_compat_input(compat: Compat, ref: RTTM, hyp: RTTM, uem: UEM) -> None:
    """Refuse input that md-eval or dscore would read in a way not reproduced here, or
    would not read at all (the message names the file and the line)."""
    tool = "md-eval-22" if compat == "md-eval" else "dscore"
    for rttm in (ref, hyp):
        if rttm.other_records:
            line, kind = rttm.other_records[0]
            raise InputError(f"line {line}: --compat {compat}: {kind} records are not "
                             f"reproduced ({tool} reads them as no-score zones or as turns); "
                             "keep only SPEAKER (and SPKR-INFO) records", path=rttm.path)
        columns = rttm.columns
        empty = np.flatnonzero(columns.ends == columns.starts)
        if compat == "dscore" and empty.size:
            raise InputError(f"line {columns.line(int(empty[0]))}: --compat dscore: "
                             "zero-length turn, which dscore refuses to load", path=rttm.path)
    for segment in uem.segments:
        where = "" if segment.line is None else f"line {segment.line}: "
        if segment.end <= segment.start:
            raise InputError(f"{where}--compat {compat}: empty region of file "
                             f"{segment.file_id!r}, which {tool} refuses", path=uem.path)
        user_uem = uem.path is not None or compat == "dscore"  # md-eval/dscore parse it
        if user_uem and ("." in segment.file_id or "/" in segment.file_id):
            raise InputError(f"{where}--compat {compat}: file id {segment.file_id!r} holds "
                             f"'.' or '/', which {tool} strips from UEM file ids",
                             path=uem.path)


def total(files: FileScores) -> DiarizationScore:
    """The corpus total of per-file scores (at least one file)."""
    scores = list(files.values())
    if not scores:
        raise ValueError("no file scores to add up")
    return sum(scores[1:], scores[0])


def score_lattifai_parity(ref: RTTM, hyp: RTTM | None,
                          uem: UEM) -> FileScores | DiarizationUnsupported:
    """The LattifAI parity track: ±0.1 s collar, mapping over the UEM minus collars."""
    return score_files(ref, hyp, uem, collar_s=LATTIFAI_COLLAR_S, track="lattifai_parity",
                       mapping_region="uem_minus_collar")


def score_file(file_id: str, ref_turns: Spans | Sequence[RttmTurn],
               hyp_turns: Spans | Sequence[RttmTurn], regions: Sequence[tuple[float, float]],
               *, collar_s: float, track: Track, mapping_region: MappingRegion,
               compat: Compat = "speecheval") -> DiarizationScore:
    """All diarization quantities of one file over its UEM ``regions``; the turns are the
    file's, as read (spans labelled by speaker, or turn objects)."""
    collar_us = to_us(collar_s)
    view = file_view(compat, file_id, _as_spans(ref_turns), _as_spans(hyp_turns), regions,
                     collar_us)
    mapping_totals = view.uem if mapping_region == "uem" else view.scored
    pairs = optimal_mapping(mapping_totals.cooccurrence)
    n_ref = speakers_present(view.uem.ref_time)
    n_hyp = speakers_present(view.uem.hyp_time)
    return DiarizationScore(
        track=track, compat=compat, collar_us=collar_us, mapping_region=mapping_region,
        file_ids=(file_id,),
        overlap_included=der_components(view.scored, pairs),
        overlap_excluded=der_components(view.single, pairs),
        overlap_only=der_components(view.overlap, pairs),
        jer=view.jer,
        jer_collared=jer_components(view.scored),
        jer_collared_overlap_excluded=jer_components(view.single),
        speaker_count=SpeakerCount(files=1, exact_files=int(n_ref == n_hyp),
                                   abs_error_sum=abs(n_hyp - n_ref),
                                   signed_error_sum=n_hyp - n_ref,
                                   ref_speakers=n_ref, hyp_speakers=n_hyp),
        ref_turns=view.ref_counts, hyp_turns=view.hyp_counts,
        mapping=tuple((file_id, view.ref_labels[i], view.hyp_labels[j])
                      for i, j in zip(*pairs, strict=True)),
        differences=view.differences,
    )


def _as_spans(turns: Spans | Sequence[RttmTurn]) -> Spans:
    return turns if isinstance(turns, Spans) else turn_spans(turns)


def _check_labels(rttm: RTTM, role: str) -> None:
    """A reference must name the speaker of every turn."""
    columns = rttm.columns
    unnamed = _first_with_speaker(columns, NA)
    if unnamed is not None:
        file_id = columns.file_names[columns.files[unnamed]]
        raise InputError(f"line {columns.line(unnamed)}: {role} turn in file {file_id!r} has "
                         "no speaker name (<NA>)", path=rttm.path)


def _first_with_speaker(columns: RttmColumns, name: str) -> int | None:
    """Index of the first turn of speaker ``name``, or None."""
    if name not in columns.speaker_names:
        return None
    hits = np.flatnonzero(columns.speakers == columns.speaker_names.index(name))
    return int(hits[0])


def _unsupported_reason(hyp: RTTM | None) -> str | None:
    """Why the system has no speaker attribution, or None; mixed labelling is an error."""
    if hyp is None:
        return NO_SPEAKERS
    if hyp.columns.speaker_names == (NA,):
        return "every system turn has the speaker name <NA> (no speaker attribution)"
    _check_labels(hyp, role="system")
    return None


def _check_covered(rttm: RTTM, uem: UEM) -> None:
    """Every annotated file must have a scoring region."""
    columns = rttm.columns
    covered = set(uem.file_ids())
    missing = np.array([name not in covered for name in columns.file_names], dtype=bool)
    outside = np.flatnonzero(missing[columns.files]) if missing.any() else np.zeros(0)
    if outside.size:
        first = int(outside[0])
        where = f" {uem.path}" if uem.path else ""
        raise InputError(f"line {columns.line(first)}: file "
                         f"{columns.file_names[columns.files[first]]!r} has no scoring region "
                         f"in the UEM{where}", path=rttm.path)
