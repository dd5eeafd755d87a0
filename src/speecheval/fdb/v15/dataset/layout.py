"""The official v1.5 dataset layout: four scenarios, three files per sample.

``<root>/<scenario>/<id>/input.wav`` (the user audio with the overlap),
``clean_input.wav`` (the same user audio without it) and ``metadata.json``
(``context_text``, ``current_turn_text``, ``timestamps`` = the overlap window in
input.wav, in seconds).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ....core.errors import InputError
from ...common.dataset import sample_id_order

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


@dataclass(frozen=True)
class SampleRef:
    """A sample by scenario and folder name; ``sample_id`` is ``<scenario>/<id>``."""

    scenario: str
    local_id: str

    @property
    def sample_id(self) -> str:
        return f"{self.scenario}/{self.local_id}"


def sample_folders(root: Path, what: str) -> dict[str, list[str]]:
    """The sample folder names of each scenario under ``root`` (numbers in numeric order).

    ``what`` names the root in the errors: a root that is not a directory, or that holds
    none of the scenario folders, is an InputError.
    """
    if not root.is_dir():
        raise InputError(f"{what} is not a directory", path=root)
    if not any((root / scenario).is_dir() for scenario in DECLARED_SIZES):
        raise InputError("no Full-Duplex-Bench v1.5 scenario folder here (expected "
                         f"{', '.join(DECLARED_SIZES)})", path=root)
    return {scenario: sorted((p.name for p in (root / scenario).iterdir()
                              if p.is_dir() and not p.name.startswith(".")), key=sample_id_order)
            if (root / scenario).is_dir() else [] for scenario in DECLARED_SIZES}
