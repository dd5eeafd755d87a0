"""The user's side of a trial: the input's lanes on the timeline and the stereo player.

Why: a reader judging whether a system stopped in time needs to hear and see what the
user said, not only the reply. The tree holds ``input.wav`` beside ``output.wav`` (on the
same timeline: ``fdb15 score`` needs both), so the drill-down draws the input's waveform
and its speech as found by Silero (:mod:`speecheval.vad`, the settings ``fdb15 score``
uses for its own timing) as lanes of their own, with the overlap window's onset and end
from ``metadata.json`` marked on them, and plays the two together: one stereo player
(user left, model right) and each side alone. Where the input is not in the tree, the
drill-down says so and shows the output alone.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import cache
from pathlib import Path

from ....core.audio import Audio, read_mono
from ....report import page as pg
from ....report import timeline as tl
from ....report.ogg_opus import encode, stereo
from ..dataset.layout import INPUT_WAV
from ..scoring.trials import OUTPUT_WAV

INPUT_COLOR = "#7b5ea7"
NO_INPUT = ("The input (input.wav) is not in this trial's folder of the tree, so the user's "
            "side cannot be played or drawn; the output is shown alone.")


@cache
def _vad() -> object:
    from ....vad.silero import SileroVad

    return SileroVad()


def speech_segments(audio: Audio) -> list[tuple[float, float]]:
    """The input's speech as (start, end) seconds (Silero, speecheval's settings)."""
    from ....vad.silero import SileroVad

    vad = _vad()
    assert isinstance(vad, SileroVad)
    return [span.seconds for span in vad.segments(audio)]


def input_audio(folder: Path, sample_id: str) -> Audio | None:
    """The trial's ``input.wav``, or None when the tree does not hold it."""
    path = folder / INPUT_WAV
    return read_mono(path, sample_id=sample_id) if path.is_file() else None


def input_tracks(audio: Audio, window: tuple[float, float]) -> tuple[list[tl.Track],
                                                                      list[tl.Marker]]:
    """The input's waveform lane, its speech lane, and the window's two markers."""
    speech = tuple(tl.Bar((start, end), tooltip=f"input speech {start:.2f}-{end:.2f} s")
                   for start, end in speech_segments(audio))
    tracks = [tl.Track("input", wave=tl.Wave(audio.samples, audio.rate),
                       caption="input (user)", color=INPUT_COLOR),
              tl.Track("input speech", spans=speech, caption="user speech (Silero)",
                       color=INPUT_COLOR, height=16.0)]
    onset, end = window
    markers = [tl.Marker(onset, f"onset {onset:.2f} s", color="#b71c1c", dashed=True,
                         tracks=("input", "input speech"), label_track="input",
                         side="left", strong=False),
               tl.Marker(end, f"end {end:.2f} s", color="#b71c1c", dashed=True,
                         tracks=("input", "input speech"), label_track="input",
                         strong=False)]
    return tracks, markers


def _relative(path: Path, page_folder: Path) -> str:
    return Path(os.path.relpath(os.path.abspath(path),
                                os.path.abspath(page_folder))).as_posix()


def _encoded(make: Callable[[], tuple[bytes, str]]) -> tuple[Callable[[], bytes], str]:
    """The bytes (made once, when the page draws the player) and their MIME type."""
    data, mime = make()
    return (lambda: data), mime


def players(folder: Path, sample_id: str, page_folder: Path,
            user: Audio | None) -> list[pg.Block]:
    """Stereo (user left, model right), the user alone, the model alone; only the model
    (and the note) when the input is not at hand."""
    output_path = folder / OUTPUT_WAV
    model = read_mono(output_path, sample_id=sample_id)
    blocks: list[pg.Block] = []
    if user is None:
        blocks.append(pg.Paragraph((NO_INPUT,), kind="note"))
    elif user.rate == model.rate:
        wav, mime = _encoded(lambda: encode(stereo(user.samples, model.samples), model.rate))
        # Past the page's budget the player links the user's input.wav (the page says so).
        blocks.append(pg.Audio("user (left) and model (right)",
                               _relative(folder / INPUT_WAV, page_folder), wav, mime))
    else:
        blocks.append(pg.Paragraph((f"input.wav ({user.rate} Hz) and output.wav "
                                    f"({model.rate} Hz) differ in rate: no stereo player.",),
                                   kind="note"))
    if user is not None:
        wav, mime = _encoded(lambda: encode(user.samples, user.rate))
        blocks.append(pg.Audio("user alone (input.wav)",
                               _relative(folder / INPUT_WAV, page_folder), wav, mime))
    wav, mime = _encoded(lambda: encode(model.samples, model.rate))
    blocks.append(pg.Audio("model alone (output.wav)", _relative(output_path, page_folder),
                           wav, mime))
    return blocks
