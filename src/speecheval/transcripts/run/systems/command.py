"""``command``: any program that reads a WAV and writes a transcript in a supported format.

The argument list comes from the manifest with ``{input}`` (the 16 kHz mono WAV),
``{output}`` (where the transcript goes; its suffix picks the format), ``{seed}`` and
``{sample}`` replaced; no shell is involved. It runs in the manifest's folder with a time
limit. The raw answer is the output file as written (``response<suffix>``) with the
program's ``stdout.txt`` and ``stderr.txt``; a non-zero exit, a timeout, no output or an
output that does not parse in its format is a failed job with the reason. The program's
peak memory is its own (``wait4``'s ``ru_maxrss``).

The program is given only a minimal environment and the variables its ``env`` names
(:func:`speecheval.core.redact.child_environment`), never the key variables of the
other systems or of this process; what it prints is scrubbed of those it was given
before a reason quotes it (the runner scrubs every file it keeps as well).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from ....core.child_groups import kill_group, owned_group
from ....core.errors import InputError
from ....core.hashing import sha256_file
from ....core.redact import child_environment, run_scrubber
from ... import formats
from ...formats.segment import Segment
from ...score.declarations import DECLARATION_KEYS
from ..input_audio import Pcm
from ..manifest import CommandSystem
from .base import Answer

ADAPTER = "command"
_POLL_S = 0.02
_STDERR_TAIL = 300


class Command:
    """A user program as a system."""

    adapter = ADAPTER

    def __init__(self, name: str, spec: CommandSystem, folder: Path) -> None:
        self.name = name
        self.spec = spec
        self.folder = folder
        self.native_context_s = spec.native_context_s
        program = spec.command[0]
        found = shutil.which(program, path=os.environ.get("PATH")) or (
            str(folder / program) if (folder / program).is_file() else None)
        if found is None:
            raise InputError(f"system {name}: the program {program!r} is neither on PATH nor "
                             f"a file in {folder}")
        self.program = found

    def identity(self) -> dict[str, Any]:
        return {"backend": ADAPTER, "command": list(self.spec.command),
                "program": self.program, "output_suffix": self.spec.output_suffix,
                "timeout_s": self.spec.timeout_s, "native_context_s": self.native_context_s,
                **self.model_revision(), **self.spec.declared().report_dict()}

    def model_revision(self) -> dict[str, Any]:
        files = {arg: sha256_file(self.folder / arg) for arg in self.spec.command
                 if "{" not in arg and (self.folder / arg).is_file()}
        return {"version": self.spec.version, "files": files}

    def config(self) -> dict[str, Any]:
        # a manifest without ``env`` keeps the configuration (and lineage) it always had
        # and one without declarations too
        unset = ({"env"} if not self.spec.env else set()) | {
            key for key in DECLARATION_KEYS if getattr(self.spec, key) is None}
        return {"adapter": ADAPTER, **self.spec.model_dump(mode="json", exclude=unset)}

    def transcribe(self, pcm: Pcm, seed: int, sample_id: str, scratch: Path) -> Answer:
        wav = scratch / "input.wav"
        wav.write_bytes(pcm.wav())
        output = scratch / f"output{self.spec.output_suffix}"
        values = {"{input}": str(wav), "{output}": str(output), "{seed}": str(seed),
                  "{sample}": sample_id}
        argv = [_fill(arg, values) for arg in self.spec.command]
        argv[0] = self.program
        out, err = scratch / "stdout.txt", scratch / "stderr.txt"
        with open(out, "wb") as stdout, open(err, "wb") as stderr:
            process = subprocess.Popen(argv, cwd=self.folder, stdout=stdout, stderr=stderr,
                                       stdin=subprocess.DEVNULL, start_new_session=True,
                                       env=child_environment(self.spec.env))
            with owned_group(process.pid):
                code, peak, timed_out = _wait(process, self.spec.timeout_s)
        files = {"stdout.txt": out.read_bytes(), "stderr.txt": err.read_bytes()}
        suffix = self.spec.output_suffix
        if output.is_file():
            files[f"response{suffix}"] = output.read_bytes()
        stop = f"timed out after {self.spec.timeout_s:g} s" if timed_out else (
            f"exit status {code}")
        reason = None
        if timed_out:
            reason = f"the program ran past its {self.spec.timeout_s:g} s limit"
        elif code != 0:
            # scrubbed before it is cut, so no end of a secret is left at the cut
            printed = run_scrubber(env=self.spec.env)(
                files["stderr.txt"].decode("utf-8", "replace"))
            tail = " ".join(printed.split())
            reason = f"the program exited with status {code}: {tail[-_STDERR_TAIL:]}"
        elif not output.is_file():
            reason = f"the program wrote no {output.name}"
        else:
            try:
                formats.load(output, session_id=sample_id)
            except InputError as exc:
                reason = f"the output is not a valid transcript: {exc.problem}"
        return Answer(files, "failed" if reason else "succeeded", reason, stop,
                      peak_memory_bytes=peak, peak_memory_scope="job")


def _fill(arg: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        arg = arg.replace(key, value)
    return arg


def _wait(process: subprocess.Popen[bytes], timeout_s: float) -> tuple[int, int, bool]:
    """(exit status, peak memory in bytes, whether it was killed for time) of ``process``,
    reaped with ``wait4`` so its own peak memory is known.

    The program runs in a session of its own (so a time-out can kill all it started), which
    also keeps it out of the terminal's Ctrl-C: when the wait is cut short (Ctrl-C, SIGTERM,
    any error) the program's group is killed and reaped here, or it would run on after
    the command has exited."""
    deadline = time.monotonic() + timeout_s
    timed_out = False
    try:
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if not timed_out and time.monotonic() > deadline:
                timed_out = True
                kill_group(process.pid)
            time.sleep(_POLL_S)
    except BaseException:
        kill_group(process.pid)
        process.wait()
        raise
    process.returncode = os.waitstatus_to_exitcode(status)
    return process.returncode, int(usage.ru_maxrss) * 1024, timed_out


def parse(folder: Path, sample_id: str) -> list[Segment]:
    """The segments of the saved output file, read in its format, as the sample's."""
    found = sorted(folder.glob("response.*"))
    return [replace(seg, session_id=sample_id)
            for seg in formats.load(found[0], session_id=sample_id).segments]


def words(folder: Path, sample_id: str) -> list[Segment] | None:
    """The output's segments when its format gives one timed word each (CTM); ``None``
    for any other format."""
    found = sorted(folder.glob("response.*"))
    return parse(folder, sample_id) if formats.format_of(found[0]).word_timed else None
