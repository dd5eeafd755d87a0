"""The dataset commands both versions have (``build-dataset``, ``check-dataset``): their
options and the lines they print, so ``fdb10`` and ``fdb15`` take and word a dataset the
same way; each version's command says what its sizes and folders are.

Only click is imported at module level: the fdb15 group builds its commands from these
options while ``speecheval --help`` runs.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Protocol, TypeVar

import click

Command = TypeVar("Command", bound=Callable[..., None])


def build_options(sizes: str) -> Callable[[Command], Command]:
    """``--out`` and ``--size`` of ``build-dataset``; ``sizes`` says what mini and full
    hold in the version's dataset."""
    def options(command: Command) -> Command:
        command = click.option("--size", type=click.Choice(["mini", "full"]), default="mini",
                               show_default=True, help=sizes)(command)
        return click.option("--out", "out", required=True, type=click.Path(path_type=Path),
                            help="New directory for the dataset (refused if it exists, "
                                 "unless --force).")(command)
    return options


def echo_built(out: Path, samples: int, started: float, revision: str) -> None:
    """The line ``build-dataset`` ends with: the samples written, the time since
    ``started`` (``time.perf_counter()``) and the start of the computed revision."""
    click.echo(f"wrote {samples} samples to {out} in {time.perf_counter() - started:.1f} s "
               f"(revision {revision[:16]})")


def root_option(folders: str) -> Callable[[Command], Command]:
    """``--dataset-root`` of ``check-dataset``: the folder holding the version's
    ``folders`` (its subset or scenario folders)."""
    return click.option("--dataset-root", "root", required=True,
                        type=click.Path(path_type=Path, file_okay=False),
                        help=f"Folder holding the {folders}.")


class _Sample(Protocol):
    @property
    def sample_id(self) -> str: ...
    @property
    def problems(self) -> tuple[str, ...]: ...
    @property
    def absent(self) -> bool: ...


class _Dataset(Protocol):
    @property
    def revision(self) -> str: ...
    @property
    def samples(self) -> Sequence[_Sample]: ...
    def counts(self) -> Mapping[str, Mapping[str, int]]: ...
    def rates(self) -> Mapping[str, Sequence[int]]: ...


def echo_check(root: Path, dataset: _Dataset, width: int) -> None:
    """What ``check-dataset`` prints of a dataset read from ``root``: the revision, one
    line per subset or scenario (its name padded to ``width``) and one per present sample
    with problems."""
    click.echo(f"dataset {root}  revision {dataset.revision}")
    rates = dataset.rates()
    for group, counts in dataset.counts().items():
        seen = ", ".join(str(rate) for rate in rates.get(group, [])) or "-"
        click.echo(f"  {group:{width}s} usable {counts['usable']:3d} of {counts['declared']:3d}"
                   f"  problems {counts['with_problems']:3d}  absent {counts['absent']:3d}"
                   f"  rates {seen}")
    for sample in dataset.samples:
        if sample.problems and not sample.absent:
            click.echo(f"  {sample.sample_id}: {'; '.join(sample.problems)}")
