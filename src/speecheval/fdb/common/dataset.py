"""Read a Full-Duplex-Bench v1.0 dataset in the official layout from any root.

``<root>/<subset>/<id>/input.wav`` plus the task's annotation file (``pause.json``,
``turn_taking.json``, ``interrupt.json``), ``transcription.json`` where present and, for
interruption, ``context.wav`` and ``interrupt.wav``. Nothing is dropped: a sample folder
whose input or annotation is missing or unreadable is listed with its problems, and the
declared subset sizes (137 / 216 / 119 / 200 / 55) stay whatever is on disk. When every
folder of a subset is named by a number in ``1..declared`` (as the official folders and
``build-dataset``'s are), the numbers without a folder are listed as absent samples too;
otherwise only their count is known.

The dataset revision is computed, never typed: the SHA-256 of the sorted lines
``<sha256>  <subset>/<id>/<file>`` over every file of every sample folder, so two copies
with the same bytes have the same revision and any changed byte changes it.

The v1.5 reader (``fdb.v15.dataset.reader``) lists its samples the same way and builds on
what this module shares: :class:`FoundSample` (a sample as found on disk) and
:class:`FoundDataset` (the samples counted per subset or scenario), the revision digest,
the folder hashing and the id order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar

from ...core.audio import audio_info
from ...core.errors import InputError
from ...core.hashing import sha256_bytes, sha256_file
from ...core.paths import resolve_inside
from ...core.timebase import to_us
from .annotations import load_interruption, load_pauses, load_turn_end
from .tree import ANNOTATION_FILES, DECLARED_SIZES, SUBSET_TASKS

INPUT_WAV = "input.wav"
ABSENT = "sample folder is missing from the dataset root"


@dataclass(frozen=True, kw_only=True)
class FoundSample:
    """What a sample of either version's dataset is on disk, or why it cannot be used.

    ``input_rate`` and ``input_samples`` come from the input.wav header (None when it is
    missing or unreadable); ``files`` maps each file of the folder to its SHA-256. Each
    version adds the sample's place (its subset or scenario, and its folder name).
    """

    input_rate: int | None = None
    input_samples: int | None = None
    files: dict[str, str] = field(default_factory=dict)
    problems: tuple[str, ...] = ()

    @property
    def usable(self) -> bool:
        return not self.problems

    @property
    def absent(self) -> bool:
        """A numbered sample with no folder at all (listed, never selected by default)."""
        return self.problems == (ABSENT,)


Found = TypeVar("Found", bound=FoundSample)


@dataclass(frozen=True)
class FoundDataset(Generic[Found]):
    """Every sample found or known to be absent, with the computed revision. A version
    names the field that groups its samples (``group``: subset or scenario) and the
    declared size of each group."""

    group: ClassVar[str]
    declared_sizes: ClassVar[Mapping[str, int]]

    root: Path
    samples: tuple[Found, ...]
    absent_unnamed: dict[str, int]
    revision: str

    def counts(self) -> dict[str, dict[str, int]]:
        """Per group: declared, usable, present with problems, and absent samples."""
        counts = {}
        for name, size in self.declared_sizes.items():
            listed = [s for s in self.samples if getattr(s, self.group) == name]
            counts[name] = {"declared": size,
                            "usable": sum(s.usable for s in listed),
                            "with_problems": sum(bool(s.problems) and not s.absent
                                                 for s in listed),
                            "absent": (sum(s.absent for s in listed)
                                       + self.absent_unnamed.get(name, 0))}
        return counts

    def rates(self) -> dict[str, list[int]]:
        """The input.wav rates seen in each group."""
        seen: dict[str, set[int]] = {}
        for sample in self.samples:
            if sample.input_rate is not None:
                seen.setdefault(getattr(sample, self.group), set()).add(sample.input_rate)
        return {name: sorted(rates) for name, rates in sorted(seen.items())}


@dataclass(frozen=True)
class DatasetSample(FoundSample):
    """One sample of a v1.0 dataset, by subset and folder name."""

    subset: str
    local_id: str

    @property
    def sample_id(self) -> str:
        return f"{self.subset}/{self.local_id}"

    @property
    def task(self) -> str:
        return SUBSET_TASKS[self.subset]

    @property
    def duration_s(self) -> float:
        """T: the input length in seconds (only for a usable sample)."""
        assert self.input_rate is not None and self.input_samples is not None
        return self.input_samples / self.input_rate

    def folder(self, root: Path) -> Path:
        return root / self.subset / self.local_id

    def describe(self) -> dict[str, Any]:
        return {"sample_id": self.sample_id, "subset": self.subset, "task": self.task,
                "input_rate": self.input_rate, "input_samples": self.input_samples,
                "files": dict(sorted(self.files.items())), "problems": list(self.problems)}


@dataclass(frozen=True)
class Dataset(FoundDataset[DatasetSample]):
    """A v1.0 dataset: its samples by subset."""

    group = "subset"
    declared_sizes = DECLARED_SIZES

    @property
    def declared(self) -> dict[str, int]:
        return dict(DECLARED_SIZES)

    def by_id(self) -> dict[str, DatasetSample]:
        return {sample.sample_id: sample for sample in self.samples}

    def file_hashes(self) -> dict[str, str]:
        """SHA-256 of every dataset file, by ``<subset>/<id>/<file>``."""
        return {f"{s.sample_id}/{name}": digest for s in self.samples
                for name, digest in sorted(s.files.items())}

    def select(self, *, subsets: Sequence[str] = (), sample_ids: Sequence[str] = (),
               max_per_subset: int | None = None) -> list[DatasetSample]:
        """The samples a capture covers, in dataset order; unknown names are InputErrors.

        Absent samples are left out unless named by ``sample_ids``; a present sample with
        problems stays in, for the capture to list it with its reasons.
        """
        for subset in subsets:
            check_subset(subset)
        known = self.by_id()
        for sample_id in sample_ids:
            if sample_id not in known:
                raise InputError(f"--sample-id {sample_id}: no such sample in the dataset "
                                 "(expected SUBSET/ID of a listed sample)", path=self.root)
        chosen = [s for s in self.samples
                  if (not subsets or s.subset in subsets)
                  and (s.sample_id in sample_ids if sample_ids else not s.absent)]
        if max_per_subset is not None:
            taken: dict[str, int] = {}
            kept = []
            for sample in chosen:
                if taken.get(sample.subset, 0) < max_per_subset:
                    taken[sample.subset] = taken.get(sample.subset, 0) + 1
                    kept.append(sample)
            chosen = kept
        return chosen

    def describe(self) -> dict[str, Any]:
        """The dataset part of run.json: root, revision, sizes, rates and problems."""
        return {"root": str(self.root), "revision": self.revision,
                "declared": self.declared, "counts": self.counts(), "input_rates": self.rates(),
                "problems": {s.sample_id: list(s.problems) for s in self.samples
                             if s.problems and not s.absent},
                "absent": [s.sample_id for s in self.samples if s.absent]}


def check_subset(subset: str) -> None:
    if subset not in SUBSET_TASKS:
        raise InputError(f"unknown subset {subset!r}; the v1.0 subsets are "
                         f"{', '.join(SUBSET_TASKS)}")


def sample_id_order(local_id: str) -> tuple[int, int | str]:
    """Sort key for sample folders: numbered ids in numeric order, then named ones (v1.0
    and v1.5 list samples the same way)."""
    return (0, int(local_id)) if local_id.isdecimal() else (1, local_id)


def hash_sample_folder(root: Path, folder: Path, sample_id: str) -> dict[str, str]:
    """SHA-256 of every file in one sample folder, by path relative to ``root`` (the
    inputs of the computed dataset revision, shared by v1.0 and v1.5)."""
    files = {}
    for path in sorted(folder.iterdir()):
        if path.name.startswith("."):
            continue
        relative = path.relative_to(root)
        checked = resolve_inside(root, relative, sample_id=sample_id,
                                 root_name="the dataset root")
        if checked.is_file():
            files[path.name] = sha256_file(checked)
    return files


def _annotation_problem(path: Path, task: str, sample_id: str, duration_us: int) -> str | None:
    loaders = {"pause_handling": load_pauses, "smooth_turn_taking": load_turn_end,
               "user_interruption": load_interruption}
    try:
        loaders[task](path, sample_id, duration_us)
    except InputError as exc:
        return f"{path.name}: {exc.problem}"
    return None


def _read_sample(root: Path, subset: str, local_id: str) -> DatasetSample:
    sample_id = f"{subset}/{local_id}"
    folder = root / subset / local_id
    files = hash_sample_folder(root, folder, sample_id)
    problems: list[str] = []
    rate = n_samples = None
    if INPUT_WAV not in files:
        problems.append("input.wav is missing")
    else:
        try:
            info = audio_info(folder / INPUT_WAV, sample_id=sample_id)
        except InputError as exc:
            problems.append(f"input.wav is unreadable: {exc.problem}")
        else:
            rate, n_samples = info.rate, info.n_samples
            if info.channels != 1:
                problems.append(f"input.wav has {info.channels} channels, expected mono")
    annotation = ANNOTATION_FILES[SUBSET_TASKS[subset]]
    if annotation is not None:
        if annotation not in files:
            problems.append(f"{annotation} is missing")
        elif rate is not None and n_samples is not None:
            problem = _annotation_problem(folder / annotation, SUBSET_TASKS[subset], sample_id,
                                          to_us(n_samples / rate))
            if problem is not None:
                problems.append(problem)
    return DatasetSample(subset=subset, local_id=local_id, input_rate=rate,
                         input_samples=n_samples, files=files, problems=tuple(problems))


def _absent(subset: str, present: Iterable[str]) -> tuple[list[DatasetSample], int]:
    """Absent samples by id when the ids are the numbers 1..declared, else their count."""
    names = list(present)
    declared = DECLARED_SIZES[subset]
    missing_count = max(declared - len(names), 0)
    numbered = all(n.isdecimal() and 1 <= int(n) <= declared for n in names)
    if not missing_count or not numbered:
        return [], missing_count
    gone = sorted(set(range(1, declared + 1)) - {int(n) for n in names})
    return [DatasetSample(subset=subset, local_id=str(i),
                          problems=(ABSENT,))
            for i in gone], 0


def revision_digest(file_hashes: dict[str, str]) -> str:
    """SHA-256 over the sorted ``<sha256>  <path>`` lines of every dataset file."""
    lines = "".join(f"{digest}  {path}\n" for path, digest in sorted(file_hashes.items()))
    return sha256_bytes(lines.encode("utf-8"))


def load_dataset(root: str | Path) -> Dataset:
    """Read every sample folder of the five subsets under ``root``.

    A root that is not a directory, or that holds none of the v1.0 subsets, is an
    InputError; a problem inside one sample is recorded on that sample. The whole dataset
    is always read, so the revision does not depend on what a capture selects.
    """
    base = Path(root)
    if not base.is_dir():
        raise InputError("dataset root is not a directory", path=base)
    if not any((base / subset).is_dir() for subset in DECLARED_SIZES):
        raise InputError("no Full-Duplex-Bench v1.0 subset folder here (expected "
                         f"{', '.join(DECLARED_SIZES)})", path=base)
    samples: list[DatasetSample] = []
    unnamed: dict[str, int] = {}
    for subset in DECLARED_SIZES:
        folder = base / subset
        present = sorted((p.name for p in folder.iterdir()
                          if p.is_dir() and not p.name.startswith(".")),
                         key=sample_id_order) if folder.is_dir() else []
        listed = [_read_sample(base, subset, local_id) for local_id in present]
        absent, unnamed[subset] = (_absent(subset, present) if present
                                   else ([], DECLARED_SIZES[subset]))
        samples.extend(sorted(listed + absent, key=lambda s: sample_id_order(s.local_id)))
    hashes = {f"{s.sample_id}/{name}": digest for s in samples for name, digest in s.files.items()}
    return Dataset(root=base, samples=tuple(samples), absent_unnamed=unnamed,
                   revision=revision_digest(hashes))
