"""Random RTTM/UEM pairs and their scores frozen from the scorer before the scaling rewrite.

``tests/transcripts/data/der_oracle.json`` holds, for every case, the input texts and
what :func:`score_files` and the ``der`` command gave for them on the per-turn object
implementation (commit fcfaebd, before columnar parsing and the change-point sweep).
``test_der_oracle.py`` scores the same inputs with the current code and compares the
results exactly (the SHA-256 of the ``repr`` of the frozen result objects: every integer
microsecond, every float to the last digit, the mapping and the differences).

The cases mix what the rewrite has to keep: 1-5 speakers a side, overlaps between and
within speakers, touching and zero-length turns, times on and off the 1 ms grid, two
files, UEMs of touching regions that cut turns, a file with system turns only, and every
compat mode and collar. Regenerate (only on purpose, from a trusted commit) with
``PYTHONPATH=src python tests/transcripts/der_oracle.py``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

ORACLE = Path(__file__).parent / "data" / "der_oracle.json"
SETTINGS: list[dict[str, Any]] = [
    {"compat": "speecheval", "collar_s": 0.25},
    {"compat": "speecheval", "collar_s": 0.0},
    {"compat": "speecheval", "collar_s": 0.1, "mapping_region": "uem_minus_collar"},
    {"compat": "md-eval", "collar_s": 0.25},
    {"compat": "md-eval", "collar_s": 0.0},
    {"compat": "dscore", "collar_s": 0.25},
]


def _turn_lines(rng: np.random.Generator, file_id: str, prefix: str) -> list[str]:
    lines = []
    speakers = int(rng.integers(1, 6))
    self_overlap = bool(rng.random() < 0.4)
    fine = bool(rng.random() < 0.3)  # microsecond times, off dscore's 10 ms grid
    for k in range(speakers):
        t = float(rng.uniform(0, 4))
        while t < 40:
            digits = 6 if fine else 3
            start = round(t, digits)
            duration = 0.0 if rng.random() < 0.05 else round(float(rng.uniform(0.1, 5)),
                                                              digits)
            lines.append(f"SPEAKER {file_id} 1 {start:.{digits}f} {duration:.{digits}f} "
                         f"<NA> <NA> {prefix}{k} <NA> <NA>")
            roll = rng.random()
            gap = 0.0 if roll < 0.1 else (float(rng.uniform(-1.5, 0)) if self_overlap
                                         and roll < 0.3 else float(rng.uniform(0, 6)))
            t = max(start + duration + gap, 0.0)
    order = rng.permutation(len(lines))
    return [lines[i] for i in order]


def random_case(seed: int) -> dict[str, str]:
    """Reference, system and UEM text of one case."""
    rng = np.random.default_rng(seed)
    ref, hyp, uem = [], [], []
    for file_id in ("a", "b"):
        ref += _turn_lines(rng, file_id, "r")
        hyp += _turn_lines(rng, file_id, "h")
        cut = round(float(rng.uniform(10, 30)), 3)
        end = round(float(rng.uniform(35, 50)), 3)
        uem += [f"{file_id} 1 {round(float(rng.uniform(0, 3)), 3):.3f} {cut:.3f}",
                f"{file_id} 1 {cut:.3f} {end:.3f}"]
    hyp += [f"SPEAKER c 1 {2 * i}.000 1.500 <NA> <NA> h9 <NA> <NA>" for i in range(3)]
    uem.append("c 1 0.000 10.000")
    return {"ref": "\n".join(ref) + "\n", "hyp": "\n".join(hyp) + "\n",
            "uem": "\n".join(uem) + "\n"}


def score_case(case: dict[str, str]) -> dict[str, str]:
    """SHA-256 of the ``repr`` of every result (or error) of one case under every setting
    (the reprs themselves would make the file ten times larger)."""
    from speecheval.core.errors import InputError
    from speecheval.transcripts.diarization.score import score_files
    from speecheval.transcripts.formats.rttm import RTTM
    from speecheval.transcripts.formats.uem import UEM

    ref, hyp = RTTM.parse(case["ref"]), RTTM.parse(case["hyp"])
    uem = UEM.parse(case["uem"])
    results = {}
    for setting in SETTINGS:
        key = json.dumps(setting, sort_keys=True)
        try:
            text = repr(score_files(ref, hyp, uem, **setting))
        except InputError as exc:
            text = f"InputError: {exc}"
        results[key] = hashlib.sha256(text.encode()).hexdigest()
    return results


def der_command(case: dict[str, str], tmp: Path, extra: list[str]) -> dict[str, Any]:
    """Exit code, stdout and stderr of ``speecheval transcripts der`` on one case."""
    from click.testing import CliRunner

    from speecheval.cli import app

    paths = {}
    for name in ("ref", "hyp", "uem"):
        paths[name] = tmp / f"{name}.txt"
        paths[name].write_text(case[name])
    argv = ["transcripts", "der", "--ref", str(paths["ref"]), "--hyp", str(paths["hyp"]),
            "--json", *extra]
    result = CliRunner().invoke(app, argv)
    return {"code": result.exit_code, "stdout": result.stdout, "stderr": result.stderr}


COMMAND_OPTIONS: list[list[str]] = [[], ["--duration", "45"], ["--compat", "md-eval"],
                                    ["--compat", "dscore"], ["--lattifai-parity"]]
SEEDS = range(40)
COMMAND_SEEDS = range(6)


def main() -> None:
    import tempfile

    cases = []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in SEEDS:
            case = random_case(seed)
            entry: dict[str, Any] = {"seed": seed, **case, "scores": score_case(case)}
            if seed in COMMAND_SEEDS:
                entry["commands"] = {" ".join(extra): der_command(case, Path(tmp), extra)
                                     for extra in COMMAND_OPTIONS}
            cases.append(entry)
    ORACLE.parent.mkdir(exist_ok=True)
    ORACLE.write_text(json.dumps(cases, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
