"""The session each file of a sample names, checked against its reference's before scoring.

A sample's files are scored under the sample's id (:mod:`.inputs`), whatever session
they name, so a system file that names another session than its reference (another
recording's output filed under this sample, or a renamed one) would be scored without a
word. Every file in a format that names its session (STM, SegLST, CTM, RTTM) is checked
here against the sessions the sample's reference files name (:mod:`..id_match`, as the
one-pair commands check theirs); a file of a format without session names (SRT, WebVTT,
TextGrid, raw output), or without any segment, names nothing and is not compared.

Without ``--partial`` a mismatch is an :class:`InputError` naming the sample, the file and
the ids missing on each side; with it the sample is left out of the scoring, before
anything (the system's support for speakers and timestamps included) is decided, so the
result is that of the manifest without those samples.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...core.errors import InputError
from .. import formats
from ..formats.document import SessionTaggedDocument
from ..formats.rttm import RTTM
from ..id_match import PARTIAL_PREFIX, IdMatch, refusal
from .manifest import Manifest, SampleSpec


@dataclass(frozen=True)
class LeftOut:
    """A sample ``--partial`` left out: the first system file whose sessions differ."""

    sample_id: str
    path: Path
    match: IdMatch

    def line(self, base: Path) -> str:
        """One line for the console, stderr and the report."""
        return (f"{PARTIAL_PREFIX}left out sample {self.sample_id}: "
                f"{_relative(self.path, base)}: {self.match.describe()}")

    def report_dict(self, base: Path) -> dict[str, Any]:
        return {"sample_id": self.sample_id, "file": _relative(self.path, base),
                "missing_in_hypothesis": list(self.match.missing_in_hypothesis),
                "missing_in_reference": list(self.match.missing_in_reference)}


class _Unreadable(Exception):
    """A file that cannot be read: its sample's scoring reports it, in sample order."""


def matched_samples(manifest: Manifest, partial: bool) -> tuple[Manifest, tuple[LeftOut, ...]]:
    """The manifest to score and the samples left out of it.

    Samples are checked in manifest order and the check stops at the first file that
    cannot be read, so that scoring reports that file as the first problem in the
    manifest, as it would without this check.
    """
    left_out: list[LeftOut] = []
    for sample in manifest.samples:
        try:
            found = _first_mismatch(sample)
        except _Unreadable:
            break
        if found is None:
            continue
        path, match, reference = found
        if not partial:
            raise refusal(match, reference, path, sample.id)
        left_out.append(LeftOut(sample.id, path, match))
    if not left_out:
        return manifest, ()
    return _without(manifest, {entry.sample_id for entry in left_out}), tuple(left_out)


def _first_mismatch(sample: SampleSpec) -> tuple[Path, IdMatch, Path] | None:
    """The first file whose sessions differ from those of the sample's first reference
    file that names one (the other reference files are checked too, then the system's),
    the match and that reference file; None when all agree."""
    ref = sample.reference
    named = list(_named(ref.transcript, ref.words, ref.rttm))
    if not named:
        return None
    first, reference_ids = named[0]
    others = (pair for run in sample.runs for pair in _named(run.transcript, run.words,
                                                             run.rttm))
    for path, ids in itertools.chain(named[1:], others):
        match = IdMatch.of("session", reference_ids, ids)
        if not match.complete:
            return path, match, first
    return None


def _named(transcript: Path | None, words: Path | None, rttm: Path | None
           ) -> Iterator[tuple[Path, frozenset[str]]]:
    """The files among these that name sessions, with the sessions, in scoring order."""
    for path, is_rttm in ((transcript, False), (words, False), (rttm, True)):
        if path is None:
            continue
        ids = _sessions_of(path, is_rttm)
        if ids:
            yield path, ids


def _sessions_of(path: Path, is_rttm: bool) -> frozenset[str]:
    """The sessions (RTTM file ids) ``path`` names; empty for a format without them."""
    try:
        if is_rttm:
            return frozenset(RTTM.load(path).file_ids())
        document = formats.format_of(path)
        if not issubclass(document, SessionTaggedDocument):
            return frozenset()
        return frozenset(s.session_id for s in document.load(path).segments)
    except InputError:
        raise _Unreadable from None


def _without(manifest: Manifest, sample_ids: set[str]) -> Manifest:
    """The manifest without ``sample_ids``; refused when no sample, or no sample of a
    scenario, would be left to score (its tables would be empty)."""
    kept = tuple(s for s in manifest.samples if s.id not in sample_ids)
    emptied = sorted({s.scenario for s in manifest.samples} - {s.scenario for s in kept})
    if emptied:
        raise InputError(f"--partial would leave no sample of scenario {emptied[0]!r} to "
                         f"score (left out: {', '.join(sorted(sample_ids))})",
                         path=manifest.path)
    return manifest.model_copy(update={"samples": kept})


def _relative(path: Path, base: Path) -> str:
    """``path`` as the manifest names it (relative to its folder when inside it)."""
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return str(path)
