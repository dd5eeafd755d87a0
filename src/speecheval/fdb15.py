"""Full-Duplex-Bench v1.5 from Python: the timing of every trial of an output tree.

The public Python API of the FDB v1.5 family (``speecheval fdb15``): :func:`score_tree`
computes what ``speecheval fdb15 score --tree PATH`` writes without a judge (the command
runs the same computation, then the judge and prosody it is asked for). Everything not
listed in ``__all__`` is private and may change; the scorer, numpy and Silero are
imported when the function is called.

The examples read ``tree15``, a tree in the layout ``fdb15 score`` reads
(``<scenario>/<id>/`` with ``metadata.json``, ``input.wav`` and ``output.wav``):

>>> from speecheval import fdb15
>>> timing = fdb15.score_tree("tree15", jobs=1)
>>> sorted(timing.summary)
['user_backchannel', 'user_interruption']
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .core.executor import Executor
    from .fdb.v15.scoring.trials import TimingScores

__all__ = ["score_tree"]


def score_tree(path: str | Path, *, jobs: int | None = None,
               executor: Executor | None = None) -> TimingScores:
    """The stop and response timing of every trial of a v1.5 tree, and each scenario's
    summary.

    The same computation as ``speecheval fdb15 score --tree PATH`` (no judge): every
    sample folder ``<scenario>/<id>/`` is timed with Silero against the overlap window
    of its ``metadata.json``, beside the official ``get_timing.py`` intervals. A tree
    without sample folders, or a folder with a missing or unreadable file, is an
    :class:`~speecheval.core.errors.InputError` naming the sample and the file.

    ``jobs`` is the number of worker processes (default: one per core); ``executor``
    runs the trials elsewhere (a ``speecheval.core.executor`` executor, e.g. Ray). The
    results do not depend on either.

    The result holds ``scored`` (one ``ScoredTrial`` per trial: ``timing`` with the
    stop and response status and latency, ``official`` with the official intervals;
    ``report_dict()`` is its line of ``timing-samples.jsonl``), ``summary`` (a
    ``ScenarioSummary`` per scenario: ``timing``, the status shares and median latencies
    with intervals, and ``extras``, the means, the bridging count, the response from the
    user's speech end and the official response figure), ``pilot`` (the Table 1 pilot of
    the clean sessions), ``trials`` and the ``settings`` the provenance record names.

    >>> from speecheval import fdb15
    >>> timing = fdb15.score_tree("tree15", jobs=1)
    >>> [(trial.sample_id, trial.timing.stop_status) for trial in timing.scored]
    [('user_interruption/1', 'not_speaking_at_onset'), ('user_backchannel/1', 'stopped')]
    """
    from .core.executor import make_executor
    from .fdb.v15.scoring.trials import find_trials, score_timing

    trials = find_trials(Path(path))
    return score_timing(trials, executor if executor is not None
                        else make_executor("local", jobs=jobs))
