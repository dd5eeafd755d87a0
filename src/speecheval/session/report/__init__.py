"""The writers of a ``session run`` directory: the recordings, report.json, report.md,
report.html, report.voicebench.json and the terminal summary, all from the typed
:class:`~speecheval.session.metrics.evaluate.RunResult`."""
