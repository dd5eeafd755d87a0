"""Full-Duplex-Bench v1.5: overlap scenarios, their dataset and event-anchored timing.

The subpackages, each importing only those under it: ``cli`` (the ``fdb15`` commands)
over ``report`` (what is written from scored trees) over ``scoring`` (a tree scored) over
``timing``, ``judge`` (behaviour after the overlap) and ``prosody``; ``capture`` (record,
export, asr) and ``builder`` (the generated dataset) beside them; ``dataset`` (the official
layout and its reader) under all.
"""
