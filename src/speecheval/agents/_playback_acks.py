"""The playback a real client would do of a duplex server's replies, for its acknowledgements.

vLLM-Omni's duplex server keeps a playback cursor per response (generated, sent, played
and committed milliseconds) and, under its ``ack_only`` commit policy, keeps in the
conversation only what the client says it played. A benchmark client has no speaker, so
this ledger plays as a client's audio device does: each chunk starts when it arrives or
when the one before it ends, whichever is later, at 1x speed, one reply after another
on the same output. ``played_ms`` of a reply at time ``t`` is how much of its audio that
device had played by ``t``; the transport acknowledges it with ``committed_ms`` equal to
it, as a client that commits what was heard does.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class _Reply:
    chunks: list[tuple[float, float]] = field(default_factory=list)  # (start_s, length_s)
    acked_ms: int = -1
    done: bool = False

    def played_ms(self, now: float) -> int:
        played = sum(min(max(now - start, 0.0), length) for start, length in self.chunks)
        return int(played * 1000 + 1e-6)

    def length_ms(self) -> int:
        return int(sum(length for _, length in self.chunks) * 1000 + 1e-6)


class PlaybackLedger:
    """Where a client's playout of each reply stands; which acknowledgements are due."""

    def __init__(self) -> None:
        self._replies: dict[str, _Reply] = {}
        self._device_free_s = 0.0  # when the output device finishes what it was given

    def audio(self, response_id: str | None, length_s: float, now: float) -> None:
        """A chunk of ``length_s`` seconds arrived at ``now``: of reply ``response_id``, or
        of no reply (None: the model's output while it listens), which still takes its
        turn on the device."""
        start = max(now, self._device_free_s)
        if response_id is not None:
            self._replies.setdefault(response_id, _Reply()).chunks.append((start, length_s))
        self._device_free_s = start + length_s

    def finish(self, response_id: str) -> None:
        """The server sent the reply's last audio (``response.done``)."""
        self._replies.setdefault(response_id, _Reply()).done = True

    def clear(self, now: float) -> None:
        """The server cleared the output: what had not played by ``now`` is dropped."""
        for reply in self._replies.values():
            reply.chunks = [(start, min(length, now - start)) for start, length in reply.chunks
                            if start < now]
            reply.done = True
        self._device_free_s = min(self._device_free_s, now)

    def due(self, now: float) -> list[tuple[str, int]]:
        """(response_id, played_ms) of every reply whose played position moved since its
        last acknowledgement; a reply done and fully played is then forgotten."""
        out = []
        for response_id, reply in list(self._replies.items()):
            played = reply.played_ms(now)
            if played != reply.acked_ms:
                reply.acked_ms = played
                out.append((response_id, played))
            if reply.done and played >= reply.length_ms():
                del self._replies[response_id]
        return out
