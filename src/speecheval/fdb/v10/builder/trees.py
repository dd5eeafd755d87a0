"""Build FDB v1.0 reference trees from generated speech.

The trees have the layout that ``reference-export`` and ``reference-asr`` write (see
``docs/fdb10-tree.md``), so ``unified-score`` reads them like a real capture. Their
transcripts are the exact placement times of the committed espeak-ng clips, and asr.json
says so in its ``asr`` identity rather than pretending to be Parakeet.

* :func:`build_mini_tree`: the bundled ~50-sample tree that covers every outcome class of
  every unified metric; each :class:`BuiltSample` records the intended outcome.
* :func:`build_scale_tree`: a seeded tree the size of the full v1.0 set, for the speed
  benchmark.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ....core.canonical_json import dumps
from ....core.hashing import sha256_file
from ....core.output import atomic_write_text, new_output_dir
from .clips import ClipLibrary, load_clips
from .mini import mini_specs
from .render import write_sample
from .scale import scale_specs
from .spec import DECLARED_SIZES, BuiltSample, SampleSpec

TREE_KIND = "fdb-v1.0-reference-tree"
ASR_KIND = "fdb-v1.0-reference-asr"
SCHEMA_VERSION = 1
ASR_IDENTITY = {
    "name": "speecheval-builder",
    "kind": "placement-times",
    "note": "words and times are where the builder placed its espeak-ng clips, not ASR output",
}


def _check_unique(specs: Sequence[SampleSpec]) -> None:
    seen: set[str] = set()
    for spec in specs:
        if spec.sample_id in seen:
            raise ValueError(f"duplicate sample id {spec.sample_id}")
        seen.add(spec.sample_id)


def _manifest_entry(spec: SampleSpec, files: dict[str, str]) -> dict[str, Any]:
    return {"sample_id": spec.sample_id, "subset": spec.subset, "task": spec.task,
            "input_duration_s": spec.duration_s, "eligible": spec.eligible,
            "reasons": list(spec.reasons), "files": files}


def build_tree(dest: str | Path, specs: Sequence[SampleSpec], *, revision: str,
               generator: dict[str, Any], seed: int = 0,
               clips: ClipLibrary | None = None) -> list[BuiltSample]:
    """Write ``specs`` as a complete reference tree into the new directory ``dest``.

    The tree appears only when every file is written (``new_output_dir``); ``seed``
    drives the background noise. Samples are listed in the order given.
    """
    _check_unique(specs)
    library = load_clips() if clips is None else clips
    entries: list[dict[str, Any]] = []
    transcripts: dict[str, str] = {}
    with new_output_dir(dest) as root:
        for spec in specs:
            files, transcript_sha = write_sample(spec, library, root, seed)
            entries.append(_manifest_entry(spec, files))
            if transcript_sha is not None:
                transcripts[spec.sample_id] = transcript_sha
        manifest = {
            "kind": TREE_KIND, "schema_version": SCHEMA_VERSION,
            "dataset": {"revision": revision, "declared": dict(DECLARED_SIZES)},
            "generator": {**generator, "seed": seed,
                          "speech_index_sha256": library.index_sha256},
            "samples": entries,
        }
        atomic_write_text(root / "manifest.json", dumps(manifest))
        asr = {"kind": ASR_KIND, "schema_version": SCHEMA_VERSION, "asr": ASR_IDENTITY,
               "manifest_sha256": sha256_file(root / "manifest.json"),
               "transcripts": transcripts}
        atomic_write_text(root / "asr.json", dumps(asr))
    return [BuiltSample.from_spec(spec) for spec in specs]


def build_mini_tree(dest: str | Path) -> list[BuiltSample]:
    """The bundled small tree: every outcome class of every unified metric."""
    return build_tree(dest, mini_specs(), revision="speecheval-builder-mini-1",
                      generator={"name": "speecheval-builder", "scale": "mini"})


def build_scale_tree(dest: str | Path, seed: int = 0) -> list[BuiltSample]:
    """A tree the size of the full v1.0 set (727 samples), deterministic from ``seed``."""
    return build_tree(dest, scale_specs(seed), revision=f"speecheval-builder-full-1-seed{seed}",
                      generator={"name": "speecheval-builder", "scale": "full"}, seed=seed)
