"""Run one official v1.5 evaluation script unchanged, in this interpreter, with two gaps of
this machine bridged (``python official_runner.py SCRIPT [ARGS...]``).

The scripts load Silero with ``torch.hub.load("snakers4/silero-vad", ...)``, which
downloads the model (no network here), and read audio with ``torchaudio.load``
(torchaudio is not a dependency of speecheval). The bridge answers the hub call with the
same Silero model shipped in the ``silero-vad`` wheel (its TorchScript build, as the hub
returns it) and, only when torchaudio is absent, gives the script a ``torchaudio`` whose
``load`` reads PCM with soundfile as float32 in [-1, 1], channels first, as torchaudio
does; any other use of that stand-in fails loudly. Everything else is the script's own.
"""

from __future__ import annotations

import importlib.util
import runpy
import sys
import types
from pathlib import Path
from typing import Any

SILERO_REPO = "snakers4/silero-vad"


def _hub_load(repo_or_dir: str, model: str, *args: Any, **kwargs: Any) -> Any:
    if repo_or_dir != SILERO_REPO or model != "silero_vad":
        raise RuntimeError(f"official_runner: no network for torch.hub {repo_or_dir}/{model}")
    import silero_vad

    return silero_vad.load_silero_vad(onnx=False), None


def _audio_loader() -> types.ModuleType:
    import soundfile
    import torch

    def load(path: Any) -> tuple[Any, int]:
        data, rate = soundfile.read(str(path), dtype="float32", always_2d=True)
        return torch.from_numpy(data.T.copy()), rate

    def resample(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("official_runner: the torchaudio stand-in does not resample")

    module = types.ModuleType("torchaudio")
    module.load = load  # type: ignore[attr-defined]
    module.functional = types.SimpleNamespace(resample=resample)  # type: ignore[attr-defined]
    return module


def main() -> None:
    script, *args = sys.argv[1:]
    if importlib.util.find_spec("torch") is not None:
        import torch

        torch.hub.load = _hub_load
    if importlib.util.find_spec("torchaudio") is None:
        sys.modules["torchaudio"] = _audio_loader()
    sys.path.insert(0, str(Path(script).parent))
    sys.argv = [script, *args]
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main()
