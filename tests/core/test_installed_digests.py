"""File digests from an installed distribution's RECORD, and the checks that decide when
the file is hashed instead: a distribution made here, with one file per case."""

from __future__ import annotations

import base64
import hashlib
import os
from pathlib import Path

import pytest

from speecheval.core.installed_digests import installed_sha256


def record_digest(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def test_recorded_digest_unless_the_file_changed(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "demo_pkg"
    package.mkdir()
    written = {"kept.bin": b"abc", "newer.bin": b"def", "resized.bin": b"ghij",
               "unlisted.bin": b"klm"}
    for name, data in written.items():
        (package / name).write_bytes(data)
    # RECORD gives each listed file the digest of other bytes of the same recorded size,
    # so a digest taken from RECORD differs from the file's own
    recorded = {"kept.bin": b"xyz", "newer.bin": b"uvw", "resized.bin": b"rst"}
    info = tmp_path / "demo_pkg-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: demo-pkg\nVersion: 1.0\n")
    (info / "RECORD").write_text("".join(
        f"demo_pkg/{name},sha256={record_digest(data)},{len(data)}\n"
        for name, data in recorded.items()) + "demo_pkg-1.0.dist-info/RECORD,,\n")
    record_time = (info / "RECORD").stat().st_mtime_ns
    for name in written:
        os.utime(package / name, ns=(record_time - 10**9, record_time - 10**9))
    os.utime(package / "newer.bin", ns=(record_time + 10**9, record_time + 10**9))
    monkeypatch.syspath_prepend(str(tmp_path))

    files = [package / name for name in written]
    digests = installed_sha256("demo-pkg", files)
    own = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in files}
    assert digests[package / "kept.bin"] == hashlib.sha256(b"xyz").hexdigest()  # RECORD's
    assert digests[package / "newer.bin"] == own[package / "newer.bin"]      # edited later
    assert digests[package / "resized.bin"] == own[package / "resized.bin"]  # 4 bytes, not 3
    assert digests[package / "unlisted.bin"] == own[package / "unlisted.bin"]
    assert installed_sha256("no-such-dist", files) == own                    # no RECORD
