"""Speech detection behind one protocol (:class:`speecheval.vad.base.Vad`): the energy
detector of the session spec and Silero (ONNX, no torch).

The public Python API of this family is :func:`segments`; everything not listed in
``__all__`` is private and may change. The detectors are imported when it is called, so
importing this package is cheap.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..core.timeline import Span
    from .silero import SileroSettings

__all__ = ["segments"]


def segments(audio: Any, sr: int | None = None, *,
             settings: SileroSettings | None = None) -> list[Span]:
    """Silero VAD speech segments of a whole mono recording, in time order.

    Speech as FDB v1.0 defines it: threshold 0.5, no padding (``settings``, a
    ``speecheval.vad.silero.SileroSettings``, changes them).

    ``audio`` is a 1-D numpy array of samples (floats in [-1, 1], or int16) at ``sr`` Hz,
    or the path of a mono audio file (its own rate; ``sr`` not given). Rates are handled
    as the CLI handles them: 8 and 16 kHz as they are, multiples of 16 kHz decimated,
    any other rate resampled to 16 kHz. Each segment is a
    :class:`~speecheval.core.timeline.Span` in integer microseconds on the input's
    timeline (``start_s``/``end_s`` in seconds); ``open_at_end`` marks speech still going
    when the audio stops. Runs on onnxruntime; torch is never imported.

    >>> import numpy as np
    >>> from speecheval import vad
    >>> vad.segments(np.zeros(16000, dtype=np.float32), 16000)
    []
    """
    from ..core.audio import Audio, read_mono
    from ..core.errors import InputError
    from .silero import SileroSettings, SileroVad

    if isinstance(audio, str | Path):
        if sr is not None:
            raise InputError("give sr only with an array of samples: a file has its own rate",
                             path=audio)
        given = read_mono(audio)
    else:
        given = Audio(_float_samples(audio), _rate(sr))
    return SileroVad(settings or SileroSettings()).segments(given)


def _rate(sr: object) -> int:
    from ..core.errors import InputError

    if isinstance(sr, bool) or not isinstance(sr, int) or sr <= 0:
        raise InputError(f"sr must be a positive whole number of Hz, got {sr!r}")
    return sr


def _float_samples(audio: Any) -> Any:
    """``audio`` as contiguous mono float32 samples (int16 scaled to [-1, 1))."""
    import numpy as np

    from ..core.errors import InputError

    samples = np.asarray(audio)
    if samples.ndim != 1:
        raise InputError(f"expected mono samples (a 1-D array), got shape {samples.shape}")
    if samples.dtype == np.int16:
        return np.ascontiguousarray(samples, dtype=np.float32) / np.float32(32768)
    if not np.issubdtype(samples.dtype, np.floating):
        raise InputError(f"expected float or int16 samples, got {samples.dtype}")
    converted = np.ascontiguousarray(samples, dtype=np.float32)
    if not np.isfinite(converted).all():
        raise InputError("audio has non-finite samples (NaN or infinite)")
    return converted
