"""What each clip of the page is made of, as plain values, and the one function that
encodes it.

A full-size page holds thousands of clips (each sample's reply, its input, and both in
stereo), and encoding them is most of what the page costs after scoring. A :class:`Clip`
names files, not samples, so the executor's worker processes can each read and encode
their share (:func:`encode_clip`, a module-level function: it travels to a worker by
name); nothing of the page is shared with them. The encoder and the resampler give the
same bytes for the same input wherever they run, so the page is the same for any
``--jobs``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ....core.audio import read_mono
from ....report.ogg_opus import encode_opus
from .user_side import STEREO_RATE, UserInput, stereo


@dataclass(frozen=True)
class Reply:
    """A sample's ``output.wav``: its path, and the sample that names it in an error."""

    path: Path
    sample_id: str


@dataclass(frozen=True)
class Clip:
    """One clip: the reply alone, the user's input alone, or both (the user left, the
    model right, at :data:`~.user_side.STEREO_RATE`)."""

    reply: Reply | None = None
    user: UserInput | None = None

    def __post_init__(self) -> None:
        if self.reply is None and self.user is None:
            raise ValueError("a clip of neither the reply nor the input")

    @property
    def sample_id(self) -> str:
        """The sample an error names (the executor reads it)."""
        return self.reply.sample_id if self.reply is not None else (
            self.user.sample_id if self.user is not None else "")


def encode_clip(clip: Clip) -> bytes:
    """The clip as Ogg Opus bytes; its files are read here, when it is encoded, so the
    page never holds every decoded sample at once."""
    reply = None if clip.reply is None else read_mono(clip.reply.path,
                                                      sample_id=clip.reply.sample_id)
    if clip.user is None:
        assert reply is not None
        return encode_opus(reply.samples, reply.rate)
    if reply is None:
        heard = clip.user.audio()
        return encode_opus(heard.samples, heard.rate)
    return encode_opus(stereo(clip.user, reply.samples, reply.rate), STEREO_RATE)
