"""The official v1.5 dataset layout: four scenarios, three files per sample.

``<root>/<scenario>/<id>/input.wav`` (the user audio with the overlap),
``clean_input.wav`` (the same user audio without it) and ``metadata.json``
(``context_text``, ``current_turn_text``, ``timestamps`` = the overlap window in
input.wav, in seconds).
"""

from __future__ import annotations

DECLARED_SIZES: dict[str, int] = {
    "user_interruption": 200,
    "user_backchannel": 99,
    "talking_to_other": 100,
    "background_speech": 100,
}
"""The scenarios in the paper's order with the sizes the official release declares."""

INPUT_WAV = "input.wav"
CLEAN_INPUT_WAV = "clean_input.wav"
METADATA_JSON = "metadata.json"
SAMPLE_FILES = (INPUT_WAV, CLEAN_INPUT_WAV, METADATA_JSON)
