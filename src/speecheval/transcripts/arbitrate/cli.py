"""``speecheval transcripts arbitrate``: blind judge arbitration of candidate transcripts."""

from __future__ import annotations

from pathlib import Path

import click

from ...cli_force import force_option
from ...core.log import get_logger

_log = get_logger(__name__)


@click.command("arbitrate")
@click.argument("run", required=False, type=click.Path(exists=True, file_okay=False,
                                                       path_type=Path))
@click.option("--references", "references_path", required=True,
              type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="JSON Lines of references; only \"independent\": true ones are used.")
@click.option("--judge", "judge_specs", multiple=True, metavar="NAME=MODEL@URL",
              help="A judge behind an OpenAI-compatible endpoint (repeat; 3 or more valid "
                   "judges form a consensus).")
@click.option("--judge-command", "command_specs", multiple=True, metavar="NAME=COMMAND",
              help="A judge that is a program: the prompt on stdin, the JSON answer on "
                   "stdout (repeat).")
@click.option("--candidates", "candidates_path",
              type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="JSON Lines of candidate texts (instead of a RUN directory).")
@click.option("--track", help="The run's track to compare (needed when it has several).")
@click.option("--system", "systems", multiple=True, metavar="NAME",
              help="Compare only this system's candidates (repeat; its imports included). "
                   "A sample with more than 4 candidates is refused: pick with --system.")
@click.option("--repeat", default="r1", show_default=True, help="The run's repeat to compare.")
@click.option("--out", "out_dir", type=click.Path(path_type=Path),
              help="New output folder (with --candidates; a RUN writes under "
                   "RUN/derived/arbitration/).")
@click.option("--seed", default=0, show_default=True, type=int,
              help="Seed of the label shuffle.")
@click.option("--judge-env", "judge_env", multiple=True, metavar="NAME",
              help="An environment variable the judge programs are given (repeat); they "
                   "get only these and PATH, HOME, the locale, TMPDIR and TZ.")
@click.option("--api-key-env", default="OPENAI_API_KEY", show_default=True,
              help="Environment variable holding the judges' API key.")
@click.option("--max-attempts", default=3, show_default=True, type=click.IntRange(min=1),
              help="Requests per endpoint judge and sample at most (429, 5xx, cut answers "
                   "are retried).")
@click.option("--timeout", "timeout_s", default=300.0, show_default=True,
              type=click.FloatRange(min=0, min_open=True),
              help="Seconds per request (or per run of a judge command).")
@force_option
def arbitrate(run: Path | None, references_path: Path, judge_specs: tuple[str, ...],
              command_specs: tuple[str, ...], candidates_path: Path | None,
              track: str | None, systems: tuple[str, ...], repeat: str,
              out_dir: Path | None, seed: int,
              judge_env: tuple[str, ...], api_key_env: str, max_attempts: int,
              timeout_s: float, force: bool) -> None:
    """Judges compare candidates blind against independent references (A/B/C/D labels).

    Either RUN (a `transcripts run` directory) or --candidates FILE with --out DIR.
    """
    from ...core.canonical_json import dumps
    from ...core.errors import InputError
    from ...core.hashing import sha256_bytes, sha256_file
    from ...core.output import refuse_existing, replacing
    from .. import lineage
    from .inputs import only_systems, read_candidates, read_references, run_candidates, too_many
    from .judges import ChatJudge, CommandJudge, Judge
    from .run import ARBITRATE_VERSION, lineage_records
    from .run import arbitrate as run_arbitration

    judges: list[Judge] = [ChatJudge.parse(spec, api_key_env, max_attempts=max_attempts,
                                           timeout_s=timeout_s) for spec in judge_specs]
    judges += [CommandJudge.parse(spec, timeout_s, judge_env) for spec in command_specs]
    if not judges:
        raise InputError("name the judges with --judge NAME=MODEL@URL or --judge-command "
                         "NAME=COMMAND")
    names = [j.name for j in judges]
    if len(set(names)) != len(names):
        raise InputError(f"judge names must differ: {', '.join(names)}")
    references = read_references(references_path)
    if (run is None) == (candidates_path is None):
        raise InputError("give either a RUN directory or --candidates FILE")
    provenance: dict[str, object] = {"references_file": sha256_file(references_path)}
    origins: dict[str, dict[str, dict[str, object]]] = {}
    if candidates_path is not None:
        if out_dir is None:
            raise InputError("--candidates needs --out (a new folder)")
        candidates = read_candidates(candidates_path)
        if systems:
            candidates = only_systems(candidates, systems, candidates_path)
        provenance["candidates_file"] = sha256_file(candidates_path)
        with replacing(out_dir, force=force, shape="arbitration.json"):
            target = refuse_existing(out_dir)
    else:
        assert run is not None
        if out_dir is not None:
            raise InputError("a RUN's arbitration goes under RUN/derived/arbitration/; "
                             "--out is for --candidates")
        found = run_candidates(run, track, repeat, systems)
        candidates, origins = found.texts, found.origins
        provenance.update(track=found.track, repeat=repeat, candidate_origins=origins,
                          diagnostic_only=found.diagnostic)
        digest = sha256_bytes(dumps({"candidates": candidates, "seed": seed,
                                     "judges": [j.identity() for j in judges],
                                     "references": provenance["references_file"]}).encode())
        target = (run / "derived" / lineage.ARBITRATION_FOLDER
                  / f"{ARBITRATE_VERSION}-{digest[:12]}")
        if force:
            raise InputError("--force replaces an --out folder; a RUN's arbitration folder "
                             "is named by its inputs and its answers are kept")
        if target.exists():
            raise InputError("the same judges already arbitrated these candidates with this "
                             "seed; their answers are kept there (use another --seed for a "
                             "new round)", path=target)
    if systems:
        provenance["systems"] = sorted(set(systems))
    crowded = too_many(candidates)
    if crowded is not None:
        raise InputError(f"{crowded}; nothing written", path=run or candidates_path)
    if len(judges) < 3:
        _log.info("note: %d judge(s); a consensus needs 3 valid judges, so every sample "
                  "will be flagged for human review", len(judges))
    with replacing(target, force=force, shape="arbitration.json"):
        rows = run_arbitration(references, candidates, judges, seed, target, provenance)
    if run is not None:
        lineage.append_missing(run, lineage_records(run, target, origins))
    for row in rows:
        if "skipped" in row:
            click.echo(f"{row['sample']}: skipped: {row['skipped']}")
            continue
        flags = "; ".join(row["human_review_reasons"])
        click.echo(f"{row['sample']}: consensus {row['consensus'] or 'none'}, votes "
                   f"{', '.join(f'{k} {v}' for k, v in row['votes'].items()) or 'none'}, "
                   f"{row['valid_judges']} valid judge(s)"
                   + (f"; human review: {flags}" if flags else ""))
    click.echo(f"wrote {target}")
