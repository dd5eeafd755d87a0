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
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ...core.canonical_json import dumps
from ...core.errors import InputError
from .. import api
from ..formats._io import read_text, split_lines
from ..given import load_sessions
from ..id_match import IdMatch, match_ids, partial_option, warn_left_out
from .counts import ErrorCounts
from .tokenize import UNITS, Unit

if TYPE_CHECKING:  # the segment types are for cp, orc and tcp: wer reads plain text
    from ..formats.segment import Segment

_FILE = click.Path(exists=True, dir_okay=False, path_type=Path)
_RATE_NAMES = {"word": "wer", "char": "cer", "mixed": "mer"}


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
    try:
        result = api.cp(ref, hyp, unit=unit, uem=uem_path, normalize=not no_normalize,
                        names=(ref_path, hyp_path))
    except api.UnsupportedHypothesis as exc:
        payload: dict[str, Any] = {"status": "unsupported", rate_key: None,
                                   "reason": exc.problem}
        echo_result(payload if as_json else None,
                    f"unsupported: {payload['reason']} (no {rate_key})", match)
        return
    echo_result({"status": "scored", "unit": unit, "normalized": not no_normalize,
                 "uem": None if uem_path is None else str(uem_path),
                 **result.report_dict(rate_key)} if as_json else None,
                f"{summary_line('cp' + rate_key[2:].upper(), result.counts)} "
                f"missed speakers {result.missed_speakers}, "
                f"false-alarm speakers {result.false_alarm_speakers}", match)


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
    ref, hyp, match = matched_sessions(load_sessions(ref_path), load_sessions(hyp_path),
                                       ref_path, hyp_path, partial)
    result = api.orc(ref, hyp, uem=uem_path, normalize=not no_normalize,
                     names=(ref_path, hyp_path))
    echo_result({"normalized": not no_normalize, "orcwer": result.error_rate,
                 **result.counts.report_dict(),
                 "assignment": list(result.assignment)} if as_json else None,
                summary_line("ORC-WER", result.counts), match)


@click.command("tcp")
@_multi_options
@click.option("--collar", type=click.FloatRange(min=0), required=True,
              help="Seconds each hypothesis word's time point is widened by on both sides "
                   "(meeteval suggests 5).")
def tcp(ref_path: Path, hyp_path: Path, uem_path: Path | None, no_normalize: bool,
        as_json: bool, partial: bool, collar: float) -> None:
    """tcpWER of HYP against REF: cpWER in which only words whose times overlap may pair
    (meeteval's tcpwer); segments need start and end times."""
    ref, hyp, match = matched_sessions(load_sessions(ref_path), load_sessions(hyp_path),
                                       ref_path, hyp_path, partial)
    result = api.tcp(ref, hyp, collar=collar, uem=uem_path, normalize=not no_normalize,
                     names=(ref_path, hyp_path))
    echo_result({"normalized": not no_normalize, "collar_s": collar,
                 **result.report_dict("tcpwer")} if as_json else None,
                f"{summary_line('tcpWER', result.counts)} "
                f"missed speakers {result.missed_speakers}, "
                f"false-alarm speakers {result.false_alarm_speakers}", match)


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
    kept = list(refs) if match.complete else [key for key in refs if match.keeps(key)]
    if not match.complete:
        refs, hyps = {key: refs[key] for key in kept}, {key: hyps[key] for key in kept}
    total = api.wer(refs, hyps, unit=unit)
    name = _RATE_NAMES[unit]
    echo_result({"unit": unit, name: total.error_rate, **total.report_dict(),
                 "utterances": len(kept),
                 "missing_hypotheses": len(match.missing_in_hypothesis)} if as_json else None,
                summary_line(name.upper(), total), match if partial else None)

