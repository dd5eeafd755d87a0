"""A transport for the capture tests that sends one member of every pair to another server.

``fdb15 record`` substitutes each session's id (``<scenario>/<id>/<member>``) into the
``url`` option; this native-realtime transport connects the ``clean_input`` sessions to
``clean_url`` instead, so a test can serve that member from a local agent that faults
while the other member talks to a healthy one, both over real sockets.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from speecheval.agents.native_realtime import NativeRealtimeTransport


class CleanMemberElsewhere(NativeRealtimeTransport):
    def __init__(self, *, url: str, clean_url: str, **options: str) -> None:
        member = urlsplit(url).path.rsplit("/", 1)[-1]
        super().__init__(url=clean_url if member == "clean_input" else url, **options)
