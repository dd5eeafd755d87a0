"""The scenario: its model, its file's schema and reader, and what the scenario's blocks
choose (the speech detectors, the task judge's client, the words of the WER)."""
