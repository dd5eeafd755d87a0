"""``collect_provenance(hashed=...)``: a hash the run already took of the bytes it read
is recorded as it is; the file is not read again."""

from __future__ import annotations

from pathlib import Path

import pytest

from speecheval.core import provenance
from speecheval.core.provenance import collect_provenance

# sha256("abc"), as published in FIPS 180-2, appendix B.1
ABC = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


def test_a_hash_taken_already_is_recorded_without_reading_the_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    read = tmp_path / "read.json"       # hashed by the run when it parsed it
    other = tmp_path / "other.onnx"     # not hashed before: read and hashed here
    other.write_bytes(b"abc")
    hashed: list[Path] = []
    real = provenance.sha256_file
    monkeypatch.setattr(provenance, "sha256_file",
                        lambda path: hashed.append(Path(path)) or real(path))
    record = collect_provenance(command=["x"], settings={}, inputs={"read.json": read},
                                models={"other.onnx": other}, hashed={read: "f" * 64})
    assert record.inputs == {"read.json": "f" * 64}  # read.json does not even exist
    assert record.models == {"other.onnx": ABC}
    assert hashed == [other]
