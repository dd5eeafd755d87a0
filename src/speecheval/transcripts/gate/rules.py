"""The gate's registered rules: every threshold the verdict depends on, under one version.

The spec fixes what is checked and leaves the thresholds to a pre-registered rule set; they
live here, are written into every verdict, and a change to any of them is a new
:data:`RULES_VERSION` (old verdicts stay as they were; spec: Artifact lineage 与规则升级).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

# 2: combining marks stay with the letter before them in the repeat tokens (session 24);
# a Hindi, Thai or Arabic output has fewer, longer tokens than under gate-rules-1
# 3: legality has its own tolerance (legal_tolerance_s), a label reset needs two or more
# labels (one speaker stopping and another starting is a handover), and a .txt answer
# without a time tag is plain text (coverage unsupported, not a cut)
RULES_VERSION = "gate-rules-3"
REPEAT_WINDOWS = (12, 24, 48, 96)
"""The spec's fixed window lengths, in normalized tokens, of exact adjacent repeats."""


@dataclass(frozen=True)
class GateRules:
    """Thresholds of one gate version.

    - ``tolerance_s``: how far before the sample's last-speech boundary the last valid
      timestamp may stop and still cover it (a sample may register its own).
    - ``legal_tolerance_s``: how far past the end of the audio a timestamp may lie and
      still be legal. Apart from ``tolerance_s`` and much smaller: a time after the last
      sample is no speech, so only the rounding of an honest last end is allowed (a
      model's time resolution: Whisper's 0.02 s timestamp steps, the 40-80 ms frames of
      audio-LLM encoders, times written with two decimals); 0.2 s is two 80 ms frames and
      that rounding, far less than a word, so a time 1.5 s past the end is illegal.
    - ``severe_repeat_window``: an exact adjacent repeat of a block this long (in normalized
      tokens) or longer fails the timeline; shorter windows are reported only, since a
      speaker can repeat a sentence.
    - ``max_segments_per_minute``: more segments starting inside any 60 s window than this
      is a segment explosion (the granularity of segments, not words: about one segment
      a second, sustained for a minute, is no transcript of speech).
    - ``reentry_gap_s``: a speaker label that comes back after being silent this long is
      a long-range re-entry (identity drift shows up as such returns or as new labels).
    - ``reset_min_labels``: a third whose labels are all unlike the previous third's is
      a label reset only with at least this many labels; one new label after the old
      ones fell silent is an ordinary handover (a host hands over to a guest), which a
      relabelled monologue cannot be told apart from, so it is not flagged.
    """

    tolerance_s: float = 2.0
    legal_tolerance_s: float = 0.2
    severe_repeat_window: int = 24
    max_segments_per_minute: int = 60
    reentry_gap_s: float = 600.0
    reset_min_labels: int = 2

    def identity(self) -> dict[str, Any]:
        """The rules as written into every verdict."""
        return {"version": RULES_VERSION, "repeat_windows": list(REPEAT_WINDOWS),
                "repeat_tokens": "mixed tokens (each CJK character, each run of other letters "
                                 "or digits, combining marks with the character before "
                                 "them) of the normalized text (NFKC, case folded, "
                                 "punctuation removed)",
                **asdict(self)}
