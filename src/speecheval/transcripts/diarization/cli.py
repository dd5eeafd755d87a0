"""``speecheval transcripts der``: one-pair DER/JER like md-eval, over RTTM and UEM.

The scoring region is the ``--uem`` file, else ``[0, audio duration]`` from
``--duration`` (one value for every file, or ``FILE=SECONDS`` per file), else, when the
duration is unknown, ``[0, last turn end in reference or hypothesis]``; the output names
which. Turns that run past the region's end are cut there and counted
(``clipped_turns``). Bad input (a malformed line, a file without a
UEM region, a file id that only one of REF and HYP names) is an
:class:`~speecheval.core.errors.InputError`: exit 2, nothing printed to stdout.
``--partial`` scores the file ids both name instead (:mod:`..id_match`).
"""

from __future__ import annotations

from pathlib import Path

import click

from ...core.decimal_seconds import parse_seconds
from ...core.errors import InputError
from ...core.log import get_logger
from .. import api
from ..id_match import match_ids, partial_option, warn_left_out
from .settings import COMPAT_MODES, LATTIFAI_COLLAR_S, MAIN_COLLAR_S, Compat, collar_phrase

_log = get_logger(__name__)

DEFAULT_UEM_SOURCES: dict[Compat, str] = {
    "speecheval": "default: [0, last turn end over reference and hypothesis] per file "
                  "(audio duration unknown: give --duration or --uem)",
    "md-eval": "default (md-eval): [first reference turn start, last reference turn end] "
               "per file",
    "dscore": "default (dscore): [first turn start, last turn end over reference and "
              "hypothesis] per file",
}

_FILE = click.Path(exists=True, dir_okay=False, path_type=Path)


def collar_seconds(text: str) -> float:
    """The ``--collar`` value: a plain decimal number of seconds, at least 0.

    Refused here, in one line naming the option, rather than as a traceback when the
    time base meets ``nan`` or ``inf`` (click's float type reads ``nan``, ``inf`` and
    ``1e400``).

    >>> collar_seconds("0.25")
    0.25
    >>> collar_seconds("inf")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    speecheval.core.errors.InputError: --collar: not a number of seconds: 'inf' (plain ...)
    """
    try:
        value = parse_seconds(text)
    except ValueError as exc:
        raise InputError(f"--collar: {exc}") from None
    if value < 0:
        raise InputError(f"--collar: must be 0 or more seconds, got {text}")
    return value


@click.command("der")
@click.option("--ref", "ref_path", type=_FILE, required=True, help="Reference RTTM.")
@click.option("--hyp", "hyp_path", type=_FILE, required=True, help="System RTTM.")
@click.option("--uem", "uem_path", type=_FILE, default=None,
              help="Scoring regions; every file of REF and HYP needs one. Default: "
                   "[0, --duration], else [0, last turn end over REF and HYP] per file "
                   "(with --compat, that tool's default).")
@click.option("--duration", "durations", multiple=True, metavar="SECONDS|FILE=SECONDS",
              help="Audio duration: scoring region [0, SECONDS] for every file, or per file "
                   "with FILE=SECONDS (repeat the option). Not with --uem.")
@click.option("--collar", callback=lambda _ctx, _param, value: collar_seconds(value),
              default=str(MAIN_COLLAR_S), show_default=True, metavar="SECONDS",
              help="No-score collar: +-SECONDS around each reference boundary (md-eval "
                   "-c SECONDS; pyannote.metrics writes it collar=2*SECONDS, so the "
                   "default is its collar=0.5).")
@click.option("--exclude-overlap", is_flag=True,
              help="Headline DER (and jer_collared) without reference overlap regions "
                   "(md-eval -1); silence is still scored. Both variants are always in "
                   "--json. JER is dscore's either way.")
@click.option("--compat", type=click.Choice(COMPAT_MODES), default="speecheval",
              show_default=True,
              help="Whose definition to score: speecheval's, or md-eval-22's / dscore's "
                   "reproduced exactly (docs/transcripts-diarization.md).")
