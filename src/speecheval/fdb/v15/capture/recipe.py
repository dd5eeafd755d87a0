"""The agent the v1.5 recording recipe starts: the local duplex agent with a reply long
enough to be interrupted.

A v1.5 trial asks what a system does when the user's overlap starts while it speaks. The
builder places the overlap 3.5-4.5 s after the context turn ends, and the local agent
starts answering 0.5 s after a turn ends (300 ms endpoint + 200 ms delay), so its reply
must still be running 4 s in. Its default reply ("Sure, I can help you with that right
away.", about 2.5 s) ends before every overlap, and every trial is then
``not_speaking_at_onset``. :data:`REPLY_TEXT` is one sentence (no pause for a VAD to split
at) of about 8.7 s with espeak-ng at its 165 wpm: it covers every onset with 4 s to spare.
"""

from __future__ import annotations

KIND = "duplex"
PROTOCOL = "native-realtime"
REPLY_TEXT = ("Here is the whole answer with every detail you asked for so please listen "
              "closely while I walk you through each part of it from the very first step "
              "to the last one")


def agent_options(given: dict[str, str]) -> dict[str, str]:
    """The recipe's options under the ones given (``reply_text`` given wins)."""
    return {"reply_text": REPLY_TEXT, **given}
