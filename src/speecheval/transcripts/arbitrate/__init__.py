"""Blind arbitration of candidate transcripts by judges (spec: Agent 仲裁边界).

Judges never compute a deterministic metric. On samples with an independent reference only,
they see the candidates under random labels A/B/C/D (the label-to-system mapping is stored
apart from the prompts), answer in one fixed JSON schema, and a consensus needs at least 3
valid judges; a weak consensus is flagged for human review. Everything is kept: the command
version, each prompt and its hash, each judge's model and raw answer, the parsed and the
aggregated results. Objective metrics are never read back or written.
"""
