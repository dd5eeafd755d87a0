"""Measuring recorded sessions: the metric types, the passes over them (turn timing,
latency split, reply checks, task judge, conditions), the run's summary and assertions,
and :func:`~speecheval.session.metrics.evaluate.evaluate`, which drives them."""
