"""Scoring a reference tree with the unified metrics: one object per task (``tasks``, over
``pause``, ``turn_taking``, ``interruption``), a sample read from the tree (``samples``),
the whole tree (``unified``), and what is computed from the scored rows (``outcomes``,
``latency_curve``, ``paired``)."""
