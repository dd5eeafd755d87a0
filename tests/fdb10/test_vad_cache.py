"""The VAD cache: a warm run skips the model, a bad entry is recomputed, a new key misses.

Trees hold real speech (the committed espeak-ng sentences) so Silero really runs; the
model is counted by wrapping ``SileroVad.segments`` (one worker: all in this process).
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from speecheval.core.audio import Audio, read_mono
from speecheval.core.errors import InputError
from speecheval.core.timeline import Span
from speecheval.fdb.v10.scoring.unified import UnifiedResult, score_tree
from speecheval.vad import cache as vad_cache
from speecheval.vad.cache import CachedSegments, VadCache, default_cache_dir
from speecheval.vad.silero import SileroSettings, SileroVad

from .treekit import Spec, interrupt, write_tree

UI = "synthetic_user_interruption"
SENTENCES = Path(__file__).resolve().parents[1] / "data" / "vad"


def speech_track(name: str, lead_s: float, total_s: float) -> np.ndarray:
    """A sentence placed ``lead_s`` into ``total_s`` seconds of silence, as int16."""
    sentence = read_mono(SENTENCES / f"speech_{name}.wav").samples
    track = np.zeros(round(total_s * 16000), dtype=np.float32)
    start = round(lead_s * 16000)
    track[start: start + sentence.size] = sentence[: track.size - start]
    return (track * 32767).astype(np.int16)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """Three interruption samples with distinct speech tracks (three distinct SHA-256)."""
    specs = [Spec(UI, f"u{i}", 6.0, [("yes", 5.0, 5.3)], interrupt(1.5, 2.5),
                  audio=speech_track(name, lead, 6.0))
             for i, (name, lead) in enumerate([("a", 0.5), ("b", 1.0), ("a", 1.2)])]
    return write_tree(tmp_path / "tree", specs)


@pytest.fixture
def model_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the files the Silero model segments in this process (one entry a file;
    the scorer hands them to ``segments_many`` a few at a time)."""
    calls: list[int] = []
    original = SileroVad.segments_many

    def counted(self: SileroVad, audios: Sequence[Audio], *args: object,
                **kwargs: object) -> list[list[Span]]:
        calls.extend(1 for _ in audios)
        return original(self, audios, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(SileroVad, "segments_many", counted)
    return calls


@pytest.fixture(autouse=True)
def _files_never_settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """The trees here are written moments before they are scored, so the hash memo keeps
    nothing (files changed within ``SETTLED_NS`` are not remembered) -- unless the machine
    is slow enough for 2 s to pass first; tests that count hashing or cache entries must
    not depend on that. The memo's own tests set their value over this one."""
    from speecheval.fdb.common import hash_memo

    monkeypatch.setattr(hash_memo, "SETTLED_NS", 10**18)


def entries(folder: Path) -> list[Path]:
    """The VAD cache's entries (not the hash memo, which lives in the same folder)."""
    return sorted(p for p in folder.glob("*/*.json") if p.parent.name != "hashes")


def rows(result: UnifiedResult) -> list[dict[str, object]]:
    return [row.report_dict() for row in result.rows]


def test_warm_run_does_not_call_the_model(tree: Path, tmp_path: Path,
                                          model_calls: list[int]) -> None:
    folder = tmp_path / "cache"
    cold = score_tree(tree, vad_cache=folder)
    assert len(model_calls) == 3 and len(entries(folder)) == 3
    assert cold.vad_cache.lookups == {"hit": 0, "miss": 3, "corrupt": 0}
    warm = score_tree(tree, vad_cache=folder)
    assert len(model_calls) == 3  # no new call
    assert warm.vad_cache.lookups == {"hit": 3, "miss": 0, "corrupt": 0}
    assert rows(warm) == rows(cold)
    assert warm.summary.report_dict() == cold.summary.report_dict()
    assert any(row["segments"] for row in rows(cold))  # Silero found speech to cache


def test_no_cache_always_runs_the_model(tree: Path, model_calls: list[int]) -> None:
    first = score_tree(tree)
    second = score_tree(tree)
    assert len(model_calls) == 6
    assert first.vad_cache.folder is None
    assert second.vad_cache.lookups == {"hit": 0, "miss": 0, "corrupt": 0}
    assert rows(first) == rows(second)


def test_corrupt_entries_are_detected_and_recomputed(tree: Path, tmp_path: Path,
                                                     model_calls: list[int]) -> None:
    folder = tmp_path / "cache"
    cold = score_tree(tree, vad_cache=folder)
    first, second, _ = entries(folder)
    # a valid JSON entry whose segment was edited: its checksum no longer matches
    entry = json.loads(first.read_text())
    entry["result"]["segments"][0][1] += 1_000_000
    first.write_text(json.dumps(entry))
    # an entry cut in half, as a write without the atomic rename could leave it
    second.write_bytes(second.read_bytes()[: second.stat().st_size // 2])
    repaired = score_tree(tree, vad_cache=folder)
    assert len(model_calls) == 3 + 2
    assert repaired.vad_cache.lookups == {"hit": 1, "miss": 0, "corrupt": 2}
    assert rows(repaired) == rows(cold)
    again = score_tree(tree, vad_cache=folder)  # the entries were rewritten whole
    assert again.vad_cache.lookups == {"hit": 3, "miss": 0, "corrupt": 0}
    assert len(model_calls) == 5


def identity(**changes: object) -> dict[str, object]:
    base = SileroVad().identity()
    return base | changes


FOUND = CachedSegments(16000, 96000, (Span(544000, 1568000), Span(2000000, 6000000,
                                                                  open_at_end=True)))
AUDIO_SHA = "ab" * 32


def test_an_entry_is_found_only_under_the_same_audio_model_and_settings(tmp_path: Path
                                                                        ) -> None:
    VadCache(tmp_path, identity()).put(AUDIO_SHA, FOUND)
    assert VadCache(tmp_path, identity()).get(AUDIO_SHA) == ("hit", FOUND)
    other_settings = identity(settings=SileroVad(SileroSettings(threshold=0.6)).identity()
                              ["settings"])
    assert VadCache(tmp_path, other_settings).get(AUDIO_SHA) == ("miss", None)
    assert VadCache(tmp_path, identity(model_sha256="0" * 64)).get(AUDIO_SHA) == ("miss",
                                                                               None)
    assert VadCache(tmp_path, identity(computation_16k="x")).get(AUDIO_SHA) == ("miss",
                                                                             None)
    assert VadCache(tmp_path, identity()).get("cd" * 32) == ("miss", None)


def test_an_entry_under_another_key_is_not_trusted(tmp_path: Path) -> None:
    """An entry copied to another key's name (right checksum, wrong key) is corrupt."""
    cache = VadCache(tmp_path, identity())
    cache.put(AUDIO_SHA, FOUND)
    source = cache.path(vad_cache.cache_key(AUDIO_SHA, identity()))
    target = cache.path(vad_cache.cache_key("cd" * 32, identity()))
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(source.read_bytes())
    assert cache.get("cd" * 32) == ("corrupt", None)


def test_an_interrupted_write_leaves_no_entry(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    cache = VadCache(tmp_path, identity())

    def killed(*args: object) -> None:
        raise KeyboardInterrupt  # the run stops between writing and renaming

    monkeypatch.setattr(os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        cache.put(AUDIO_SHA, FOUND)
    monkeypatch.undo()
    key = vad_cache.cache_key(AUDIO_SHA, identity())
    folder = cache.path(key).parent
    assert list(tmp_path.rglob("*")) == [folder]  # the folder, no file in it
    # a temporary file left by a killed process is never read as an entry
    (folder / f".{key}.json.x1y2.tmp").write_text(json.dumps({"result": 1}))
    assert cache.get(AUDIO_SHA) == ("miss", None)


def test_entries_are_not_synced_one_by_one_and_an_empty_one_is_recomputed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cold run writes hundreds of entries: no fsync each (milliseconds apiece); what
    a power cut could then leave, an empty entry, is found corrupt, never trusted."""
    synced: list[int] = []
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd))
    cache = VadCache(tmp_path, identity())
    assert cache.put(AUDIO_SHA, FOUND)
    assert synced == []
    assert cache.get(AUDIO_SHA) == ("hit", FOUND)
    cache.path(vad_cache.cache_key(AUDIO_SHA, identity())).write_bytes(b"")
    assert cache.get(AUDIO_SHA) == ("corrupt", None)


def test_an_unwritable_folder_only_loses_the_cache(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    cache = VadCache(blocked, identity())
    assert cache.put(AUDIO_SHA, FOUND) is False
    assert cache.get(AUDIO_SHA) == ("miss", None)


@pytest.mark.parametrize(("env", "xdg", "want"), [
    ("/somewhere/vad", "/x", "/somewhere/vad"),
    ("off", "/x", None),
    ("OFF", None, None),
    ("", "/x", "/x/speecheval/vad"),
    ("", "relative/path", "HOME/.cache/speecheval/vad"),  # XDG: relative paths are ignored
    ("", None, "HOME/.cache/speecheval/vad"),
])
def test_default_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, env: str,
                        xdg: str | None, want: str | None) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv(vad_cache.ENV_VAR, env)
    if xdg is None:
        monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_CACHE_HOME", xdg)
    expected = None if want is None else Path(want.replace("HOME", str(tmp_path)))
    assert default_cache_dir() == expected


def cli(tree: Path, out: Path, *extra: str) -> str:
    from click.testing import CliRunner

    from speecheval.fdb.v10.cli import fdb10

    result = CliRunner().invoke(fdb10, ["unified-score", "--tree", str(tree), "--out",
                                        str(out), "--jobs", "1", *extra])
    assert result.exit_code == 0, result.output
    return result.output


def test_cold_and_warm_runs_write_the_same_bytes(tree: Path, tmp_path: Path,
                                                 model_calls: list[int]) -> None:
    folder = tmp_path / "cache"
    cold_out = cli(tree, tmp_path / "out", "--vad-cache", str(folder))
    (tmp_path / "out").rename(tmp_path / "cold")  # same command again: same recorded line
    warm_out = cli(tree, tmp_path / "out", "--vad-cache", str(folder))
    assert f"VAD cache {folder}: 0 hits, 3 misses, 0 corrupt" in cold_out
    assert f"VAD cache {folder}: 3 hits, 0 misses, 0 corrupt" in warm_out
    assert len(model_calls) == 3
    for name in ("unified.json", "unified-samples.jsonl"):
        assert (tmp_path / "out" / name).read_bytes() == (tmp_path / "cold" / name).read_bytes()
    record = json.loads((tmp_path / "out" / "unified.json").read_text())
    assert record["provenance"]["settings"]["vad_cache"] == "read-write"
    assert str(folder) not in (tmp_path / "out" / "unified.json").read_text()


def test_cache_off_runs_the_model_and_says_so(tree: Path, tmp_path: Path,
                                              model_calls: list[int],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPEECHEVAL_VAD_CACHE", str(tmp_path / "env-cache"))
    output = cli(tree, tmp_path / "out", "--vad-cache", "off")
    assert "VAD cache: off" in output and len(model_calls) == 3
    assert not (tmp_path / "env-cache").exists()
    record = json.loads((tmp_path / "out" / "unified.json").read_text())
    assert record["provenance"]["settings"]["vad_cache"] == "off"
    # the environment variable chooses the folder when the option is not given
    cli(tree, tmp_path / "out2")
    assert len(entries(tmp_path / "env-cache")) == 3


def test_an_empty_cache_option_is_refused(tree: Path, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    from speecheval.cli import main

    code = main(["fdb10", "unified-score", "--tree", str(tree), "--out",
                 str(tmp_path / "out"), "--vad-cache", " "])
    assert code == 2
    err = capsys.readouterr().err
    assert err.strip() == "error: --vad-cache needs a folder or 'off', got an empty value"
    assert not (tmp_path / "out").exists()


def test_a_wav_changed_after_caching_is_still_refused(tree: Path, tmp_path: Path) -> None:
    """A hit never skips the manifest check: the bytes must still be the listed ones."""
    folder = tmp_path / "cache"
    score_tree(tree, vad_cache=folder)
    wav = tree / UI / "u1" / "output.wav"
    wav.write_bytes(wav.read_bytes()[:-2] + b"\x01\x00")
    with pytest.raises(InputError, match="differs from manifest.json"):
        score_tree(tree, vad_cache=folder)



def count_hashing(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Names of the hash functions called on output.wav bytes or files, in call order."""
    from speecheval.fdb.common import hash_memo, speech

    hashed: list[str] = []
    for module, name in ((speech, "sha256_bytes"), (speech, "sha256_file"),
                         (hash_memo, "sha256_file")):
        original = getattr(module, name)
        monkeypatch.setattr(module, name, lambda data, _f=original, _n=name: (
            hashed.append(_n), _f(data))[1])
    return hashed


def test_a_warm_run_starts_no_worker_and_hashes_each_file_once(
        tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Cold: each WAV hashed once, from the bytes the model reads. Warm with two jobs:
    each hashed once, in a thread, and no worker process is started."""
    hashed = count_hashing(monkeypatch)
    folder = tmp_path / "cache"
    score_tree(tree, vad_cache=folder)
    assert hashed == ["sha256_bytes"] * 3

    class NoProcesses:
        def __init__(self, *args: object, **kwargs: object) -> None:
            raise AssertionError("a warm run started a worker process")

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", NoProcesses)
    hashed.clear()
    warm = score_tree(tree, workers=2, vad_cache=folder)
    assert warm.vad_cache.lookups == {"hit": 3, "miss": 0, "corrupt": 0}
    assert hashed == ["sha256_file"] * 3


def test_a_bad_sample_stops_the_run_while_hits_are_verified(tree: Path,
                                                            tmp_path: Path) -> None:
    """The hits are hashed in the background while the samples load; a loading error
    still stops the run with its own message (the background work is abandoned)."""
    folder = tmp_path / "cache"
    score_tree(tree, vad_cache=folder)
    (tree / UI / "u2" / "output.json").write_text("{}")
    with pytest.raises(InputError, match="output.json differs from asr.json"):
        score_tree(tree, workers=2, vad_cache=folder)


def test_a_cold_run_starts_the_model_before_the_samples_load(
        tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With two jobs the worker processes get the misses before the samples are read,
    so Silero runs while this process loads (the model needs nothing loaded)."""
    from speecheval.fdb.v10.scoring import unified as scoring

    events: list[str] = []
    real_pool, real_load = concurrent.futures.ProcessPoolExecutor, scoring.load_samples

    class RecordedPool(real_pool):  # type: ignore[misc, valid-type]
        def submit(self, *args: object, **kwargs: object) -> object:
            if "model started" not in events:  # the executor seam submits item by item
                events.append("model started")
            return super().submit(*args, **kwargs)

    def recorded_load(*args: object) -> object:
        events.append("samples loading")
        return real_load(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", RecordedPool)
    monkeypatch.setattr(scoring, "load_samples", recorded_load)
    cold = score_tree(tree, workers=2, vad_cache=None)
    assert events == ["model started", "samples loading"]
    assert rows(cold) == rows(score_tree(tree, workers=1))  # the same segments either way


def test_a_warm_command_imports_neither_the_model_nor_pydantic(tree: Path,
                                                               tmp_path: Path) -> None:
    """A fresh interpreter running the command on a warm cache: the segments come from
    the cache and the tree files are well formed, so onnxruntime (the model), pydantic
    (the schemas' fallback), multiprocessing (the workers), numpy.ma and soundfile (plain
    WAV headers are read directly), importlib.metadata with email and socket (versions
    and RECORD from the .dist-info folders, core/dist_version.py) are never imported, and
    numpy starts no OpenBLAS threads: a warm run pays for its work."""
    import subprocess
    import sys

    folder = tmp_path / "cache"
    score_tree(tree, vad_cache=folder)
    code = (
        "import json, os, sys\n"
        "from speecheval.cli import main\n"
        f"code = main(['fdb10', 'unified-score', '--tree', {str(tree)!r}, '--jobs', '2',\n"
        f"             '--vad-cache', {str(folder)!r}, '--out', {str(tmp_path / 'out')!r}])\n"
        "heavy = ('onnxruntime', 'pydantic', 'yaml', 'multiprocessing', 'numpy.ma', 'scipy',\n"
        "         'soundfile', 'importlib.metadata', 'email', 'socket')\n"
        "from threadpoolctl import threadpool_info\n"
        "print(json.dumps([code, [m for m in heavy if m in sys.modules],\n"
        "                  [i['num_threads'] for i in threadpool_info()]]))\n")
    src = Path(__file__).resolve().parents[2] / "src"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=300,
                          env={key: value for key, value in os.environ.items()
                               if key != "OPENBLAS_NUM_THREADS"} | {"PYTHONPATH": str(src)})
    # numpy was loaded with one OpenBLAS thread (the CLI's pin, core/numeric_env.py)
    assert json.loads(done.stdout.splitlines()[-1]) == [0, [], [1]]
    assert "3 hits, 0 misses" in done.stdout


def test_files_untouched_since_they_were_hashed_are_not_read_again(
        tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The hash memo (fdb/common/hash_memo.py): once the files have settled, a warm run
    reads none of them; a file changed since, even to the same size and with its
    modification time set back, is read and refused."""
    from speecheval.fdb.common import hash_memo

    monkeypatch.setattr(hash_memo, "SETTLED_NS", 0)  # the tree's files are seconds old
    folder = tmp_path / "cache"
    cold = score_tree(tree, vad_cache=folder)
    hashed = count_hashing(monkeypatch)
    first_warm = score_tree(tree, workers=2, vad_cache=folder)  # hits checked in threads
    assert hashed == []  # the cold run's reader remembered the files it hashed
    second_warm = score_tree(tree, vad_cache=folder)
    assert hashed == []
    assert rows(first_warm) == rows(second_warm) == rows(cold)
    wav = tree / UI / "u1" / "output.wav"
    before = wav.stat()
    wav.write_bytes(wav.read_bytes()[:-2] + b"\x01\x00")
    os.utime(wav, ns=(before.st_atime_ns, before.st_mtime_ns))  # as `touch -d` would
    assert (wav.stat().st_size, wav.stat().st_mtime_ns) == (before.st_size,
                                                             before.st_mtime_ns)
    with pytest.raises(InputError, match="differs from manifest.json"):
        score_tree(tree, vad_cache=folder)
    assert hashed == ["sha256_file"]


def test_files_changed_just_before_or_while_hashed_are_not_remembered(
        tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from speecheval.fdb.common import hash_memo

    # files changed within SETTLED_NS of being hashed (here: all, whatever the machine's
    # speed) are hashed by every run
    monkeypatch.setattr(hash_memo, "SETTLED_NS", 10**18)
    folder = tmp_path / "cache"
    score_tree(tree, vad_cache=folder)
    hashed = count_hashing(monkeypatch)
    for _ in range(2):
        score_tree(tree, vad_cache=folder)
        assert hashed == ["sha256_file"] * 3
        hashed.clear()
    monkeypatch.setattr(hash_memo, "SETTLED_NS", 0)
    original = hash_memo.sha256_file

    def touched_while_hashed(path: str) -> str:
        digest = original(path)
        os.utime(path, ns=(1, 1))  # same bytes, other times: the stat after differs
        return digest

    monkeypatch.setattr(hash_memo, "sha256_file", touched_while_hashed)
    score_tree(tree, vad_cache=folder)
    monkeypatch.setattr(hash_memo, "sha256_file", original)
    # the run below would hash the files anyway (utime moved their ctime): only the memo
    # shows that nothing changed while hashed was kept
    assert [json.loads(memo.read_text())["files"]
            for memo in (folder / "hashes").glob("*.json")] in ([], [{}])
    hashed = count_hashing(monkeypatch)
    score_tree(tree, vad_cache=folder)
    assert hashed == ["sha256_file"] * 3  # nothing was remembered by the run before


def test_an_unreadable_memo_means_every_file_is_hashed(
        tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from speecheval.fdb.common import hash_memo

    monkeypatch.setattr(hash_memo, "SETTLED_NS", 0)
    folder = tmp_path / "cache"
    score_tree(tree, vad_cache=folder)
    (memo,) = (folder / "hashes").glob("*.json")
    memo.write_text("{not json")
    hashed = count_hashing(monkeypatch)
    score_tree(tree, vad_cache=folder)
    assert hashed == ["sha256_file"] * 3
    hashed.clear()
    score_tree(tree, vad_cache=folder)  # and it was written again
    assert hashed == []



def test_the_provenance_record_hashes_no_file_the_run_hashed_already(
        tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """manifest.json and asr.json were hashed when they were read, the model files by
    the VAD's identity: the record takes those hashes (the same values: the record is
    unchanged) instead of reading the three files again."""
    from speecheval.core import provenance
    from speecheval.fdb.common.speech import vad_model_files

    before = score_tree(tree, vad_cache=tmp_path / "cache").summary.provenance
    hashed: list[Path] = []
    monkeypatch.setattr(provenance, "sha256_file", lambda path: hashed.append(path))
    after = score_tree(tree, vad_cache=tmp_path / "cache").summary.provenance
    assert hashed == []
    assert after == before
    assert set(after.models) == {"silero_vad.onnx"}
    # and those hashes are the files' own, computed here independently
    digest = lambda path: hashlib.sha256(path.read_bytes()).hexdigest()  # noqa: E731
    assert {name: after.inputs[name] for name in ("manifest.json", "asr.json")} == {
        name: digest(tree / name) for name in ("manifest.json", "asr.json")}
    assert after.models == {path.name: digest(path) for path in vad_model_files().values()}
