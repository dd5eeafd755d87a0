"""``speecheval transcripts cp``, ``orc``, ``tcp`` and ``wer``: one-pair transcription
scoring, like meeteval's (``cpwer``, ``orcwer``, ``tcpwer``).

Both print a Kaldi-style summary line, or with ``--json`` one canonical JSON object whose
keys name the quantities (rates as fractions). Bad input is an
:class:`~speecheval.core.errors.InputError` (exit 2) and nothing is printed to stdout;
so is a session (utterance) id that only one side names, unless ``--partial`` asks to
score the ids both name (:mod:`..id_match`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from ...core.canonical_json import dumps
from ...core.errors import InputError
from .. import formats
from ..formats._io import read_text, split_lines
from ..formats.document import SessionTaggedDocument
from ..formats.segment import Segment, first_untimed, speakers_all_or_none
from ..formats.uem import UEM
from ..id_match import IdMatch, match_ids, partial_option, warn_left_out
from .counts import ErrorCounts
from .cp import cp_error_rate, filter_by_uem
from .rates import text_error_counts
from .tokenize import UNITS, Unit
from .tokenized import tokenized_segments

_FILE = click.Path(exists=True, dir_okay=False, path_type=Path)
_RATE_NAMES = {"word": "wer", "char": "cer", "mixed": "mer"}


def load_sessions(path: Path) -> tuple[Segment, ...]:
    """Segments of a registered format whose lines name their session (STM, SegLST, CTM):
    cp pairs reference and hypothesis speakers session by session, so a format that takes
    its session from the file name would pair nothing across ``ref`` and ``hyp``."""
    document = formats.format_of(path)
    if not issubclass(document, SessionTaggedDocument):
        raise InputError(f"unknown transcript format for cp: {document.format_name} files "
                         "name no session; expected STM (.stm) or SegLST (.json)", path=path)
    return document.load(path).segments


def matched_sessions(ref: Sequence[Segment], hyp: Sequence[Segment], ref_path: Path,
                     hyp_path: Path, partial: bool
                     ) -> tuple[tuple[Segment, ...], tuple[Segment, ...], IdMatch | None]:
    """Both sides' segments of the sessions both name, and the match when ``partial`` (for
    the output to list what was left out); sessions on one side only are refused unless
    ``partial``. Checked on the files as read, before a UEM can drop a session."""
    match = match_ids("session", (s.session_id for s in ref), (s.session_id for s in hyp),
                      partial=partial, reference_path=ref_path, hypothesis_path=hyp_path)
    if not partial:
        return tuple(ref), tuple(hyp), None
    warn_left_out(match)
    return (tuple(s for s in ref if match.keeps(s.session_id)),
            tuple(s for s in hyp if match.keeps(s.session_id)), match)


def echo_result(payload: dict[str, Any] | None, line: str, match: IdMatch | None) -> None:
    """Print a command's answer: the JSON ``payload`` (with the ``partial`` object under
    ``--partial``) when given, else the summary ``line`` (and the ``--partial`` line)."""
    if payload is not None:
        if match is not None:
            payload = {**payload, "partial": match.report_dict()}
        click.echo(dumps(payload), nl=False)
        return
    click.echo(line)
    if match is not None:
        click.echo(match.partial_line())


def summary_line(name: str, counts: ErrorCounts) -> str:
    """``%WER 12.34 [ 123 / 997, 40 ins, 50 del, 33 sub ]`` (``-`` when undefined).

    >>> summary_line("WER", ErrorCounts(33, 50, 40, 997, 987))
    '%WER 12.34 [ 123 / 997, 40 ins, 50 del, 33 sub ]'
    """
    rate = "-" if counts.error_rate is None else f"{100 * counts.error_rate:.2f}"
    return (f"%{name} {rate} [ {counts.errors} / {counts.reference_tokens}, "
            f"{counts.insertions} ins, {counts.deletions} del, {counts.substitutions} sub ]")


@click.command("cp")
@click.option("--ref", "ref_path", type=_FILE, required=True, help="Reference: STM or SegLST.")
@click.option("--hyp", "hyp_path", type=_FILE, required=True, help="Hypothesis: STM or SegLST.")
@click.option("--unit", type=click.Choice(["word", "char"]), default="word", show_default=True,
              help="word: cpWER; char: cpCER.")
@click.option("--uem", "uem_path", type=_FILE, default=None,
              help="Keep only segments touching a UEM region of their session (meeteval's "
                   "rule: partly inside is inside; sessions without a region kept whole).")
@click.option("--no-normalize", is_flag=True,
              help="Split on whitespace only, without NFKC/case folding/punctuation removal "
                   "(meeteval's tokens; for parity checks, not the main protocol).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@partial_option
def cp(ref_path: Path, hyp_path: Path, unit: Unit, uem_path: Path | None, no_normalize: bool,
       as_json: bool, partial: bool) -> None:
    """cpWER / cpCER of HYP against REF: per-speaker text, optimal speaker assignment."""
    ref, hyp, match = matched_sessions(load_sessions(ref_path), load_sessions(hyp_path),
                                       ref_path, hyp_path, partial)
    rate_key = "cpwer" if unit == "word" else "cpcer"
    if not speakers_all_or_none(ref, ref_path):
        raise InputError("the reference has no speaker labels; cp scoring needs them",
                         path=ref_path)
    if not speakers_all_or_none(hyp, hyp_path):
        payload: dict[str, Any] = {"status": "unsupported", rate_key: None,
                                   "reason": "hypothesis has no speaker attribution"}
        echo_result(payload if as_json else None,
                    f"unsupported: {payload['reason']} (no {rate_key})", match)
        return
    if uem_path is not None:
        ref, hyp = _within_uem(ref, hyp, uem_path)
    result = cp_error_rate(ref, hyp, unit, normalise=not no_normalize)
    echo_result({"status": "scored", "unit": unit, "normalized": not no_normalize,
                 "uem": None if uem_path is None else str(uem_path),
                 **result.report_dict(rate_key)} if as_json else None,
                f"{summary_line('cp' + rate_key[2:].upper(), result.counts)} "
                f"missed speakers {result.missed_speakers}, "
                f"false-alarm speakers {result.false_alarm_speakers}", match)


def _within_uem(ref: Sequence[Segment], hyp: Sequence[Segment], uem_path: Path
                ) -> tuple[tuple[Segment, ...], tuple[Segment, ...]]:
    """The segments touching a UEM region of their session (meeteval's rule)."""
    uem = UEM.load(uem_path)
    regions = {file_id: uem.regions(file_id) for file_id in uem.file_ids()}
    try:
        return tuple(filter_by_uem(ref, regions)), tuple(filter_by_uem(hyp, regions))
    except ValueError as exc:
        raise InputError(str(exc), path=uem_path) from None


@dataclass(frozen=True)
class _MultiSpeakerInput:
    """What ORC and tcp score: both sides' segments, whether the reference names
    speakers, and the ``--partial`` match (None without the flag)."""

    ref: list[Segment]
    hyp: list[Segment]
    ref_named: bool
    match: IdMatch | None


def _multi_speaker_input(ref_path: Path, hyp_path: Path, uem_path: Path | None,
                         no_normalize: bool, partial: bool) -> _MultiSpeakerInput:
    """Both files' segments for ORC/tcp, and whether the reference names speakers (ORC
    ignores them, tcp needs them). The sessions are matched as in ``cp``. Each file may
    not mix segments with and without a speaker (the reference checked first, as ``cp``
    does); the hypothesis must name speakers (its streams). The UEM is applied as in
    ``cp``, after these checks; words normalised unless ``no_normalize`` (then meeteval's
    whitespace words)."""
    ref, hyp, match = matched_sessions(load_sessions(ref_path), load_sessions(hyp_path),
                                       ref_path, hyp_path, partial)
    ref_named = speakers_all_or_none(ref, ref_path)
    if hyp and not speakers_all_or_none(hyp, hyp_path):
        raise InputError("the hypothesis has no speaker labels; its speakers are the streams "
                         "ORC-WER and tcpWER need", path=hyp_path)
    if uem_path is not None:
        ref, hyp = _within_uem(ref, hyp, uem_path)
    if no_normalize:
        return _MultiSpeakerInput(list(ref), list(hyp), ref_named, match)
    return _MultiSpeakerInput(tokenized_segments(ref, "word"), tokenized_segments(hyp, "word"),
                              ref_named, match)


_MULTI_OPTIONS = (
    click.option("--ref", "ref_path", type=_FILE, required=True,
                 help="Reference: STM or SegLST."),
    click.option("--hyp", "hyp_path", type=_FILE, required=True,
                 help="Hypothesis with speakers: STM or SegLST."),
    click.option("--uem", "uem_path", type=_FILE, default=None,
                 help="Keep only segments touching a UEM region of their session (as cp)."),
    click.option("--no-normalize", is_flag=True,
                 help="Split on whitespace only (meeteval's words; for parity checks)."),
    click.option("--json", "as_json", is_flag=True, help="Print one JSON object."),
    partial_option,
)


def _multi_options(command: Any) -> Any:
    for option in reversed(_MULTI_OPTIONS):
        command = option(command)
    return command


@click.command("orc")
@_multi_options
def orc(ref_path: Path, hyp_path: Path, uem_path: Path | None, no_normalize: bool,
        as_json: bool, partial: bool) -> None:
    """ORC-WER of HYP against REF: reference speakers ignored, each reference utterance
    given to the hypothesis stream (speaker) that minimises the errors (meeteval's orcwer)."""
    from .orc import orc_error_rate

    given = _multi_speaker_input(ref_path, hyp_path, uem_path, no_normalize, partial)
    try:
        result = orc_error_rate(given.ref, given.hyp)
    except ValueError as exc:
        raise InputError(str(exc), path=hyp_path) from None
    echo_result({"normalized": not no_normalize, "orcwer": result.error_rate,
                 **result.counts.report_dict(),
                 "assignment": list(result.assignment)} if as_json else None,
                summary_line("ORC-WER", result.counts), given.match)


@click.command("tcp")
@_multi_options
@click.option("--collar", type=click.FloatRange(min=0), required=True,
              help="Seconds each hypothesis word's time point is widened by on both sides "
                   "(meeteval suggests 5).")
def tcp(ref_path: Path, hyp_path: Path, uem_path: Path | None, no_normalize: bool,
        as_json: bool, partial: bool, collar: float) -> None:
    """tcpWER of HYP against REF: cpWER in which only words whose times overlap may pair
    (meeteval's tcpwer); segments need start and end times."""
    from .tcp import tcp_error_rate

    given = _multi_speaker_input(ref_path, hyp_path, uem_path, no_normalize, partial)
    ref, hyp = given.ref, given.hyp
    if not given.ref_named:
        raise InputError("the reference has no speaker labels; tcpWER pairs speakers",
                         path=ref_path)
    for segments, path in ((ref, ref_path), (hyp, hyp_path)):
        untimed = first_untimed(segments)
        if untimed is not None:
            raise InputError(f"segment without times in session {untimed.session_id!r}"
                             f"{untimed.entry}: tcpWER needs start and end times", path=path)
    try:
        result = tcp_error_rate(ref, hyp, collar)
    except ValueError as exc:
        raise InputError(str(exc), path=ref_path) from None
    echo_result({"normalized": not no_normalize, "collar_s": collar,
                 **result.report_dict("tcpwer")} if as_json else None,
                f"{summary_line('tcpWER', result.counts)} "
                f"missed speakers {result.missed_speakers}, "
                f"false-alarm speakers {result.false_alarm_speakers}", given.match)


def _kaldi_text(path: Path) -> dict[str, str]:
    """``<utterance id> <text>`` lines, the id ending at the first space or tab (Kaldi's
    ``text`` files use either); duplicate ids are an error."""
    texts: dict[str, str] = {}
    for number, line in enumerate(split_lines(read_text(path, "text")), start=1):
        if not line.strip():
            continue
        key, *rest = line.split(maxsplit=1)
        text = rest[0] if rest else ""
        if key in texts:
            raise InputError(f"line {number}: duplicate utterance id {key!r}", path=path)
        texts[key] = text
    return texts


@click.command("wer")
@click.option("--ref", "ref_path", type=_FILE, required=True,
              help="Reference text: '<id> <text>' lines (or one text with --whole-file).")
@click.option("--hyp", "hyp_path", type=_FILE, required=True, help="Hypothesis text, same form.")
@click.option("--unit", type=click.Choice(list(UNITS)), default="word", show_default=True,
              help="word: WER; char: CER; mixed: MER (code-switching, not jiwer's mer).")
@click.option("--whole-file", is_flag=True, help="Compare each file as one text, without ids.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@partial_option
def wer(ref_path: Path, hyp_path: Path, unit: Unit, whole_file: bool, as_json: bool,
        partial: bool) -> None:
    """WER / CER / MER of HYP against REF, summed over utterances (corpus value).

    An utterance id on one side only is refused, unless --partial scores the ids both
    name (a system that heard nothing writes the id with no words).
    """
    if whole_file:
        refs = {"": read_text(ref_path, "text")}
        hyps = {"": read_text(hyp_path, "text")}
    else:
        refs, hyps = _kaldi_text(ref_path), _kaldi_text(hyp_path)
    match = match_ids("utterance", refs, hyps, partial=partial, reference_path=ref_path,
                      hypothesis_path=hyp_path)
    if partial:
        warn_left_out(match)
    per_utt = {key: text_error_counts(refs[key], hyps[key], unit)
               for key in refs if match.keeps(key)}
    total = sum(per_utt.values(), ErrorCounts.zero())
    name = _RATE_NAMES[unit]
    echo_result({"unit": unit, name: total.error_rate, **total.report_dict(),
                 "utterances": len(per_utt),
                 "missing_hypotheses": len(match.missing_in_hypothesis)} if as_json else None,
                summary_line(name.upper(), total), match if partial else None)

