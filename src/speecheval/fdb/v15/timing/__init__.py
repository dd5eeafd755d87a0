"""The timing of one v1.5 trial: the event-anchored stop and response latencies with
their statuses (``trial``), and the official ``get_timing.py`` intervals reproduced as a
reference column (``official``)."""
