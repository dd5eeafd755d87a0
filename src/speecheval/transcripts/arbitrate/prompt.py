"""The blind prompt, its seeded labels, and the fixed answer schema.

The labels of a sample are a permutation drawn from ``random.Random(f"{seed}:{sample}")``
(a string seed is hashed with SHA-512 by Python, so the draw is the same on every
machine and run). The prompt names no system; the mapping is returned separately and
written to its own file.
"""

from __future__ import annotations

import json
import math
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...core import peer_json

LABELS = ("A", "B", "C", "D")
CRITERIA = ("semantic_fidelity", "completeness", "entities", "numbers",
            "hallucination_control")
SCORE_RANGE = (1, 5)
PROMPT_VERSION = "arbitrate-prompt-1"

SYSTEM_PROMPT = (
    "You compare candidate transcripts of one recording against an independent human "
    "reference transcript. Judge meaning, not formatting: ignore punctuation, case, "
    "whitespace and timestamps. Answer with one JSON object and nothing else.")

USER_TEMPLATE = """Reference transcript (independent, human):
<<<
{reference}
>>>

{candidates}

For every candidate label, score 1 (worst) to 5 (best):
- semantic_fidelity: the meaning of the reference is preserved
- completeness: nothing of the reference is missing
- entities: names of people, places, organisations and products are right
- numbers: numbers, dates, amounts and units are right
- hallucination_control: nothing is added that the reference does not say

Then pick the single best candidate and say how confident you are (0 to 1).
Answer exactly in this JSON shape, with every label {labels}:
{{"scores": {{"{first}": {{"semantic_fidelity": 4, "completeness": 4, "entities": 5, \
"numbers": 5, "hallucination_control": 4}}, ...}}, "best": "{first}", "confidence": 0.8}}
"""


@dataclass(frozen=True)
class BlindSample:
    """One sample's prompt and, kept apart, which system each label stands for."""

    sample: str
    prompt: tuple[dict[str, str], ...]
    mapping: dict[str, str]


def blind(sample: str, reference: str, candidates: Mapping[str, str], seed: int) -> BlindSample:
    """Shuffle ``candidates`` (system -> text) under labels and write the prompt.

    >>> b = blind("ep1", "hello", {"sys1": "hello", "sys2": "yellow"}, seed=7)
    >>> sorted(b.mapping.values()), sorted(b.mapping)
    (['sys1', 'sys2'], ['A', 'B'])
    >>> any("sys1" in m["content"] for m in b.prompt)
    False
    """
    if not 2 <= len(candidates) <= len(LABELS):
        raise ValueError(f"blind arbitration compares 2 to {len(LABELS)} candidates, "
                         f"got {len(candidates)}")
    systems = sorted(candidates)
    random.Random(f"{seed}:{sample}").shuffle(systems)
    mapping = dict(zip(LABELS, systems, strict=False))
    blocks = "\n\n".join(f"Candidate {label}:\n<<<\n{candidates[system]}\n>>>"
                         for label, system in mapping.items())
    labels = list(mapping)
    user = USER_TEMPLATE.format(reference=reference, candidates=blocks,
                                labels=", ".join(labels), first=labels[0])
    return BlindSample(sample, ({"role": "system", "content": SYSTEM_PROMPT},
                                {"role": "user", "content": user}), mapping)


@dataclass(frozen=True)
class Answer:
    """A valid judge answer, by label."""

    scores: dict[str, dict[str, int]]
    best: str
    confidence: float


_FENCE = re.compile(r"^\s*```(?:json)?\s*\n(.*)\n\s*```\s*$", re.DOTALL)


def parse_answer(content: str, labels: Sequence[str]) -> Answer:
    """The judge's JSON answer, checked against the schema; ``ValueError`` says what is
    wrong. A single Markdown code fence around the object is accepted, nothing else.

    >>> parse_answer('{"scores": {"A": {"semantic_fidelity": 5, "completeness": 5, '
    ...              '"entities": 5, "numbers": 5, "hallucination_control": 5}}, '
    ...              '"best": "A", "confidence": 0.9}', ["A"]).best
    'A'
    >>> parse_answer('{"best": "E"}', ["A", "B"])
    Traceback (most recent call last):
    ...
    ValueError: "scores" must be an object with exactly the labels A, B
    """
    fenced = _FENCE.match(content)
    try:
        data: Any = peer_json.loads(fenced.group(1) if fenced else content)
    except peer_json.PeerJSONLimit as exc:
        raise ValueError(f"not JSON: {exc.reason}") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON: {exc.msg} at character {exc.pos}") from None
    if not isinstance(data, dict):
        raise ValueError(f"expected a JSON object, got {type(data).__name__}")
    extra = sorted(set(data) - {"scores", "best", "confidence"})
    if extra:
        raise ValueError(f"unexpected keys {', '.join(extra)}")
    scores = data.get("scores")
    if not isinstance(scores, dict) or set(scores) != set(labels):
        raise ValueError(f'"scores" must be an object with exactly the labels '
                         f'{", ".join(labels)}')
    checked: dict[str, dict[str, int]] = {}
    low, high = SCORE_RANGE
    for label in labels:
        row = scores[label]
        if not isinstance(row, dict) or set(row) != set(CRITERIA):
            raise ValueError(f"scores.{label} must have exactly {', '.join(CRITERIA)}")
        for criterion in CRITERIA:
            value = row[criterion]
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise ValueError(f"scores.{label}.{criterion} must be an integer "
                                 f"{low}-{high}, got {value!r}")
        checked[label] = {c: int(row[c]) for c in CRITERIA}
    best, confidence = data.get("best"), data.get("confidence")
    if best not in labels:
        raise ValueError(f'"best" must be one of {", ".join(labels)}, got {best!r}')
    if (isinstance(confidence, bool) or not isinstance(confidence, int | float)
            or not math.isfinite(confidence) or not 0 <= confidence <= 1):
        raise ValueError(f'"confidence" must be a number 0-1, got {confidence!r}')
    return Answer(checked, str(best), float(confidence))
