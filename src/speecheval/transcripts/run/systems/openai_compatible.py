"""``openai-compatible``: a server's ``/v1/audio/transcriptions``, verbose JSON.

The client is the project's :class:`~speecheval.asr.openai_compatible.OpenAICompatibleRecogniser`
(the key from an environment variable, bounded retries on 429, 5xx and dropped
connections, no redirects, the key removed from every reason), asked for segment and word
timestamps. The exact input WAV is sent as it is, and the body of the 2xx answer is the
raw response, saved even when it cannot be used: a 2xx whose JSON is cut off is a failed
job whose truncated body stays for the completeness gate to read.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from ....asr.base import RecognitionFailed
from ....asr.openai_compatible import (
    OpenAICompatibleRecogniser,
    OpenAISettings,
    words_of_answer,
)
from ....core import peer_json
from ...formats.segment import Segment
from ..input_audio import Pcm
from ..manifest import OpenAICompatibleSystem
from .base import NOT_REPORTED, Answer

ADAPTER = "openai-compatible"
RESPONSE = "response.json"


class OpenAICompatible:
    """A system behind an OpenAI-compatible transcription endpoint."""

    adapter = ADAPTER

    def __init__(self, name: str, spec: OpenAICompatibleSystem) -> None:
        self.name = name
        self.spec = spec
        self.native_context_s = spec.native_context_s
        self.recogniser = OpenAICompatibleRecogniser(OpenAISettings(
            base_url=spec.base_url, model=spec.model, api_key_env=spec.api_key_env,
            language=spec.language, max_attempts=spec.max_attempts,
            backoff_s=spec.backoff_s, timeout_s=spec.timeout_s,
            granularities=("segment", "word")))

    def identity(self) -> dict[str, Any]:
        return {**self.recogniser.identity(), "native_context_s": self.native_context_s,
                "seed": "not sent: the transcription API takes none",
                **self.spec.declared().report_dict()}

    def model_revision(self) -> dict[str, Any]:
        return {"model": self.spec.model, "endpoint": self.recogniser.settings.endpoint,
                "revision": "not known: the server names its model only"}

    def config(self) -> dict[str, Any]:
        identity = self.recogniser.identity()
        return {"adapter": ADAPTER, "endpoint": identity["endpoint"], "model": self.spec.model,
                "request": identity["request"], "retry": identity["retry"],
                "timeout_s": self.spec.timeout_s, **self.spec.declared().report_dict()}

    def transcribe(self, pcm: Pcm, seed: int, sample_id: str, scratch: Path) -> Answer:
        before = self.recogniser.retries
        try:
            body = self.recogniser.answer(pcm.wav())
        except RecognitionFailed as failure:
            return Answer({}, "failed", failure.reason, "no usable HTTP answer",
                          retries=self.recogniser.retries - before)
        retries = self.recogniser.retries - before
        files = {RESPONSE: body}
        try:
            segments = segments_of_answer(body)
        except RecognitionFailed as failure:
            return Answer(files, "failed", failure.reason, "HTTP 2xx answer",
                          retries=retries)
        tokens = [s.get("tokens") for s in segments]
        counted = all(isinstance(t, list) for t in tokens) and tokens
        generation = {**NOT_REPORTED,
                      "token_count": sum(len(t) for t in tokens if isinstance(t, list))
                      if counted else None}
        return Answer(files, "succeeded", None, "HTTP 2xx answer", generation=generation,
                      retries=retries)


def segments_of_answer(body: bytes) -> list[dict[str, Any]]:
    """The ``segments`` of a verbose_json answer, or its words as segments if it has
    none; RecognitionFailed saying why the answer is unusable (not JSON, cut off, no
    word timestamps, a segment without times)."""
    words = words_of_answer(body)  # the bounded parse, and every refusal of it
    data = peer_json.loads(body.decode("utf-8"))
    segments = data.get("segments")
    if not isinstance(segments, list) or not segments:
        return [{"start": w.start_s, "end": w.end_s, "text": w.text} for w in words]
    for index, item in enumerate(segments):
        if not (isinstance(item, dict) and isinstance(item.get("text"), str)
                and _seconds(item.get("start")) and _seconds(item.get("end"))
                and item["start"] <= item["end"]):
            raise RecognitionFailed(f"segments[{index}] is not a segment with text, a start "
                                    f"and an end in seconds: {json.dumps(item)[:80]}")
    return segments


def _seconds(value: Any) -> bool:
    return (isinstance(value, int | float) and not isinstance(value, bool)
            and math.isfinite(value) and value >= 0)


def parse(folder: Path, sample_id: str) -> list[Segment]:
    """The segments of a saved answer (text stripped, empty ones left out)."""
    segments = segments_of_answer((folder / RESPONSE).read_bytes())
    return [Segment(sample_id, None, float(s["start"]), float(s["end"]), s["text"].strip())
            for s in segments if s["text"].strip()]


def words(folder: Path, sample_id: str) -> list[Segment] | None:
    """The timed words of a saved answer (its ``words`` list); ``None`` when it has none."""
    try:
        found = words_of_answer((folder / RESPONSE).read_bytes())
    except RecognitionFailed:
        return None
    return [Segment(sample_id, None, w.start_s, w.end_s, w.text) for w in found]
