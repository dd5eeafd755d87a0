"""What ``fdb15`` writes from scored trees: the files and console table of ``fdb15 score``
(``score_files``, the one writer of its reports) and the HTML page of ``fdb15 report``
(``page``)."""
