"""Cases that kill mutants of the diarization scorer which the other DER tests let live.

Each test names what a planted one-token bug would change; the expected values are worked
out by hand (the arithmetic is in the comments).
"""

from __future__ import annotations

import pytest

from speecheval.core.errors import InputError
from speecheval.transcripts.diarization.cli import collar_seconds


def test_negative_collar_message_names_the_option_and_the_value() -> None:
    # the one-line error a user sees for --collar -0.5: option, rule and the text given
    with pytest.raises(InputError) as caught:
        collar_seconds("-0.5")
    assert str(caught.value) == "--collar: must be 0 or more seconds, got -0.5"
    # 0 itself is allowed (the boundary of "0 or more")
    assert collar_seconds("0") == 0.0