@click.option("--lattifai-parity", is_flag=True,
              help="Also report the LattifAI parity track (collar +-0.1 s, LattifAI's "
                   "pyannote.metrics collar=0.2) in its own table.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@partial_option
def der(ref_path: Path, hyp_path: Path, uem_path: Path | None, durations: tuple[str, ...],
        collar: float, exclude_overlap: bool, compat: Compat, lattifai_parity: bool,
        as_json: bool, partial: bool) -> None:
    """DER, JER, overlap-only DER and speaker count error of HYP against REF.

    A warning on stderr names every input that makes speecheval's, md-eval-22's and
    dscore's definitions differ here, with counts and seconds.
    """
    # here, not at the top: --help needs none of the scorer (and jinja2 is slow to import)
    from ...core.canonical_json import dumps
    from ...core.malloc_arena import keep_freed_memory, share_one_arena
    from ..formats.rttm import RTTM
    from ..formats.uem import UEM
    from .render import report_dict, table, unsupported_dict
    from .result import DiarizationUnsupported
    from .score import default_uem, score_lattifai_parity, total
    from .scoring_region import clipped_turns, parse_durations

    if uem_path is not None and durations:
        raise InputError("give either --uem or --duration, not both")
    share_one_arena()  # before the reading threads: files are read and scored in threads
    keep_freed_memory()  # arrays freed and made again: no page faults for each
    ref, hyp = RTTM.load(ref_path), RTTM.load(hyp_path)
    match = match_ids("file", ref.file_ids(), hyp.file_ids(), partial=partial,
                      reference_path=ref_path, hypothesis_path=hyp_path)
    left_out = {*match.missing_in_hypothesis, *match.missing_in_reference}
    if left_out:
        warn_left_out(match)
        ref, hyp = ref.without_files(left_out), hyp.without_files(left_out)
    if uem_path is not None:
        uem, uem_source = UEM.load(uem_path), str(uem_path)
    elif durations:
        given = parse_durations(durations)
        uem, uem_source = given.uem(ref, hyp), given.describe()
    else:
        uem, uem_source = default_uem(ref, hyp, compat), DEFAULT_UEM_SOURCES[compat]
    uem = uem.without_files(left_out)  # a region given for a file left out scores nothing
    clipped = {"reference": clipped_turns(ref, uem), "system": clipped_turns(hyp, uem)}
    main = api.der_by_file(ref, hyp, collar=collar, uem=uem, compat=compat)
    parity = score_lattifai_parity(ref, hyp, uem) if lattifai_parity else None
    if isinstance(main, DiarizationUnsupported):
        if as_json:
            click.echo(dumps({**unsupported_dict(main, uem_source=uem_source),
                              "clipped_turns": clipped,
                              **({"partial": match.report_dict()} if partial else {})}),
                       nl=False)
        else:
            click.echo(f"unsupported: {main.reason} (no DER, JER or speaker count)")
            if partial:
                click.echo(match.partial_line())
        return
    assert parity is None or not isinstance(parity, DiarizationUnsupported)
    for warning in total(main).differences.warnings(compat, collar):
        _log.warning("warning: %s", warning)
    if as_json:
        payload = report_dict(main, exclude_overlap=exclude_overlap, uem_source=uem_source)
        payload["clipped_turns"] = clipped
        if parity is not None:
            payload["lattifai_parity"] = report_dict(parity, exclude_overlap=exclude_overlap,
                                                     uem_source=uem_source)
        if partial:
            payload["partial"] = match.report_dict()
        click.echo(dumps(payload), nl=False)
        return
    region = "overlap excluded" if exclude_overlap else "overlap included"
    click.echo(table(main, exclude_overlap=exclude_overlap,
                     title=f"DER main protocol ({compat} definition): collar "
                           f"{collar_phrase(collar)}, {region}; UEM {uem_source}"), nl=False)
    click.echo(f"turns cut at the scoring region end: reference "
               f"{clipped['reference']['turns']} ({clipped['reference']['seconds']:g} s), "
               f"system {clipped['system']['turns']} ({clipped['system']['seconds']:g} s)")
    if parity is not None:
        click.echo("")
        click.echo(table(parity, exclude_overlap=exclude_overlap,
                         title=f"LattifAI parity track (separate): collar "
                               f"{collar_phrase(LATTIFAI_COLLAR_S)}, {region}"), nl=False)
    if partial:
        click.echo(match.partial_line())
