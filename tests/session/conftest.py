"""pipecat_load_bot.py runs under Pipecat's own Python (see test_load.py), not this one:
pytest must not import it when it collects doctests."""

collect_ignore = ["pipecat_load_bot.py"]
