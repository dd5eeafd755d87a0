"""The user's side of a sample: the dataset input the tree was captured from.

An outcome is judged against what the user said, so the page plays the input beside the
reply and draws the input's speech. ``reference-export`` records, under the manifest's
top-level ``input_audio``, the dataset folder it read (``dataset_root``) and for every
sample the input's path inside it and its SHA-256; the page reads the input only when
its bytes still have that hash (``--dataset DIR`` points at a dataset that moved). A
tree that does not record its inputs, a dataset that is not at hand, or an input whose
bytes changed leaves the sample with its output alone, and the page says which.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from ....core.audio import Audio, decode_mono, resample
from ....core.errors import InputError
from ....core.hashing import sha256_bytes
from ....report.ogg_opus import stereo as two_channels
from ...common.tree import MANIFEST_FILE, read_json, tree_file

INPUT_AUDIO = "input_audio"
"""The manifest's top-level record of the dataset inputs (written by reference-export)."""

STEREO_RATE = 16000
"""Input and reply are put on one rate for the stereo clip (the page's audio is speech)."""


@dataclass(frozen=True)
class UserInput:
    """A sample's input, checked: its file and SHA-256. The samples are read again when a
    clip is encoded (and checked again), so a page of a full-size tree never holds every
    decoded input at once (about 0.8 GB a system)."""

    path: Path
    sha256: str
    sample_id: str

    def audio(self) -> Audio:
        """The input's samples at its own rate; an input changed since the check is bad
        input."""
        data = self.path.read_bytes()
        if sha256_bytes(data) != self.sha256:
            raise InputError("the input changed while the page was written (its SHA-256 "
                             "differs)", path=self.path, sample_id=self.sample_id)
        return decode_mono(data, name=self.path, sample_id=self.sample_id)


@dataclass(frozen=True)
class Inputs:
    """Each sample's checked input, or why it has none; ``note`` says it for the tree."""

    found: dict[str, UserInput]
    missing: dict[str, str]
    note: str


def recorded_inputs(tree: Path, dataset: Path | None
                    ) -> tuple[Path | None, dict[str, tuple[str, str]]]:
    """The dataset folder (``dataset`` if given) and each sample's (path, SHA-256) as
    the tree records them; a malformed record is bad input."""
    path = tree_file(tree, MANIFEST_FILE)
    document = read_json(path, what="manifest.json")
    record = document.get(INPUT_AUDIO) if isinstance(document, dict) else None
    if record is None:
        return dataset, {}
    try:
        root = Path(record["dataset_root"]) if dataset is None else dataset
        samples = {str(sid): (str(ref["path"]), str(ref["sha256"]))
                   for sid, ref in record["samples"].items()}
    except (KeyError, TypeError, AttributeError) as exc:
        raise InputError(f"{INPUT_AUDIO} must hold dataset_root and samples of path and "
                         f"sha256 ({exc!r})", path=path) from exc
    return root, samples


def load_inputs(tree: Path, sample_ids: list[str], dataset: Path | None) -> Inputs:
    """Read and check the inputs of ``sample_ids``."""
    root, recorded = recorded_inputs(tree, dataset)
    if not recorded:
        reason = ("the tree does not record the dataset inputs it was captured from "
                  "(export it again with this version to get them)")
        return Inputs({}, {sid: reason for sid in sample_ids}, "inputs: " + reason)
    found: dict[str, UserInput] = {}
    missing: dict[str, str] = {}
    for sample_id in sample_ids:
        if sample_id not in recorded:
            missing[sample_id] = "the tree records no input for this sample"
            continue
        relative, digest = recorded[sample_id]
        assert root is not None
        path = root / relative
        if not path.is_file():
            missing[sample_id] = f"the dataset is not at hand: {path} is missing"
            continue
        data = path.read_bytes()
        if sha256_bytes(data) != digest:
            missing[sample_id] = (f"{path} is not the input the sample was captured from "
                                  "(its SHA-256 differs)")
            continue
        decode_mono(data, name=path, sample_id=sample_id)  # an undecodable input is bad input
        found[sample_id] = UserInput(path, digest, sample_id)
    note = (f"inputs: {len(found)} of {len(sample_ids)} read from {root} and checked "
            "against their SHA-256")
    if missing:
        note += f"; {len(missing)} shown without their input ({next(iter(missing.values()))})"
    return Inputs(found, missing, note)


def stereo(user: UserInput, reply: NDArray[np.float32], reply_rate: int
           ) -> NDArray[np.float32]:
    """The input on the left channel and the reply on the right, at :data:`STEREO_RATE`,
    the shorter one padded with silence at its end."""
    heard = user.audio()
    return two_channels(resample(heard.samples, heard.rate, STEREO_RATE),
                        resample(reply, reply_rate, STEREO_RATE))
