"""Read a Full-Duplex-Bench v1.5 dataset in the official layout from any root.

``<root>/<scenario>/<id>/`` holds ``input.wav``, ``clean_input.wav`` and
``metadata.json`` (:mod:`.layout`). Nothing is dropped: a sample folder whose files are
missing, unreadable or inconsistent (an overlap window past the end of input.wav) is
listed with its problems, and the declared sizes (200 / 99 / 100 / 100) stay whatever is
on disk. When every folder of a scenario is named by a number in ``1..declared`` (as
``build-dataset``'s are), the numbers without a folder are listed as absent samples;
otherwise only their count is known.

The revision is computed as v1.0's is (:func:`...common.dataset.revision_digest`): the
SHA-256 of the sorted ``<sha256>  <scenario>/<id>/<file>`` lines of every file of every
sample folder.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ....core.audio import audio_info
from ....core.errors import InputError
from ...common.dataset import (
    ABSENT,
    FoundDataset,
    FoundSample,
    hash_sample_folder,
    revision_digest,
    sample_id_order,
)
from .layout import (
    CLEAN_INPUT_WAV,
    DECLARED_SIZES,
    INPUT_WAV,
    METADATA_JSON,
    SampleRef,
    sample_folders,
)


@dataclass(frozen=True)
class DatasetSample(SampleRef, FoundSample):
    """One sample of a v1.5 dataset, by scenario and folder name."""


@dataclass(frozen=True)
class Dataset(FoundDataset[DatasetSample]):
    """A v1.5 dataset: its samples by scenario."""

    group = "scenario"
    declared_sizes = DECLARED_SIZES

    def absent_ranges(self) -> dict[str, str]:
        """The absent ids of each scenario as ranges: ``{"user_backchannel": "7-99"}``."""
        ranges = {}
        for scenario in DECLARED_SIZES:
            numbers = [int(s.local_id) for s in self.samples
                       if s.absent and s.scenario == scenario]
            if numbers:
                ranges[scenario] = _as_ranges(numbers)
        return ranges


def _as_ranges(numbers: list[int]) -> str:
    """``[1, 2, 3, 7, 9, 10]`` as ``"1-3, 7, 9-10"`` (numbers sorted and distinct)."""
    parts = []
    start = previous = numbers[0]
    for number in [*numbers[1:], None]:
        if number is not None and number == previous + 1:
            previous = number
            continue
        parts.append(str(start) if start == previous else f"{start}-{previous}")
        if number is not None:
            start = previous = number
    return ", ".join(parts)


def _wav_problem(folder: Path, name: str, files: dict[str, str],
                 sample_id: str) -> tuple[str | None, tuple[int, int] | None]:
    """(problem, (rate, frames)) of one WAV of the sample."""
    if name not in files:
        return f"{name} is missing", None
    try:
        info = audio_info(folder / name, sample_id=sample_id)
    except InputError as exc:
        return f"{name} is unreadable: {exc.problem}", None
    if info.channels != 1:
        return f"{name} has {info.channels} channels, expected mono", None
    return None, (info.rate, info.n_samples)


def _read_metadata(path: Path, sample_id: str) -> tuple[str | None, tuple[float, float] | None]:
    from ....core.schema import load
    from .metadata_schema import SampleMetadata

    try:
        metadata = load(SampleMetadata, path, what="metadata.json")
    except InputError as exc:
        # The schema's message starts with the file's path; the sample's folder is known.
        return f"metadata.json is invalid: {exc.problem}", None
    return None, metadata.timestamps


def read_sample(root: Path, scenario: str, local_id: str) -> DatasetSample:
    """Check one sample folder; every problem found is recorded, none raised."""
    sample_id = f"{scenario}/{local_id}"
    folder = root / scenario / local_id
    files = hash_sample_folder(root, folder, sample_id)
    problems: list[str] = []
    input_problem, input_shape = _wav_problem(folder, INPUT_WAV, files, sample_id)
    clean_problem, clean_shape = _wav_problem(folder, CLEAN_INPUT_WAV, files, sample_id)
    problems += [p for p in (input_problem, clean_problem) if p is not None]
    window = None
    if METADATA_JSON not in files:
        problems.append("metadata.json is missing")
    else:
        metadata_problem, window = _read_metadata(folder / METADATA_JSON, sample_id)
        if metadata_problem is not None:
            problems.append(metadata_problem)
    if input_shape is not None and window is not None:
        rate, frames = input_shape
        if window[1] > frames / rate:
            problems.append(f"metadata.json: timestamps end at {window[1]:g} s, after the "
                            f"end of input.wav ({frames / rate:g} s)")
    if input_shape is not None and clean_shape is not None and clean_shape[0] != input_shape[0]:
        problems.append(f"clean_input.wav is {clean_shape[0]} Hz but input.wav is "
                        f"{input_shape[0]} Hz")
    return DatasetSample(scenario=scenario, local_id=local_id,
                         input_rate=None if input_shape is None else input_shape[0],
                         input_samples=None if input_shape is None else input_shape[1],
                         files=files, problems=tuple(problems))


def _absent(scenario: str, present: list[str]) -> tuple[list[DatasetSample], int]:
    """Absent samples by id when the ids are the numbers 1..declared, else their count."""
    declared = DECLARED_SIZES[scenario]
    missing = max(declared - len(present), 0)
    numbered = all(n.isdecimal() and 1 <= int(n) <= declared for n in present)
    if not missing or not numbered or not present:
        return [], missing
    gone = sorted(set(range(1, declared + 1)) - {int(n) for n in present})
    return [DatasetSample(scenario=scenario, local_id=str(i), problems=(ABSENT,))
            for i in gone], 0


def load_dataset(root: str | Path) -> Dataset:
    """Read every sample folder of the four scenarios under ``root``.

    A root that is not a directory or holds none of the scenario folders is an
    InputError; a problem inside one sample is recorded on that sample.
    """
    base = Path(root)
    samples: list[DatasetSample] = []
    unnamed: dict[str, int] = {}
    for scenario, present in sample_folders(base, "dataset root").items():
        listed = [read_sample(base, scenario, local_id) for local_id in present]
        absent, unnamed[scenario] = _absent(scenario, present)
        samples.extend(sorted(listed + absent, key=lambda s: sample_id_order(s.local_id)))
    hashes = {f"{s.sample_id}/{name}": digest for s in samples for name, digest in s.files.items()}
    return Dataset(root=base, samples=tuple(samples), absent_unnamed=unnamed,
                   revision=revision_digest(hashes))
