"""``speecheval transcripts der``: one-pair DER/JER like md-eval, over RTTM and UEM.

Without ``--uem`` each file is scored over ``[0, last turn end in reference or
hypothesis]`` and the output says so. Bad input (a malformed line, a file without a
UEM region) is an :class:`~speecheval.core.errors.InputError`: exit 2, nothing printed
to stdout.
"""

from __future__ import annotations

from pathlib import Path

import click

from ...core.canonical_json import dumps
from ..formats.rttm import RTTM
from ..formats.uem import UEM
from .render import report_dict, table, unsupported_dict
from .result import DiarizationUnsupported
from .score import MAIN_COLLAR_S, default_uem, score_files, score_lattifai_parity

DEFAULT_UEM_SOURCE = "default: [0, last turn end over reference and hypothesis] per file"

_FILE = click.Path(exists=True, dir_okay=False, path_type=Path)


@click.command("der")
@click.option("--ref", "ref_path", type=_FILE, required=True, help="Reference RTTM.")
@click.option("--hyp", "hyp_path", type=_FILE, required=True, help="System RTTM.")
@click.option("--uem", "uem_path", type=_FILE, default=None,
              help="Scoring regions; every file of REF and HYP needs one. Default: "
                   "[0, last turn end over REF and HYP] per file.")
@click.option("--collar", type=click.FloatRange(min=0.0), default=MAIN_COLLAR_S,
              show_default=True,
              help="No-score collar in seconds, +-COLLAR around each reference boundary "
                   "(md-eval -c; pyannote.metrics calls this collar=2*COLLAR).")
@click.option("--exclude-overlap", is_flag=True,
              help="Headline DER/JER without reference overlap regions (md-eval -1); "
                   "silence is still scored. Both variants are always in --json.")
@click.option("--lattifai-parity", is_flag=True,
              help="Also report the LattifAI parity track (+-0.1 s collar) in its own table.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def der(ref_path: Path, hyp_path: Path, uem_path: Path | None, collar: float,
        exclude_overlap: bool, lattifai_parity: bool, as_json: bool) -> None:
    """DER, JER, overlap-only DER and speaker count error of HYP against REF."""
    ref, hyp = RTTM.load(ref_path), RTTM.load(hyp_path)
    uem = UEM.load(uem_path) if uem_path is not None else default_uem(ref, hyp)
    uem_source = str(uem_path) if uem_path is not None else DEFAULT_UEM_SOURCE
    main = score_files(ref, hyp, uem, collar_s=collar)
    parity = score_lattifai_parity(ref, hyp, uem) if lattifai_parity else None
    if isinstance(main, DiarizationUnsupported):
        if as_json:
            click.echo(dumps(unsupported_dict(main, uem_source=uem_source)), nl=False)
        else:
            click.echo(f"unsupported: {main.reason} (no DER, JER or speaker count)")
        return
    assert parity is None or not isinstance(parity, DiarizationUnsupported)
    if as_json:
        payload = report_dict(main, exclude_overlap=exclude_overlap, uem_source=uem_source)
        if parity is not None:
            payload["lattifai_parity"] = report_dict(parity, exclude_overlap=exclude_overlap,
                                                     uem_source=uem_source)
        click.echo(dumps(payload), nl=False)
        return
    region = "overlap excluded" if exclude_overlap else "overlap included"
    click.echo(table(main, exclude_overlap=exclude_overlap,
                     title=f"DER main protocol: collar +-{collar:g} s, {region}; "
                           f"UEM {uem_source}"), nl=False)
    if parity is not None:
        click.echo("")
        click.echo(table(parity, exclude_overlap=exclude_overlap,
                         title=f"LattifAI parity track (separate): collar +-0.1 s "
                               f"(pyannote collar=0.2), {region}"), nl=False)
