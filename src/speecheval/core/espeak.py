"""espeak-ng, run the one way speecheval runs it: the text on standard input, the speech
bounded, by one of two engines.

Debian's ``espeak-ng`` program speaks wherever it is on ``PATH`` (the pinned outputs were
made by it); elsewhere the libespeak-ng of the ``espeakng-loader`` wheel (the ``speech``
extra) speaks through :mod:`speecheval.core.espeak_library`, a process that takes the
same command line. :func:`engine_version` says which engine and version spoke (datasets
record it; a dataset built by the other engine has other audio, so another revision).
``SPEECHEVAL_ESPEAK=library`` sets the program aside (a machine with Debian's package runs
as one without it: the tests and CI prove the main job needs no apt step that way);
``SPEECHEVAL_ESPEAK=program`` refuses the library.

A text given as a command-line argument is limited by the system (on Linux one argument
holds at most 128 KiB: a 1 MB ``say:`` failed with "Argument list too long" before
espeak-ng started) and is read as options when it starts with ``-``. On standard input
(``--stdin``: read at once, to its end) it is neither, and the audio is byte for byte the
audio the argument gave (``tests/core/test_espeak.py`` compares the two).

Once the text is in, its length no longer stops it, so the speech is bounded instead: the
WAV espeak-ng writes is watched as it grows, and past one hour of audio
(:data:`~speecheval.core.timebase.MAX_AUDIO_MS`, the longest a turn, a reply or a
recording may be) espeak-ng is stopped and the text refused. A long text then costs
seconds and at most that one file, not hours of synthesis and gigabytes of disk.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from functools import cache
from pathlib import Path

from .errors import InputError
from .extras import installed, missing
from .timebase import MAX_AUDIO_MS

EXECUTABLE = "espeak-ng"
EXTRA = "speech"
"""The extra that brings the library engine (core/extras.py)."""
OUTPUT_RATE = 22_050
"""espeak-ng's own voices write 16-bit mono at this rate (44 100 bytes a second, after a
44-byte header)."""
ENGINE_VARIABLE = "SPEECHEVAL_ESPEAK"
"""``program`` (Debian's only), ``library`` (the wheel's only) or ``auto`` (unset: the
program where it is on ``PATH``, else the library)."""
CHOICES = ("auto", "program", "library")
_POLL_S = 0.05


def choice() -> str:
    """The engine :data:`ENGINE_VARIABLE` asks for; :class:`InputError` (exit 2) for a
    value that is none of :data:`CHOICES`."""
    value = os.environ.get(ENGINE_VARIABLE, "").strip() or "auto"
    if value not in CHOICES:
        raise InputError(f"{ENGINE_VARIABLE}={value!r} is not an espeak-ng engine: "
                         f"expected {', '.join(CHOICES)}")
    return value


def program() -> str | None:
    """Debian's ``espeak-ng`` program on ``PATH``, if there is one and
    ``SPEECHEVAL_ESPEAK=library`` does not set it aside."""
    return None if choice() == "library" else shutil.which(EXECUTABLE)


def library_installed() -> bool:
    """Whether the wheel's library is installed and ``SPEECHEVAL_ESPEAK=program`` does
    not refuse it."""
    return choice() != "program" and installed("espeakng_loader")


def available() -> bool:
    """Whether either engine can speak here."""
    return program() is not None or library_installed()


def engine(needed_for: str = "synthesized speech") -> list[str]:
    """The command line that speaks: Debian's program where it is installed, else the
    wheel's library; :class:`~speecheval.core.extras.MissingExtra` (exit 2) naming the
    ``speech`` extra where neither is (:data:`ENGINE_VARIABLE` may force one of the two:
    :class:`InputError` where the forced program is absent)."""
    found = program()
    if found is not None:
        return [found]
    if choice() == "program":
        raise InputError(f"{needed_for} needs Debian's espeak-ng program "
                         f"({ENGINE_VARIABLE}=program), which is not on PATH: install it "
                         f"with apt-get install espeak-ng, or unset {ENGINE_VARIABLE}")
    if not installed("espeakng_loader"):
        raise missing(f"{needed_for} (without Debian's espeak-ng program)", "espeakng-loader",
                      EXTRA)
    return [sys.executable, "-m", "speecheval.core.espeak_library"]


@cache
def engine_version(needed_for: str = "synthesized speech") -> str:
    """The engine's ``--version`` first line: ``eSpeak NG text-to-speech: 1.51  Data at:
    /usr/lib/...`` for Debian's program, ``eSpeak NG text-to-speech: 1.52.0 (libespeak-ng
    of espeakng-loader 0.2.4)`` for the wheel's library."""
    result = subprocess.run([*engine(needed_for), "--version"], capture_output=True,
                            text=True, timeout=30, check=True)
    return result.stdout.strip().splitlines()[0]


def speak_to_wav(text: str, wav: Path, *, voice: str, wpm: int, timeout_s: float,
                 executable: str | None = None, max_audio_s: float = MAX_AUDIO_MS / 1000,
                 needed_for: str = "synthesized speech") -> subprocess.CompletedProcess[str]:
    """Run espeak-ng speaking ``text`` in ``voice`` at ``wpm`` words a minute into ``wav``.

    ``executable`` is a program to run instead of :func:`engine`'s (whose error names
    ``needed_for`` where neither engine is installed). The finished process
    is returned for the caller to judge its exit status and stderr (each caller says what
    could not be spoken). A text holding a NUL (which espeak-ng would read as its end),
    speech past ``max_audio_s`` (one hour) and a run past ``timeout_s`` are
    :class:`InputError`; espeak-ng is stopped first.
    """
    max_bytes = 44 + 2 * round(OUTPUT_RATE * max_audio_s)
    if "\0" in text:
        raise InputError("the text to speak holds a NUL character, which espeak-ng would "
                         "take for its end")
    command = engine(needed_for) if executable is None else [executable]
    argv = [*command, "-v", voice, "-s", str(wpm), "-w", str(wav), "--stdin"]
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    deadline = time.monotonic() + timeout_s
    # One communicate, on its own thread, writes the whole text, reads stderr and waits;
    # this thread watches the WAV and the clock meanwhile. (A communicate retried after
    # its timeout writes no more of its input: past the 64 KiB a pipe holds, an engine
    # slower to start than one poll, as the library's Python process is, waited forever.)
    outcome: list[bytes] = []
    talker = threading.Thread(
        target=lambda: outcome.append(process.communicate(text.encode("utf-8", "replace"))[1]),
        name="espeak-stdin", daemon=True)
    talker.start()
    try:
        while talker.is_alive():
            talker.join(_POLL_S)
            if wav.is_file() and wav.stat().st_size > max_bytes:   # running or finished
                raise InputError(f"the text to speak ({len(text)} characters) lasts more "
                                 f"than {max_audio_s:g} s as speech; shorten it")
            if talker.is_alive() and time.monotonic() > deadline:
                raise InputError(f"espeak-ng did not finish speaking the text "
                                 f"({len(text)} characters) within {timeout_s:g} s")
    finally:
        if process.poll() is None:
            process.kill()
        talker.join()
    stderr = outcome[0] if outcome else b""
    return subprocess.CompletedProcess(argv, process.returncode, None,
                                       stderr.decode("utf-8", "replace"))
