"""Where a record run keeps each session's capture, every attempt of it included.

```
RUN/run.json
RUN/samples/<session>/{input.wav,received.wav,trace.jsonl,status.json}   attempt 1
RUN/samples/<session>/attempts/<N>/{the same four files}                  attempt N >= 2
```

The first attempt lies in the session's folder itself, so a run that was never retried
has the layout it always had. ``record --retry`` adds attempt N + 1 beside the earlier
ones and never rewrites them: a reader that wants "the" capture takes the latest attempt,
and export chooses among them all (the latest that passes its checks).
"""

from __future__ import annotations

from pathlib import Path

RUN_FILE = "run.json"
SAMPLES_DIR = "samples"
STATUS_FILE = "status.json"
TRACE_FILE = "trace.jsonl"
INPUT_FILE = "input.wav"
RECEIVED_FILE = "received.wav"
ATTEMPTS_DIR = "attempts"


def sample_folder(run: Path, sample_id: str) -> Path:
    """The session's folder: its first attempt, and the ``attempts/`` of the later ones."""
    return run / SAMPLES_DIR / sample_id


def attempt_folder(run: Path, sample_id: str, attempt: int) -> Path:
    """Where attempt ``attempt`` (1, 2, ...) of a session lies."""
    base = sample_folder(run, sample_id)
    return base if attempt == 1 else base / ATTEMPTS_DIR / str(attempt)


def attempts(run: Path, sample_id: str) -> list[int]:
    """The session's finished attempts (a status.json written), in order; [] for none."""
    if not (sample_folder(run, sample_id) / STATUS_FILE).is_file():
        return []
    later = sample_folder(run, sample_id) / ATTEMPTS_DIR
    numbers = sorted(int(p.name) for p in later.iterdir()
                     if p.name.isdecimal() and (p / STATUS_FILE).is_file()) \
        if later.is_dir() else []
    return [1, *(n for n in numbers if n >= 2)]


def latest_folder(run: Path, sample_id: str) -> Path:
    """The folder of the session's latest finished attempt (the first one's if none)."""
    done = attempts(run, sample_id)
    return attempt_folder(run, sample_id, done[-1] if done else 1)
