"""The columns of an RTTM ``SPEAKER`` line: the one table both RTTM readers take their rules from.

The line reader (:mod:`.rttm`) checks a line against it field by field and names what is
wrong; the plain reader (:mod:`.rttm_plain`) accepts only the plain form of the same
columns (exactly :data:`MAX_FIELDS` fields, :data:`PLAIN` in the columns scoring does not
use) and leaves every other line to the line reader, so every message about a malformed
line comes from the line reader. A change of a column here changes both.

>>> COLUMNS[ONSET], COLUMNS[NAME], PLAIN[CHANNEL], PLAIN[TYPE]
('tbeg', 'name', '1', 'SPEAKER')
"""

from __future__ import annotations

NA = "<NA>"
SPEAKER = "SPEAKER"
COLUMNS = ("type", "file", "chnl", "tbeg", "tdur", "ortho", "stype", "name", "conf", "slat")
"""The fields of a line, in order (the names of the NIST RT-09 plan)."""
TYPE, FILE, CHANNEL, ONSET, DURATION, ORTHO, SUBTYPE, NAME, CONFIDENCE, SLAT = range(
    len(COLUMNS))
MAX_FIELDS = len(COLUMNS)
MIN_FIELDS = MAX_FIELDS - 1  # md-eval's: the last (signal look-ahead time) is optional
KEPT = (CHANNEL, ORTHO, SUBTYPE, CONFIDENCE, SLAT)
"""Columns kept for round trips but not scored."""
PLAIN: dict[int, str] = {TYPE: SPEAKER, CHANNEL: "1", ORTHO: NA, SUBTYPE: NA, CONFIDENCE: NA,
                         SLAT: NA}
"""What every diarization system writes in the columns that are not file, times or name:
a line with these is plain, and a turn whose kept columns hold them stores nothing extra."""
DEFAULTS = tuple(PLAIN[column] for column in KEPT)
"""The kept columns of a plain line, in :data:`KEPT` order (the value of an absent slat)."""
