"""What ``fdb10`` writes from a scored tree: ``unified.json`` and its sample rows
(``unified_files``), the HTML page (``page``, with ``curves`` and ``paired``) and a
sample's timeline picture (``show``, drawn from ``show_plan``)."""
