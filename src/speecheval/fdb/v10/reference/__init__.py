"""The reference column: the pinned official v1.0 evaluator run on a tree (``evaluate``,
with its judge bounded by ``judge_runner``) and its ``summary.json`` read back beside
speecheval's numbers (``column``)."""
