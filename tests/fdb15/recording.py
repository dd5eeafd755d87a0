"""``fdb15 record`` as the capture tests run it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def record(dataset: Path, url: str, run: Path, *selection: str, grace_s: float,
           agent: str = "native-realtime") -> None:
    """The record command in its own process, as a user runs it."""
    subprocess.run([sys.executable, "-m", "speecheval", "fdb15", "record", "--dataset-root",
                    str(dataset), "--agent", agent, "-o", f"url={url}", "--out",
                    str(run), "--concurrency", "4", "--grace", str(grace_s), *selection],
                   check=True)


def retry_ineligible(run: Path, passes: int) -> None:
    """``fdb15 record --resume RUN --retry ineligible`` up to ``passes`` times, as a user
    whose machine held the sender does: each pass records again only the sessions export
    would not take, and records nothing once every session is eligible."""
    for _ in range(passes):
        subprocess.run([sys.executable, "-m", "speecheval", "fdb15", "record", "--resume",
                        str(run), "--retry", "ineligible"], check=True)
