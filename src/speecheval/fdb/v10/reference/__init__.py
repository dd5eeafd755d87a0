"""The reference column: the pinned official v1.0 evaluator run on a tree (``evaluate``,
with its judge bounded by ``judge_runner``), each subset's run (``runs``) recorded in
``summary.json`` (``summary_file``), and that file read back beside speecheval's numbers
(``column``)."""
