"""Where the user stopped speaking, from Silero segments of the input the system heard.

The metadata window ``[a, b)`` says where the dataset placed the overlap; the official
``get_timing.py`` anchors its response intervals on where voice activity detection finds
the user's speech ending instead. Both ends here come from speecheval's Silero on the
input file, with the user's pauses of at most :data:`USER_MERGE_GAP_US` (the official
0.6 s) joined as the official script joins them:

* :func:`overlap_user_end`: the end of the last joined user segment that overlaps the
  window (the overlap utterance as heard, its tail included); None when Silero finds no
  user speech inside the window (a quiet background line can be missed);
* :func:`context_end`: the end of the last joined user segment of ``clean_input.wav``
  (the context turn alone); None when Silero finds no speech in it.
"""

from __future__ import annotations

from collections.abc import Sequence

from ....core.timebase import to_us
from ....core.timeline import Span
from .official import USER_MERGE_GAP_S
from .trial import bridge_pauses

USER_MERGE_GAP_US = to_us(USER_MERGE_GAP_S)


def overlap_user_end(user_segments: Sequence[Span], window: Span) -> int | None:
    """The end (us) of the user's speech that overlaps ``window``, or None."""
    joined = bridge_pauses(user_segments, USER_MERGE_GAP_US)
    inside = [s for s in joined if s.start_us < window.end_us and s.end_us > window.start_us]
    return inside[-1].end_us if inside else None


def context_end(user_segments: Sequence[Span]) -> int | None:
    """The end (us) of the last user speech of a context-only input, or None."""
    joined = bridge_pauses(user_segments, USER_MERGE_GAP_US)
    return joined[-1].end_us if joined else None
