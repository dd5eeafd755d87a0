"""The playout buffer: placement at arrival, in order, and clear dropping unplayed audio."""

from __future__ import annotations

import numpy as np

from speecheval.session.run.realtime import Playout


def _ones(n: int, value: int = 1) -> np.ndarray:
    return np.full(n, value, dtype=np.int16)


def test_packets_play_from_arrival_or_end_of_previous_audio() -> None:
    p = Playout()
    # 100 samples at 50 play 50..150; the next, arriving at 60, waits until 150 -> 150..250;
    # one arriving at 400 (buffer drained) plays from its arrival.
    assert p.place(_ones(100, 1), arrival=50) == 50
    assert p.place(_ones(100, 2), arrival=60) == 150
    assert p.place(_ones(10, 3), arrival=400) == 400
    track = p.render(500)
    assert track[:50].sum() == 0
    assert set(track[50:150]) == {1} and set(track[150:250]) == {2}
    assert track[250:400].sum() == 0 and set(track[400:410]) == {3}
    assert p.received == 210


def test_clear_drops_only_unplayed_audio_and_reports_played_position() -> None:
    p = Playout()
    p.place(_ones(300, 1), arrival=0)          # plays 0..300
    p.place(_ones(300, 2), arrival=10)         # queued: 300..600
    dropped, played = p.clear(at=350)
    # at 350: 350 samples played (300 of the first, 50 of the second); 250 dropped
    assert (dropped, played) == (250, 350)
    assert p.end == 350
    track = p.render(700)
    assert set(track[300:350]) == {2} and track[350:].sum() == 0
    # audio after the clear plays from its own arrival
    assert p.place(_ones(10, 5), arrival=400) == 400
    assert p.received == 610


def test_clear_when_nothing_is_buffered_drops_nothing() -> None:
    p = Playout()
    p.place(_ones(100), arrival=0)
    assert p.clear(at=500) == (0, 100)
    assert p.render(600).sum() == 100


def test_render_cuts_audio_scheduled_past_the_session_end() -> None:
    p = Playout()
    p.place(_ones(100), arrival=950)
    assert p.render(1000)[950:].sum() == 50


def test_segments_cover_the_track_in_pieces_and_skip_cleared_audio() -> None:
    p = Playout()
    p.place(_ones(100, 1), arrival=50)     # 50..150
    p.place(_ones(100, 2), arrival=60)     # 150..250
    first = p.segment(0, 120)
    assert first.size == 120 and first[:50].sum() == 0 and set(first[50:]) == {1}
    p.clear(at=200)                        # 200..250 dropped; already-segmented audio stays
    second = p.segment(120, 300)
    assert set(second[:30]) == {1} and set(second[30:80]) == {2} and second[80:].sum() == 0
    np.testing.assert_array_equal(np.concatenate([first, second]), p.render(300))


def test_audible_end_ignores_queued_silence_and_follows_clears() -> None:
    p = Playout()
    p.place(_ones(100), arrival=0)                     # audible, plays 0..100
    p.place(np.zeros(200, np.int16), arrival=0, audible=False)  # silence, 100..300
    # the buffer runs to 300, but audible audio only to 100
    assert (p.end, p.audible_end) == (300, 100)
    p.place(_ones(100), arrival=0)                     # audible again, 300..400
    assert p.audible_end == 400
    p.clear(at=250)                                    # drops 250..400
    assert (p.end, p.audible_end) == (250, 250)
