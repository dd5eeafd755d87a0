"""Ask every judge about every sample with an independent reference, and keep it all.

Output folder (new, never overwritten)::

    arbitration.json   command version, prompt version and template hash, seed, judges,
                       inputs (SHA-256), what was skipped and why
    mapping.json       sample -> label -> system (apart from the prompts)
    prompts/<sample>.json            the exact messages; their SHA-256 is in judgements
    judges/<judge>/<sample>.stdout   the judge's raw answer body, as received
    judges/<judge>/<sample>.stderr   every failure on the way (empty when none)
    judgements.jsonl   per judge and sample: model asked and reported, prompt hash, valid or
                       why not, the parsed answer by label
    aggregate.jsonl    per sample: votes and mean scores by system, consensus, flags

A judge fault that would fail every request (a refused key, a judge program that cannot
be started: :attr:`JudgeReply.stop`) stops the sending: no request starts after it, and
the run ends with an InputError (exit 2) that says how many were not asked, before
anything is written: it is the user's setting to fix, and a rerun then starts clean.

Objective metrics are neither read nor written: the judges' view stays beside them. In a
run directory every judged candidate gets a record in ``RUN/lineage.jsonl``
(:func:`lineage_records`), and ``arbitration.json`` also says where each candidate comes
from (``candidate_origins``: the run, or an import with its trust facts) and which
incompatible imports were kept out of the vote (``diagnostic_only``, with the rule).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from pathlib import Path
from typing import Any, cast

from ...core.canonical_json import dumps, dumps_lines
from ...core.errors import InputError
from ...core.hashing import sha256_bytes, sha256_file
from ...core.output import new_output_dir
from ...core.provenance import package_version
from .. import lineage
from .aggregate import MIN_VALID_JUDGES, aggregate
from .inputs import Reference
from .judges import Judge, JudgeReply
from .prompt import (
    LABELS,
    PROMPT_VERSION,
    SYSTEM_PROMPT,
    USER_TEMPLATE,
    Answer,
    BlindSample,
    blind,
    parse_answer,
)

ARBITRATE_VERSION = "transcripts-arbitrate-1"


def plan(references: Mapping[str, Reference], candidates: Mapping[str, Mapping[str, str]],
         seed: int) -> tuple[list[tuple[BlindSample, Reference]], list[dict[str, str]]]:
    """The samples to arbitrate, blinded, and the ones skipped with the reason."""
    blinded, skipped = [], []
    for sample in sorted(set(references) | set(candidates)):
        reference, texts = references.get(sample), candidates.get(sample, {})
        reason = (None if reference is not None and reference.independent
                  else "no reference" if reference is None else "the reference is not independent")
        if reason is None and not 2 <= len(texts) <= len(LABELS):
            reason = f"{len(texts)} candidates (blind arbitration compares 2 to {len(LABELS)})"
        if reason is not None:
            skipped.append({"sample": sample, "reason": reason})
            continue
        assert reference is not None
        blinded.append((blind(sample, reference.text, texts, seed), reference))
    return blinded, skipped


def arbitrate(references: Mapping[str, Reference], candidates: Mapping[str, Mapping[str, str]],
              judges: Sequence[Judge], seed: int, out: Path,
              provenance: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Run the arbitration into the new folder ``out``; the aggregate rows (an InputError
    instead, with nothing written, when a judge fault stopped the sending)."""
    blinded, skipped = plan(references, candidates, seed)
    pairs = [(b, j) for b, _ in blinded for j in judges]
    asked = _ask_all(pairs)
    stop = next((r.stop for r in asked if r is not None and r.stop is not None), None)
    if stop is not None:
        raise InputError(f"{stop}; stopped sending: {asked.count(None)} of {len(pairs)} "
                         "judgements not asked; nothing written")
    replies = cast(list[JudgeReply], asked)  # every pair was asked: nothing stopped
    by_pair = {(b.sample, j.name): reply for (b, j), reply in zip(pairs, replies, strict=True)}
    judgements, aggregates = [], []
    with new_output_dir(out) as staging:
        for sample, _ in blinded:
            prompt_text = dumps(list(sample.prompt))
            (staging / "prompts").mkdir(exist_ok=True)
            (staging / "prompts" / f"{sample.sample}.json").write_text(prompt_text,
                                                                         encoding="utf-8")
            valid: list[Answer] = []
            for judge in judges:
                reply = by_pair[(sample.sample, judge.name)]
                row, answer = _judgement(sample, judge, reply, sha256_bytes(
                    prompt_text.encode()))
                judgements.append(row)
                if answer is not None:
                    valid.append(answer)
                folder = staging / "judges" / judge.name
                folder.mkdir(parents=True, exist_ok=True)
                (folder / f"{sample.sample}.stdout").write_text(reply.stdout, encoding="utf-8")
                (folder / f"{sample.sample}.stderr").write_text(reply.stderr, encoding="utf-8")
            aggregates.append({"sample": sample.sample, **aggregate(valid, sample.mapping)})
        (staging / "mapping.json").write_text(dumps(
            {"seed": seed, "samples": {b.sample: b.mapping for b, _ in blinded}}),
            encoding="utf-8")
        (staging / "judgements.jsonl").write_text(dumps_lines(judgements), encoding="utf-8")
        (staging / "aggregate.jsonl").write_text(dumps_lines(aggregates), encoding="utf-8")
        (staging / "arbitration.json").write_text(dumps({
            "kind": "transcripts.arbitration", "command_version": ARBITRATE_VERSION,
            "speecheval": package_version("speecheval"),
            "prompt_version": PROMPT_VERSION,
            "prompt_template_sha256": sha256_bytes((SYSTEM_PROMPT + USER_TEMPLATE).encode()),
            "seed": seed, "min_valid_judges": MIN_VALID_JUDGES,
            "judges": [j.identity() for j in judges],
            "references": {b.sample: {"sha256": sha256_bytes(r.text.encode()),
                                      **{k: v for k, v in asdict(r).items() if k != "text"}}
                           for b, r in blinded},
            "skipped": skipped, **provenance}), encoding="utf-8")
    return sorted(aggregates + [{"sample": s["sample"], "skipped": s["reason"]} for s in skipped],
                  key=lambda row: str(row["sample"]))


