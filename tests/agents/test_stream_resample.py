"""The chunked resampler: chunking does not change the output; counts follow the ratio."""

from __future__ import annotations

import numpy as np
import pytest

from speecheval.core.audio import resample
from speecheval.core.stream_resample import StreamResampler


@pytest.mark.parametrize(("rate_in", "rate_out"), [(16000, 24000), (24000, 16000),
                                                   (8000, 16000), (16000, 16000)])
def test_chunked_equals_whole_and_counts_are_exact(rate_in: int, rate_out: int) -> None:
    rng = np.random.default_rng(1)
    x = rng.uniform(-0.5, 0.5, rate_in // 2)
    whole = StreamResampler(rate_in, rate_out).process(x)
    chunked = StreamResampler(rate_in, rate_out)
    parts, fed = [], 0
    for size in [1, 3, 317, 160, 999, x.size]:
        piece = x[fed : fed + size]
        fed += piece.size
        parts.append(chunked.process(piece))
        # after n input samples exactly ceil(n * out / in) output samples exist
        assert sum(p.size for p in parts) == -(-fed * rate_out // rate_in)
    np.testing.assert_allclose(np.concatenate(parts), whole, atol=1e-6)


def test_matches_offline_resampling_up_to_the_filter_delay() -> None:
    # A 300 Hz tone resampled 16 kHz -> 24 kHz: the causal filter delays it by
    # (61 - 1) / 2 = 30 samples at 48 kHz = 15 samples at 24 kHz; after that shift the
    # streamed output equals scipy's zero-phase resample_poly away from the edges.
    t = np.arange(16000) / 16000
    x = (0.5 * np.sin(2 * np.pi * 300 * t)).astype(np.float32)
    streamed = StreamResampler(16000, 24000)
    assert round(streamed.delay_s * 24000) == 15
    y = streamed.process(x)
    offline = resample(x, 16000, 24000)
    np.testing.assert_allclose(y[15 + 1000 : 20000], offline[1000 : 20000 - 15], atol=2e-3)


def test_pcm16_identity_returns_the_same_bytes() -> None:
    data = np.arange(-5, 5, dtype="<i2").tobytes()
    assert StreamResampler(16000, 16000).process_pcm16(data) == data
