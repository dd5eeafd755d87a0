"""The ``espeak-ng`` command line that :mod:`speecheval.core.espeak` runs, spoken by the
libespeak-ng of the ``espeakng-loader`` wheel (the ``speech`` extra) where Debian's program
is absent.

It takes the arguments speecheval gives the program and nothing else (``-v VOICE -s WPM
-w WAV --stdin``, or ``--version``) and makes the same library calls the program makes for
them: synchronous output, the voice by name, the rate, then the whole standard input in
one ``espeak_Synth`` call with the program's flags (``espeakCHARS_AUTO | espeakPHONEMES |
espeakENDPAUSE``). Run on Debian's own library and voices (``--library``, ``--data``) it
writes the program's samples exactly (``tests/core/test_espeak_library.py``).

It runs as its own process (``python -m speecheval.core.espeak_library``), as the program
does: the library keeps one global state, so two threads cannot share it, and the caller
keeps one way of bounding speech (the WAV watched as it grows, the process stopped past
an hour or past its time limit). The text never reaches an argument list.
"""

from __future__ import annotations

import argparse
import ctypes
import sys
import wave
from collections.abc import Sequence
from pathlib import Path
from typing import Any

DISTRIBUTION = "espeakng-loader"
AUDIO_OUTPUT_SYNCHRONOUS = 2
POS_CHARACTER = 1
ESPEAK_RATE = 1
SYNTH_FLAGS = 0x0 | 0x100 | 0x1000
"""espeakCHARS_AUTO | espeakPHONEMES | espeakENDPAUSE: the program's own flags."""
EE_OK = 0


class _Voice(ctypes.Structure):
    """``espeak_VOICE``: a voice asked for by its properties (here its language)."""

    _fields_ = [("name", ctypes.c_char_p), ("languages", ctypes.c_char_p),
                ("identifier", ctypes.c_char_p), ("gender", ctypes.c_ubyte),
                ("age", ctypes.c_ubyte), ("variant", ctypes.c_ubyte),
                ("xx1", ctypes.c_ubyte), ("score", ctypes.c_int), ("spare", ctypes.c_void_p)]


_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int,
                             ctypes.c_void_p)


def bundled_paths() -> tuple[str, str]:
    """The wheel's shared library and its ``espeak-ng-data`` folder."""
    import espeakng_loader

    return str(espeakng_loader.get_library_path()), str(espeakng_loader.get_data_path())


def _load(library: str, data: str) -> tuple[Any, int]:
    """The library, initialised for synchronous output on ``data``, and its sample rate."""
    lib = ctypes.CDLL(library)
    lib.espeak_Initialize.restype = ctypes.c_int
    lib.espeak_Initialize.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
    lib.espeak_Info.restype = ctypes.c_char_p
    lib.espeak_Info.argtypes = [ctypes.POINTER(ctypes.c_char_p)]
    lib.espeak_SetVoiceByName.argtypes = [ctypes.c_char_p]
    lib.espeak_SetVoiceByProperties.argtypes = [ctypes.POINTER(_Voice)]
    lib.espeak_SetParameter.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int]
    lib.espeak_SetSynthCallback.argtypes = [_CALLBACK]
    lib.espeak_Synth.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint, ctypes.c_int,
                                 ctypes.c_uint, ctypes.c_uint, ctypes.c_void_p, ctypes.c_void_p]
    rate = lib.espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, data.encode(), 0)
    if rate <= 0:
        raise SystemExit(f"Error: libespeak-ng could not start on the data in {data}")
    return lib, rate


def version_line(lib: Any, source: str) -> str:
    """``eSpeak NG text-to-speech: VERSION (SOURCE)``: the program's first ``--version``
    words, then where the library came from (not the data folder, which differs from one
    environment to the next)."""
    return f"eSpeak NG text-to-speech: {lib.espeak_Info(None).decode()} ({source})"


def bundled_source() -> str:
    """``libespeak-ng of espeakng-loader X``, the wheel's version."""
    from importlib.metadata import version

    return f"libespeak-ng of {DISTRIBUTION} {version(DISTRIBUTION)}"


def speak(lib: Any, rate: int, text: bytes, voice: str, wpm: int, out: Path) -> int:
    """Speak ``text`` into the WAV ``out`` (written as it is made); the exit status.

    The voice is looked up as the program does: by its file name, else as a language
    (``en-gb`` is the voice file ``en-GB-x-rp``... of language ``en-gb``)."""
    if (lib.espeak_SetVoiceByName(voice.encode()) != EE_OK
            and lib.espeak_SetVoiceByProperties(ctypes.byref(_Voice(languages=voice.encode())))
            != EE_OK):
        print("Error: The specified espeak-ng voice does not exist.", file=sys.stderr)
        return 1
    lib.espeak_SetParameter(ESPEAK_RATE, wpm, 0)
    with wave.open(str(out), "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(rate)

        def written(samples: Any, count: int, _events: Any) -> int:
            if count > 0:
                wav.writeframesraw(ctypes.string_at(samples, 2 * count))
            return 0

        callback = _CALLBACK(written)   # kept referenced while the library calls it
        lib.espeak_SetSynthCallback(callback)
        buffer = ctypes.create_string_buffer(text)   # NUL-terminated, as the program's
        status = lib.espeak_Synth(buffer, len(text) + 1, 0, POS_CHARACTER, 0, SYNTH_FLAGS,
                                  None, None)
    if status != EE_OK:
        print(f"Error: espeak_Synth failed (status {status})", file=sys.stderr)
        return 1
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="espeak-ng (libespeak-ng)", allow_abbrev=False)
    parser.add_argument("-v", dest="voice", default="en")
    parser.add_argument("-s", dest="wpm", type=int, default=175)
    parser.add_argument("-w", dest="wav", type=Path)
    parser.add_argument("--stdin", action="store_true")
    parser.add_argument("--version", action="store_true")
    parser.add_argument("--library", help="a libespeak-ng other than the wheel's")
    parser.add_argument("--data", help="its espeak-ng-data folder")
    args = parser.parse_args(argv)
    if args.library is None:
        (library, data), source = bundled_paths(), bundled_source()
    else:
        library, data, source = args.library, args.data, f"libespeak-ng at {args.library}"
    lib, rate = _load(library, data)
    if args.version:
        print(version_line(lib, source))
        return 0
    if args.wav is None or not args.stdin:
        parser.error("speecheval speaks with -w WAV --stdin only")
    return speak(lib, rate, sys.stdin.buffer.read(), args.voice, args.wpm, args.wav)


if __name__ == "__main__":
    sys.exit(main())