def _ask_all(pairs: Sequence[tuple[BlindSample, Judge]]) -> list[JudgeReply | None]:
    """Every judge's reply on every sample, in the order of ``pairs``, asked 8 at a time.

    After the first reply that stops the run no request starts: the pairs not asked get
    ``None`` (requests already under way finish)."""
    stopped = threading.Event()

    def ask(pair: tuple[BlindSample, Judge]) -> JudgeReply | None:
        if stopped.is_set():
            return None
        reply = pair[1].ask(list(pair[0].prompt))
        if reply.stop is not None:
            stopped.set()
        return reply

    with ThreadPoolExecutor(max_workers=max(1, min(8, len(pairs)))) as pool:
        return list(pool.map(ask, pairs))


def _judgement(sample: BlindSample, judge: Judge, reply: JudgeReply,
               prompt_sha: str) -> tuple[dict[str, Any], Answer | None]:
    """The judgement row of one judge on one sample, and its answer when valid."""
    row: dict[str, Any] = {"sample": sample.sample, "judge": judge.name, "model": judge.model,
                           "model_reported": reply.model_reported, "prompt_sha256": prompt_sha,
                           "attempts": reply.attempts}
    if reply.content is None:
        return {**row, "valid": False, "invalid_reason": "no answer (see stderr)",
                "answer": None}, None
    try:
        answer = parse_answer(reply.content, list(sample.mapping))
    except ValueError as exc:
        return {**row, "valid": False, "invalid_reason": str(exc), "answer": None}, None
    return {**row, "valid": True, "invalid_reason": None,
            "answer": {"scores": answer.scores, "best": answer.best,
                       "confidence": answer.confidence}}, answer


def lineage_records(run: Path, target: Path,
                    origins: Mapping[str, Mapping[str, Mapping[str, Any]]]
                    ) -> list[dict[str, Any]]:
    """One record per judged candidate of the arbitration in ``target`` (under ``run``).

    The id is ``arbitration:<raw key>@<folder>`` (the raw key with ``imported:<digest>/``
    before it for an imported candidate), the parent the candidate's raw record, the
    path the sample's line of ``aggregate.jsonl`` (a judgement compares candidates, but
    each candidate's chain still runs back to its own raw answer and input audio); an
    imported candidate's record repeats the import's trust facts.
    """
    aggregate_path = target / "aggregate.jsonl"
    relative = aggregate_path.relative_to(run)
    sha = sha256_file(aggregate_path)
    known = {r["id"]: r for r in lineage.read_records(run)}
    found = []
    for number, line in enumerate(aggregate_path.read_text(encoding="utf-8").splitlines(),
                                  start=1):
        row = json.loads(line)
        for system, origin in sorted(origins[row["sample"]].items()):
            raw_id = origin["raw"]
            found.append({
                "id": f"arbitration:{raw_id.removeprefix('raw:')}@{target.name}",
                "kind": "arbitration", "path": f"{relative}#{number}", "sha256": sha,
                **lineage.derived_from(known, raw_id), "normalizer_version": None,
                "scorer_version": f"{ARBITRATE_VERSION}/{PROMPT_VERSION}",
                "consensus": row["consensus"], "system": system,
                **{k: origin[k] for k in lineage.IMPORT_KEYS if k in origin}})
    return found
