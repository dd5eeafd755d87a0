"""pipecat_bot.py runs under Pipecat's own Python (see test_pipecat.py), not this one:
pytest must not import it (``--doctest-modules`` imports every module it finds)."""

collect_ignore = ["pipecat_bot.py"]
