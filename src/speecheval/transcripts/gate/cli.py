"""``speecheval transcripts gate``: the engineering-completeness gate of saved raw outputs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from .reading import FORMATS


@click.command("gate")
@click.argument("run", required=False, type=click.Path(exists=True, file_okay=False,
                                                       path_type=Path))
@click.option("--samples", "samples_path", type=click.Path(exists=True, dir_okay=False,
                                                           path_type=Path),
              help="JSON Lines of each sample's frozen last-speech boundary (RUN mode; "
                   "default: the run manifest's last_speech_s). A sample the run lacks, or "
                   "a boundary past the end of the audio, is an error.")
@click.option("--raw", "raw_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="One raw output to gate (instead of a RUN directory).")
@click.option("--format", "fmt", type=click.Choice(FORMATS),
              help="Format of --raw (default: by suffix: .txt raw tagged, .srt, .vtt, .json; "
                   "other transcript suffixes such as .stm are read strictly).")
@click.option("--duration", "duration_s", type=click.FloatRange(min=0, min_open=True),
              help="Length of the audio in seconds (with --raw).")
@click.option("--last-speech", "last_speech_s", type=click.FloatRange(min=0),
              help="The sample's frozen last-speech boundary in seconds (with --raw; at "
                   "most --duration plus the 0.2 s legality tolerance).")
@click.option("--meta", "meta_path", type=click.Path(exists=True, dir_okay=False,
                                                     path_type=Path),
              help="The run's meta.json of --raw (status, stop reason, tokens, EOS).")
@click.option("--tolerance", "tolerance_s", type=click.FloatRange(min=0),
              help="Registered tolerance in seconds (default: the rules' 2.0; a sample's own "
                   "in the samples file wins).")
@click.option("--out", "out_path", type=click.Path(path_type=Path),
              help="Write the --raw verdict to this new JSON file.")
@click.option("--force", is_flag=True, default=False,
              help="With --out: replace that file if it exists (written beside it, then "
                   "renamed into place).")
@click.option("--json", "as_json", is_flag=True, help="Print the verdicts as JSON Lines.")
def gate(run: Path | None, samples_path: Path | None, raw_path: Path | None, fmt: str | None,
         duration_s: float | None, last_speech_s: float | None, meta_path: Path | None,
         tolerance_s: float | None, out_path: Path | None, as_json: bool,
         force: bool) -> None:
    """Decide whether raw outputs cover the whole recording (spec: engineering_completeness).

    Either RUN (a `transcripts run` directory; verdicts go to a new folder under
    RUN/derived/gate/), or one --raw file with --duration and --last-speech.
    """
    from ...core.canonical_json import dumps, dumps_line
    from ...core.errors import InputError
    from ...core.output import atomic_write_text, refuse_existing, replacing
    from .apply import gate_file
    from .inputs import format_for
    from .rules import GateRules
    from .verdict import SampleFacts, boundary_problem

    rules = GateRules() if tolerance_s is None else GateRules(tolerance_s=tolerance_s)
    if (run is None) == (raw_path is None):
        raise InputError("give either a RUN directory or --raw FILE")
    records: list[dict[str, Any]]
    if run is not None:
        extra = [name for name, value in (("--format", fmt), ("--duration", duration_s),
                                          ("--last-speech", last_speech_s),
                                          ("--meta", meta_path), ("--out", out_path))
                 if value is not None]
        if extra:
            raise InputError(f"{', '.join(extra)} go with --raw, not with a RUN directory")
        from .run_dir import gate_run

        command = ["speecheval", "transcripts", "gate", str(run)]
        if samples_path is not None:
            command += ["--samples", str(samples_path)]
        if tolerance_s is not None:
            command += ["--tolerance", repr(tolerance_s)]
        gated = gate_run(run, samples_path, rules, command)
        records = list(gated.records)
        footer = (f"wrote {gated.folder}" if gated.created
                  else f"already derived from the same inputs: {gated.folder} (left as it is)")
    else:
        assert raw_path is not None
        if samples_path is not None:
            raise InputError("--samples goes with a RUN directory; give --last-speech with --raw")
        if duration_s is None:
            raise InputError("--raw needs --duration (the audio's length in seconds)")
        if out_path is not None:
            with replacing(out_path, force=force, shape=(".json",)):
                refuse_existing(out_path)  # before the work; the rename below replaces it
        sample = SampleFacts(duration_s, last_speech_s)
        problem = boundary_problem(sample, rules)
        if problem is not None:
            raise InputError(f"--last-speech: {problem}", path=raw_path)
        record = gate_file(raw_path, format_for(raw_path, fmt), sample, meta_path, rules)
        records = [record]
        footer = ""
        if out_path is not None:
            atomic_write_text(out_path, dumps(record))
            footer = f"wrote {out_path}"
    for record in records:
        click.echo(dumps_line(record) if as_json else _line(record), nl=not as_json)
    if footer and not as_json:
        click.echo(footer)


def _line(record: dict[str, Any]) -> str:
    """One human line per verdict."""
    name = "/".join(str(record[k]) for k in ("system", "track", "sample", "repeat")
                    if k in record) or record["raw"]["path"]
    imported = record.get("imported")
    trust = "" if imported is None else (
        f" [{imported['id'].rsplit('/', 4)[0]}: {imported['protocol_compatibility']}, "
        f"identity {imported['identity_confidence']}, use {imported['track_use']}]")
    if "verdict" not in record:
        return f"{name}: not gated: {record['reason']}{trust}"
    why = "; ".join(record["verdict_reasons"])
    return f"{name}: {record['verdict']}" + (f" ({why})" if why else "") + trust
