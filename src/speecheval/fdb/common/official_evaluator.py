"""The pinned official Full-Duplex-Bench v1.0 evaluator: which files, which hashes.

``reference-evaluate`` runs the official evaluator unchanged from a checkout the user
gives, and its numbers are only a reference if they come from the code we pinned:
revision d7336bda1385 of DanielLin94144/Full-Duplex-Bench. Every file below must be in the
checkout with exactly this SHA-256, or the command stops and names the file.
"""

from __future__ import annotations

from pathlib import Path

from ...core.errors import InputError
from ...core.hashing import sha256_file

REVISION = "d7336bda1385"
REPOSITORY = "DanielLin94144/Full-Duplex-Bench"
EVALUATION_DIR = "v1_v1.5/evaluation"

PINNED_SHA256: dict[str, str] = {
    "LICENSE":
        "3711f963c05d0be80d53e5923308a6dee31b203da23435c9cfb7c7b6e4dd5e19",
    "v1_v1.5/dataset/README.md":
        "7318769ddef855012f99bd3a10754a39639af4e5f42ac4cbf0d8b0766a0f3785",
    "v1_v1.5/evaluation/README.md":
        "4a7d2c39f6bff56e21cbca7433ff063761893ab86537ada2b1c1573741ce82a5",
    "v1_v1.5/evaluation/eval_backchannel.py":
        "1bf58f57e3f6041a2516a1c2ac0d715f1199aef2d1aa5b886039df294626167b",
    "v1_v1.5/evaluation/eval_behavior.py":
        "0ff8179a437503581d65787da3a43924b45310c31a98d1bcbadce5c8605ca6f2",
    "v1_v1.5/evaluation/eval_general_before_after.py":
        "e7a59c6d0a850027238c1416a2b4d6803aa5a681b7d84eb1dd7dd7ebee28a2c7",
    "v1_v1.5/evaluation/eval_pause_handling.py":
        "1e86519b4f4543f2f667ce60b9bea2f6148a3bc4255bb20c1ea111b45e0adbb5",
    "v1_v1.5/evaluation/eval_smooth_turn_taking.py":
        "cb7d6b987cd415e1b71b6eea06e67ea8fdc77a1167107e5c0552105bac05b2df",
    "v1_v1.5/evaluation/eval_user_interruption.py":
        "e701c14579c1477577b262265cfff75b28ac2e057beee5ba82572afa2a35963a",
    "v1_v1.5/evaluation/evaluate.py":
        "ae362d718f80428a6fe73d8a87e9e3b8935e86008267f0b2e34d1cc7573f1d4e",
    "v1_v1.5/evaluation/get_timing.py":
        "4f551da4194ab4d9584db964f4b27223914eecf98cbc312388ecf45eaf6f8a17",
    "v1_v1.5/evaluation/icc_gt_distribution.json":
        "92bcd0ff27246aaa9a0136737b476afd456cd393f003944c3394c140e590f2a8",
    "v1_v1.5/evaluation/instruction/behavior.txt":
        "19e5477dac9a9a1e11de126783a0b820b3ecb70db5e91181824fa944e1947977",
    "v1_v1.5/evaluation/significance_test.py":
        "58b14b67ef8efdf15b0560dcbaca8744d1069f4fdab462d691692826bb56da39",
    "v1_v1.5/get_transcript/asr.py":
        "aa52d316164d35aef59b48371ab3206e654d47cd91e5e20c6eed6c5a191e10f4",
}


def verify_checkout(source: Path) -> Path:
    """Check every pinned file of the checkout at ``source``; return its evaluation folder."""
    if not source.is_dir():
        raise InputError("the evaluator checkout is not a directory", path=source)
    for name, expected in sorted(PINNED_SHA256.items()):
        path = source / name
        if not path.is_file():
            raise InputError(f"the evaluator checkout lacks {name} (revision {REVISION})",
                             path=path)
        actual = sha256_file(path)
        if actual != expected:
            raise InputError(f"{name} differs from the pinned official evaluator "
                             f"(revision {REVISION}): sha256 {actual[:12]}..., pinned "
                             f"{expected[:12]}...; use an unchanged checkout", path=path)
    return source / EVALUATION_DIR
