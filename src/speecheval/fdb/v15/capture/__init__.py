"""Capturing a system on a v1.5 dataset: each sample as two sessions (``record``), the
runs played out into a tree the scorers read (``export``), and the word-timed
transcripts of that tree (``asr``), on the run, playout and recogniser machinery of
``fdb.common``."""
