"""The public functions of :mod:`speecheval.transcripts`, which the ``speecheval
transcripts wer/cp/orc/tcp/der`` commands call too (one path: a command reads its files,
applies ``--partial``, calls the function here and prints the result).

Each function takes file paths, documents already read, or values in memory
(:mod:`.given`), and returns the result type the scorers produce (:meth:`to_dict` for the
lossless form; counts and results add with ``+`` and ``sum()`` into a corpus value).
The scorers are imported when a function is called, so importing the package is cheap.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.errors import InputError
from .diarization.settings import MAIN_COLLAR_S, Compat
from .given import RegionsInput, Side, TranscriptInput, TurnsInput, transcript

if TYPE_CHECKING:
    from .diarization.result import DiarizationScore, DiarizationUnsupported
    from .formats.document import SegmentDocument
    from .formats.rttm import RTTM
    from .formats.segment import Segment
    from .formats.uem import UEM
    from .text.counts import ErrorCounts
    from .text.cp import CpResult
    from .text.orc import OrcResult
    from .text.tokenize import Unit

Names = tuple[object, object]


class UnsupportedHypothesis(InputError):
    """The hypothesis names no speakers, so no speaker-attributed rate exists for it.

    :func:`cp` raises it (an :class:`~speecheval.core.errors.InputError`); the ``cp``
    command reports ``status: unsupported`` instead of a number."""


def load(path: str | Path, session_id: str | None = None
         ) -> SegmentDocument | RTTM | UEM:
    """Read a transcript, diarization or scoring-region file in its format.

    RTTM (``.rttm``) gives an :class:`~.formats.rttm.RTTM`, UEM (``.uem``) a
    :class:`~.formats.uem.UEM`; every transcript format (STM, CTM, SegLST, SRT, WebVTT,
    TextGrid, raw tagged text) gives a document whose ``segments`` the scorers read.
    ``session_id`` names the session of a format without session fields (default: the
    file name without suffix).

    >>> import pathlib, tempfile; path = pathlib.Path(tempfile.mkdtemp(), "talk.stm")
    >>> _ = path.write_text("talk 1 alice 0.0 2.0 hello there\\n")
    >>> load(path).segments[0].speaker, load(path).segments[0].words
    ('alice', 'hello there')
    """
    from . import formats

    suffix = Path(path).suffix.lower()
    if suffix == ".rttm":
        from .formats.rttm import RTTM

        return RTTM.load(path)
    if suffix == ".uem":
        from .formats.uem import UEM

        return UEM.load(path)
    return formats.load(path, session_id)


def wer(refs: str | Sequence[str] | Mapping[str, str],
        hyps: str | Sequence[str] | Mapping[str, str], *, unit: Unit = "word") -> ErrorCounts:
    """Word, character or mixed error counts of the hypotheses against the references.

    WER (``unit="word"``), CER (``"char"``) or MER (``"mixed"``: words and CJK
    characters), summed over utterances (the corpus value), under the main protocol's
    normalisation (NFKC, case folding, punctuation removed).

    ``refs`` and ``hyps`` are one text each, lists paired by position, or dicts paired by
    utterance id; both sides must name the same utterances.

    >>> from speecheval import transcripts
    >>> counts = transcripts.wer(["the cat sat", "hello"], ["the cat sat down", "hello"])
    >>> counts.errors, counts.reference_tokens, counts.error_rate
    (1, 4, 0.25)
    """
    from .given import texts
    from .text.rates import corpus_error_counts
    from .text.tokenize import UNITS

    if unit not in UNITS:
        raise InputError(f"unit must be one of {', '.join(UNITS)}, got {unit!r}")
    ref, hyp = texts(refs, "reference"), texts(hyps, "hypothesis")
    _same_ids("utterance", ref, hyp, "reference", "hypothesis")
    return corpus_error_counts(((ref[key], hyp[key]) for key in ref), unit)


def cp(ref: TranscriptInput, hyp: TranscriptInput, *, unit: Unit = "word",
       uem: str | Path | UEM | None = None, normalize: bool = True,
       names: Names | None = None) -> CpResult:
    """cpWER or cpCER: each speaker's text concatenated, speakers paired for the fewest errors.

    ``unit="word"`` gives cpWER, ``"char"`` cpCER; reference and hypothesis speakers are
    paired by the assignment with the fewest errors, session by session.

    ``uem`` keeps only segments touching a region of their session (meeteval's rule);
    ``normalize=False`` splits on whitespace only (meeteval's tokens). ``names`` are what
    error messages call the two sides (default: the paths, or ``reference`` and
    ``hypothesis``). A hypothesis without speakers raises :class:`UnsupportedHypothesis`.

    >>> ref = [{"session_id": "s", "speaker": "A", "words": "hello there"}]
    >>> hyp = [{"session_id": "s", "speaker": "spk1", "words": "hello their"}]
    >>> cp(ref, hyp).error_rate
    0.5
    """
    from .formats.segment import speakers_all_or_none
    from .text.cp import cp_error_rate

    r, h = _sides(ref, hyp, names)
    if not speakers_all_or_none(r.segments, r.name):
        raise InputError("the reference has no speaker labels; cp scoring needs them",
                         path=r.name)
    if not speakers_all_or_none(h.segments, h.name):
        raise UnsupportedHypothesis("hypothesis has no speaker attribution", path=h.name)
    ref_segments, hyp_segments = _within_uem(r.segments, h.segments, uem)
    return cp_error_rate(ref_segments, hyp_segments, unit, normalise=normalize)


def orc(ref: TranscriptInput, hyp: TranscriptInput, *,
        uem: str | Path | UEM | None = None, normalize: bool = True,
        names: Names | None = None) -> OrcResult:
    """ORC-WER: each reference utterance given to the hypothesis stream that minimises the errors.

    Reference speakers are ignored; each hypothesis speaker is a stream (meeteval's
    orcwer).

    The hypothesis must name speakers (its streams); ``uem``, ``normalize`` and ``names``
    as in :func:`cp`.

    >>> ref = [{"session_id": "s", "words": "hi"}, {"session_id": "s", "words": "bye now"}]
    >>> hyp = [{"session_id": "s", "speaker": "x", "words": "hi"},
    ...        {"session_id": "s", "speaker": "y", "words": "bye now"}]
    >>> result = orc(ref, hyp); result.error_rate, result.assignment
    (0.0, ('x', 'y'))
    """
    from .text.orc import orc_error_rate

    r, h, _ = _multi_speaker(ref, hyp, uem, normalize, names)
    try:
        return orc_error_rate(r.segments, h.segments)
    except ValueError as exc:
        raise InputError(str(exc), path=h.name) from None


def tcp(ref: TranscriptInput, hyp: TranscriptInput, *, collar: float,
        uem: str | Path | UEM | None = None, normalize: bool = True,
        names: Names | None = None) -> CpResult:
    """tcpWER: cpWER in which only words whose times overlap may pair.

    As meeteval's tcpwer: ``collar`` widens each hypothesis word's time by that many
    seconds on both sides (meeteval suggests 5). Every segment needs start and end times.

    >>> ref = [{"session_id": "s", "speaker": "A", "start_time": 0, "end_time": 2,
    ...         "words": "good morning"}]
    >>> hyp = [{**ref[0], "speaker": "B", "start_time": 9, "end_time": 10}]
    >>> tcp(ref, hyp, collar=1).counts.errors
    4
    """
    from .formats.segment import first_untimed
    from .text.tcp import tcp_error_rate

    r, h, ref_named = _multi_speaker(ref, hyp, uem, normalize, names)
    if not ref_named:
        raise InputError("the reference has no speaker labels; tcpWER pairs speakers",
                         path=r.name)
    for side in (r, h):
        untimed = first_untimed(side.segments)
        if untimed is not None:
            raise InputError(f"segment without times in session {untimed.session_id!r}"
                             f"{untimed.entry}: tcpWER needs start and end times",
                             path=side.name)
    try:
        return tcp_error_rate(r.segments, h.segments, collar)
    except ValueError as exc:
        raise InputError(str(exc), path=r.name) from None


def der_by_file(ref: TurnsInput, hyp: TurnsInput, *, collar: float = MAIN_COLLAR_S,
                uem: RegionsInput = None, compat: Compat = "speecheval"
                ) -> dict[str, DiarizationScore] | DiarizationUnsupported:
    """The diarization scores file by file, whose sum is the value of der.

    ``{file_id: score}`` (``sum(scores.values())`` is :func:`der`'s value), or the one
    ``DiarizationUnsupported`` result; the arguments are :func:`der`'s.

    >>> scores = der_by_file([("a", 0, 4, "A"), ("b", 0, 2, "B")],
    ...                      [("a", 0, 4, "x"), ("b", 0, 1, "y")], collar=0)
    >>> {file_id: score.overlap_included.der for file_id, score in scores.items()}
    {'a': 0.0, 'b': 0.5}
    """
    from .diarization.score import default_uem, score_files
    from .given import regions, turns

    if isinstance(collar, bool) or not isinstance(collar, int | float) or not (
            math.isfinite(collar) and collar >= 0):
        raise InputError(f"collar must be 0 or more seconds, got {collar!r}")
    r, h = turns(ref, "reference"), turns(hyp, "hypothesis")
    _same_ids("file", r.file_ids(), h.file_ids(), r.path or "reference",
              h.path or "hypothesis")
    region = regions(uem, r, h)
    return score_files(r, h, default_uem(r, h, compat) if region is None else region,
                       collar_s=float(collar), compat=compat)


def der(ref: TurnsInput, hyp: TurnsInput, *, collar: float = MAIN_COLLAR_S,
        uem: RegionsInput = None, compat: Compat = "speecheval"
        ) -> DiarizationScore | DiarizationUnsupported:
    """DER, JER, overlap-only DER and speaker count error of the hypothesis against the reference.

    ``collar`` is the no-score collar in seconds around each reference boundary
    (md-eval's ``-c``; pyannote.metrics' ``collar`` is twice it). ``uem`` is the scoring
    region; by default ``[0, last turn end over both sides]`` per file. ``compat`` picks
    whose definition is scored: speecheval's, md-eval-22's or dscore's. A hypothesis
    whose speakers are all ``<NA>`` gives ``DiarizationUnsupported``, never a DER of 0.

    >>> score = der([(0, 5, "A"), (5, 10, "B")], [(0, 6, "s1"), (6, 10, "s2")], collar=0)
    >>> score.overlap_included.der, score.jer.jer
    (0.1, 0.1833333333333333)
    """
    from .diarization.result import DiarizationUnsupported
    from .diarization.score import total

    scores = der_by_file(ref, hyp, collar=collar, uem=uem, compat=compat)
    return scores if isinstance(scores, DiarizationUnsupported) else total(scores)


def _sides(ref: TranscriptInput, hyp: TranscriptInput, names: Names | None
           ) -> tuple[Side, Side]:
    """Both sides' segments, refused when they name different sessions."""
    ref_name, hyp_name = (None, None) if names is None else names
    r, h = transcript(ref, "reference", ref_name), transcript(hyp, "hypothesis", hyp_name)
    _same_ids("session", (s.session_id for s in r.segments),
              (s.session_id for s in h.segments), r.name, h.name)
    return r, h


def _same_ids(kind: str, ref_ids: Iterable[str], hyp_ids: Iterable[str], ref_name: object,
              hyp_name: object) -> None:
    """Refuse a pair whose sides name different ids (each side's extra ids named): an id
    on one side only would count as all errors without a word of warning."""
    from .id_match import IdMatch

    match = IdMatch.of(kind, ref_ids, hyp_ids)
    if not match.complete:
        raise InputError(f"{kind} ids differ from those of the {ref_name}: "
                         f"{match.describe()}", path=hyp_name)


def _within_uem(ref: Sequence[Segment], hyp: Sequence[Segment],
                uem: str | Path | UEM | None
                ) -> tuple[Sequence[Segment], Sequence[Segment]]:
    """The segments touching a UEM region of their session (meeteval's rule)."""
    if uem is None:
        return ref, hyp
    from .formats.uem import UEM
    from .text.cp import filter_by_uem

    regions = uem if isinstance(uem, UEM) else UEM.load(uem)
    by_file = {file_id: regions.regions(file_id) for file_id in regions.file_ids()}
    try:
        return tuple(filter_by_uem(ref, by_file)), tuple(filter_by_uem(hyp, by_file))
    except ValueError as exc:
        raise InputError(str(exc), path=regions.path if regions.path is not None else uem
                         ) from None


def _multi_speaker(ref: TranscriptInput, hyp: TranscriptInput,
                   uem: str | Path | UEM | None, normalize: bool,
                   names: Names | None) -> tuple[Side, Side, bool]:
    """Both sides for ORC and tcp, and whether the reference names speakers (ORC ignores
    them, tcp needs them). Each side may not mix segments with and without a speaker
    (the reference checked first, as in :func:`cp`); the hypothesis must name speakers
    (its streams). The UEM is applied after these checks; words are normalised unless
    ``normalize`` is false (then meeteval's whitespace words)."""
    from .formats.segment import speakers_all_or_none
    from .text.tokenized import tokenized_segments

    r, h = _sides(ref, hyp, names)
    ref_named = speakers_all_or_none(r.segments, r.name)
    if h.segments and not speakers_all_or_none(h.segments, h.name):
        raise InputError("the hypothesis has no speaker labels; its speakers are the streams "
                         "ORC-WER and tcpWER need", path=h.name)
    ref_segments, hyp_segments = _within_uem(r.segments, h.segments, uem)
    if normalize:
        ref_segments = tokenized_segments(ref_segments, "word")
        hyp_segments = tokenized_segments(hyp_segments, "word")
    return Side(tuple(ref_segments), r.name), Side(tuple(hyp_segments), h.name), ref_named
