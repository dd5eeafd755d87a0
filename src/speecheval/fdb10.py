"""Full-Duplex-Bench v1.0 from Python: score a reference tree, or read its index.

The public Python API of the FDB v1.0 family (``speecheval fdb10``): :func:`score_tree`
computes what ``speecheval fdb10 unified-score`` writes (the command calls it), and
:func:`load_tree` reads a tree's ``manifest.json`` and ``asr.json`` with their checks.
Everything not listed in ``__all__`` is private and may change; the scorer, numpy and the
VAD are imported when a function is called.

The examples read ``mini``, the tree that ``speecheval fdb10 build-tree --out mini``
writes (about 50 samples, every outcome class of every metric):

>>> from speecheval import fdb10
>>> result = fdb10.score_tree("mini", jobs=1)
>>> round(result.summary.subsets["synthetic_pause_handling"].coverage, 3)
0.889
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .core.executor import Executor
    from .fdb.common.tree import AsrIndex, Manifest
    from .fdb.v10.scoring.unified import UnifiedResult

__all__ = ["load_tree", "score_tree"]


def score_tree(path: str | Path, *, jobs: int | None = None,
               vad_cache: str | Path | None = None, executor: Executor | None = None,
               command: Sequence[str] | None = None) -> UnifiedResult:
    """The unified turn-taking scores of a reference tree, metric by metric and subset by
    subset (definitions ``fdb-v1.0-unified-4``).

    The same computation as ``speecheval fdb10 unified-score --tree PATH``: every file
    of the tree is read and checked before anything is scored (the first problem is an
    :class:`~speecheval.core.errors.InputError` naming the file and the sample), Silero
    finds the speech of the outputs that need it, and each subset is summarised.

    ``jobs`` is the number of Silero worker processes (default: one per core);
    ``vad_cache`` a folder of cached VAD results (default: none, every output is
    segmented); ``executor`` runs Silero elsewhere (a ``speecheval.core.executor``
    executor, e.g. Ray); ``command`` is the command line the provenance record names
    (default: the ``unified-score`` call on ``path``). None of them changes a number.

    The result holds ``summary`` (what ``unified.json`` holds: ``subsets`` by name, each
    with ``report_dict()``, and the provenance record), ``rows`` (the lines of
    ``unified-samples.jsonl``), and the ``manifest`` and ``asr`` index it read.

    >>> from speecheval import fdb10
    >>> result = fdb10.score_tree("mini", jobs=1)
    >>> turns = result.summary.subsets["candor_turn_taking"]
    >>> turns.counts.eligible, round(turns.metrics["response_rate_2s"].report_dict()["value"], 3)
    (12, 0.583)
    """
    from .core.executor import default_jobs
    from .fdb.v10.scoring.unified import score_tree as score

    return score(Path(path), workers=jobs or default_jobs(), command=command,
                 vad_cache=None if vad_cache is None else Path(vad_cache), executor=executor)


def load_tree(path: str | Path) -> tuple[Manifest, AsrIndex]:
    """The manifest and the ASR index of a reference tree, read and checked.

    They are the tree's ``manifest.json`` and ``asr.json``. The manifest lists every
    selected sample (``samples``, each with its subset, task, eligibility and file
    hashes), the dataset ``revision`` and the subsets' ``declared`` sizes; the ASR index
    names the transcriber (``identity``) and hashes every transcript. Both hold the
    ``path`` and ``sha256`` of the file as read. A missing or malformed file, or a path
    leaving the tree, is an :class:`~speecheval.core.errors.InputError` naming it.

    >>> from speecheval import fdb10
    >>> manifest, asr = fdb10.load_tree("mini")
    >>> manifest.revision, len(manifest.samples), sorted(manifest.declared)[0]
    ('speecheval-builder-mini-1', 48, 'candor_pause_handling')
    """
    from .core.paths import folders_checked_once
    from .fdb.common.tree_read import load_asr, load_manifest

    tree = Path(path)
    with folders_checked_once():
        return load_manifest(tree), load_asr(tree)
