"""Numbers in annotation files and options: plain decimals only, one-line errors, exit 2.

Python's ``float`` reads ``1_000``, ``0x10`` (no: ``float.fromhex`` only, but ``int``
does), ``nan``, ``inf``, ``1e400`` (inf) and non-ASCII digits such as ``١٢``. None of them
is a time an annotation tool writes, md-eval reads ``1_000`` as 1 and dscore as 1000, so
they are refused with the file and the line (issue 10, items 11 and 17); so are
overlapping UEM regions of one file (item 16), which md-eval refuses and dscore merges.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from speecheval.cli import main
from speecheval.core.errors import InputError
from speecheval.transcripts.formats.ctm import CTM
from speecheval.transcripts.formats.raw_tagged import RawTagged
from speecheval.transcripts.formats.rttm import RTTM
from speecheval.transcripts.formats.seglst import SegLST
from speecheval.transcripts.formats.stm import STM
from speecheval.transcripts.formats.textgrid import TextGrid
from speecheval.transcripts.formats.uem import UEM

BAD_NUMBERS = ["1_000", "0x10", "nan", "inf", "-inf", "1e400", "١٢", "1.5s", "1,5", ""]


def _rttm(value: str) -> str:
    return f"SPEAKER f 1 0 1 <NA> <NA> A <NA> <NA>\nSPEAKER f 1 {value} 1 <NA> <NA> B <NA> <NA>\n"


def _uem(value: str) -> str:
    return f"f 1 0 1\ng 1 {value} 20\n"


def _stm(value: str) -> str:
    return f"f 1 A 0 1 hello\nf 1 B 0 {value} world\n"


def _ctm(value: str) -> str:
    return f"f 1 0 0.5 hello\nf 1 1 {value} world\n"


def _ctm_confidence(value: str) -> str:
    return f"f 1 0 0.5 hello 0.9\nf 1 1 0.5 world {value}\n"


LINE_FORMATS: list[tuple[str, Callable[[str], str], Callable[[Path], object]]] = [
    ("rttm", _rttm, RTTM.load),
    ("uem", _uem, UEM.load),
    ("stm", _stm, STM.load),
    ("ctm", _ctm, CTM.load),
    ("ctm-confidence", _ctm_confidence, CTM.load),
]


@pytest.mark.parametrize("value", [v for v in BAD_NUMBERS if v])
@pytest.mark.parametrize(("name", "build", "load"), LINE_FORMATS, ids=[f[0] for f in LINE_FORMATS])
def test_line_formats_refuse_non_decimal_numbers(tmp_path: Path, name: str,
                                                 build: Callable[[str], str],
                                                 load: Callable[[Path], object],
                                                 value: str) -> None:
    path = tmp_path / f"x.{name}"
    path.write_text(build(value), encoding="utf-8")
    with pytest.raises(InputError) as info:
        load(path)
    message = str(info.value)
    assert message.startswith(f"{path}: line 2: "), message
    assert repr(value) in message


@pytest.mark.parametrize(("name", "build", "load"), LINE_FORMATS, ids=[f[0] for f in LINE_FORMATS])
def test_line_formats_accept_plain_decimals(tmp_path: Path, name: str,
                                            build: Callable[[str], str],
                                            load: Callable[[Path], object]) -> None:
    for value in ("10", "10.25", ".5", "10.", "1e1", "1E+1"):
        path = tmp_path / f"{value}.{name}"
        path.write_text(build(value), encoding="utf-8")
        load(path)  # no error


def test_rttm_value_is_exact_decimal() -> None:
    # "1e1" is ten seconds; "10." too.
    assert [t.start for t in RTTM.parse(_rttm("1e1")).turns] == [0.0, 10.0]


def test_absurd_times_are_refused() -> None:
    # 2e8 s would overflow the int64 microsecond sums; no recording lasts three years.
    with pytest.raises(InputError, match="line 2: bad onset: '2e8' seconds is more than"):
        RTTM.parse(_rttm("2e8"), path="x.rttm")


@pytest.mark.parametrize("value", ["1_000", "nan", "Infinity", "١٢"])
def test_seglst_refuses_non_decimal_strings(tmp_path: Path, value: str) -> None:
    path = tmp_path / "x.json"
    path.write_text(f'[{{"session_id": "f", "words": "hi", "start_time": "{value}", '
                    '"end_time": 5}]', encoding="utf-8")
    with pytest.raises(InputError, match="segment 0: start_time: not a"):
        SegLST.load(path)


def test_seglst_refuses_json_nan(tmp_path: Path) -> None:
    # Python's json module reads the non-standard NaN token as float("nan").
    path = tmp_path / "x.json"
    path.write_text('[{"session_id": "f", "words": "hi", "start_time": NaN, "end_time": 5}]',
                    encoding="utf-8")
    with pytest.raises(InputError, match="segment 0: start_time: not a"):
        SegLST.load(path)


def test_textgrid_refuses_infinite_time(tmp_path: Path) -> None:
    path = tmp_path / "x.TextGrid"
    path.write_text('File type = "ooTextFile"\nObject class = "TextGrid"\nxmin = 0\n'
                    'xmax = 1e400\ntiers? <exists>\nsize = 0\nitem []:\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"x.TextGrid: line 4: xmax: not a finite number: '1e400'"):
        TextGrid.load(path)


def test_raw_tagged_ignores_non_ascii_digit_tags() -> None:
    # [١٢] is not a time tag (ASCII digits only); it is dropped like any other [...] tag,
    # so the segment keeps the time of [1.5] instead of 12 s.
    segments = RawTagged.parse("[1.5][S01]hello [١٢]world[3.0]\n", "f").segments
    assert [(s.start, s.end, s.words) for s in segments] == [(1.5, 3.0, "hello world")]


# --- command-line options (item 11) -----------------------------------------------------

REF = "SPEAKER f 1 0 4 <NA> <NA> A <NA> <NA>\n"


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path]:
    ref, hyp = tmp_path / "ref.rttm", tmp_path / "hyp.rttm"
    ref.write_text(REF)
    hyp.write_text("SPEAKER f 1 0 3 <NA> <NA> X <NA> <NA>\n")
    return ref, hyp


@pytest.mark.parametrize("value", ["nan", "inf", "1e400", "-1", "-0.25", "1_0", "0x10", "",
                                   "2e8"])
def test_der_collar_refused_in_one_line(pair: tuple[Path, Path], value: str,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    ref, hyp = pair
    code = main(["transcripts", "der", "--ref", str(ref), "--hyp", str(hyp),
                 f"--collar={value}"])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert err.startswith("error: --collar: ") and err.count("\n") == 1, err


@pytest.mark.parametrize("value", ["nan", "inf", "1e400", "-1", "0", "1_000", "f=nan"])
def test_der_duration_refused_in_one_line(pair: tuple[Path, Path], value: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    ref, hyp = pair
    code = main(["transcripts", "der", "--ref", str(ref), "--hyp", str(hyp),
                 "--duration", value])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err.startswith("error: --duration ") and err.count("\n") == 1, err


def test_der_collar_zero_and_decimal_accepted(pair: tuple[Path, Path],
                                              capsys: pytest.CaptureFixture[str]) -> None:
    ref, hyp = pair
    for value in ("0", "0.5", "1e-1"):
        assert main(["transcripts", "der", "--ref", str(ref), "--hyp", str(hyp),
                     f"--collar={value}", "--json"]) == 0
    capsys.readouterr()


# --- overlapping UEM regions (item 16) ----------------------------------------------------

OVERLAPPING_UEM = "f 1 0 10\n; comment\nf 1 5 20\n"


def test_der_refuses_overlapping_uem_regions(pair: tuple[Path, Path], tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    ref, hyp = pair
    uem = tmp_path / "x.uem"
    uem.write_text(OVERLAPPING_UEM)
    code = main(["transcripts", "der", "--ref", str(ref), "--hyp", str(hyp), "--uem", str(uem)])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err == (f"error: {uem}: line 3: region 5-20 of file 'f' overlaps region 0-10 on "
                   "line 1 (regions may touch, not overlap)\n")


def test_cp_refuses_overlapping_uem_regions(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    stm = tmp_path / "ref.stm"
    stm.write_text("f 1 A 0 4 hello world\n")
    uem = tmp_path / "x.uem"
    uem.write_text(OVERLAPPING_UEM)
    code = main(["transcripts", "cp", "--ref", str(stm), "--hyp", str(stm), "--uem", str(uem)])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err.startswith(f"error: {uem}: line 3: region 5-20 of file 'f' overlaps region 0-10")


def test_touching_uem_regions_are_fine(pair: tuple[Path, Path], tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    ref, hyp = pair
    touching, whole = tmp_path / "touch.uem", tmp_path / "whole.uem"
    touching.write_text("f 1 2 10\nf 1 0 2\n")
    whole.write_text("f 1 0 10\n")
    outputs = []
    for uem in (touching, whole):
        assert main(["transcripts", "der", "--ref", str(ref), "--hyp", str(hyp), "--uem",
                     str(uem), "--collar", "0", "--json"]) == 0
        outputs.append(capsys.readouterr().out.replace(str(uem), "UEM"))
    # [0, 2] + [2, 10] scores exactly what [0, 10] scores.
    assert outputs[0] == outputs[1]


def test_overlap_is_checked_per_file_and_in_microseconds() -> None:
    UEM.parse("f 1 0 10\ng 1 5 20\n")  # different files: fine
    UEM.parse("f 1 0 10.0000004\nf 1 10 20\n")  # equal after rounding to the microsecond
    with pytest.raises(InputError, match="line 2: region 10-20 of file 'f' overlaps"):
        UEM.parse("f 1 0 10.000001\nf 1 10 20\n")


def test_manifest_duration_beyond_three_years_is_refused(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    # A finite but absurd duration_s (YAML 1.0e+300) used to overflow the int64
    # microsecond arrays with a traceback; it is refused like any bad value, naming the key.
    example = Path(__file__).resolve().parents[2] / "examples" / "transcripts"
    data = tmp_path / "data"
    shutil.copytree(example, data)
    manifest = data / "manifest.yaml"
    text = manifest.read_text(encoding="utf-8")
    first = text.index("duration_s:")
    end = text.index("\n", first)
    manifest.write_text(text[:first] + "duration_s: 1.0e+300" + text[end:], encoding="utf-8")
    code = main(["transcripts", "score", "--manifest", str(manifest), "--out",
                 str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert ("samples[0].duration_s (line 19): must be a positive number of seconds up to "
            "1e+08, got 1e+300") in err
    assert not (tmp_path / "out").exists()
