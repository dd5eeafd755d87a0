"""``speecheval transcripts score``: a manifest of samples scored into one run directory."""
