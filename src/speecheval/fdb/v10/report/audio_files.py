"""The page's audio: compressed clips, embedded while they fit a budget, else linked.

Every clip is Opus in Ogg (:mod:`speecheval.report.ogg_opus`), about a twentieth of the
WAV it comes from. While all of them fit the budget the page embeds them and works
alone; past it the page embeds none and links a folder written beside it
(``<page name>-audio/``, named after the page so two pages in one folder keep their own
audio), with a ``SHA256SUMS`` list of its files. All or nothing, so a reader never
wonders why one sample plays and the next does not.

Each clip is described when its player is placed (:class:`~.clips.Clip`) and encoded
later, all at once, on the executor's worker processes (:meth:`AudioFiles.encode_all`),
in the order the players were placed, so the bytes do not depend on how many workers
there were.
"""

from __future__ import annotations

from pathlib import Path

from ....core.errors import InputError
from ....core.executor import Executor
from ....core.hashing import sha256_bytes
from ....core.output import new_output_dir
from ....report import page as pg
from ....report.ogg_opus import MIME
from .clips import Clip, encode_clip

AUDIO_BUDGET_MB = 40.0
"""Audio embedded in a page at most, in MiB before base64 (which adds a third)."""

CHECKSUMS = "SHA256SUMS"
"""The list of the folder's files with their SHA-256, as ``sha256sum`` writes it."""


def audio_folder_name(page: Path) -> str:
    """The linked folder beside ``page``.

    >>> audio_folder_name(Path("out/report.html"))
    'report-audio'
    """
    return f"{page.stem}-audio"


class AudioFiles:
    """The clips of one page, each encoded once, by their path inside the folder."""

    def __init__(self, folder_name: str) -> None:
        self.folder_name = folder_name
        self.files: dict[str, bytes] = {}
        self._pending: dict[str, Clip] = {}
        self._uses: dict[str, int] = {}

    def player(self, caption: str, relative: str, clip: Clip) -> pg.Audio:
        """A player of ``clip``, kept at ``relative`` (encoded once, in
        :meth:`encode_all`, however many players it has)."""
        if relative not in self.files and relative not in self._pending:
            self._pending[relative] = clip
        self._uses[relative] = self._uses.get(relative, 0) + 1
        return pg.Audio(caption, f"{self.folder_name}/{relative}",
                        lambda: self.files[relative], mime=MIME)

    def encode_all(self, executor: Executor) -> None:
        """Encode every clip not encoded yet on ``executor`` (worker processes: reading,
        resampling and the encoder's Python side hold the GIL); an input that changed
        since it was checked is bad input and stops the run."""
        pending, self._pending = self._pending, {}
        results = executor.map(encode_clip, list(pending.values()), stop_on=(InputError,))
        self.files.update(zip(pending, (result.get() for result in results), strict=True))

    @property
    def embedded_bytes(self) -> int:
        """What embedding every player costs (a clip shared by players counts each time)."""
        return sum(len(self.files[name]) * uses for name, uses in self._uses.items())

    def embed_limit(self, budget_mb: float) -> int:
        """The page's embedding limit: everything while it fits ``budget_mb``, else 0."""
        return self.embedded_bytes if self.embedded_bytes <= budget_mb * 2**20 else 0

    def write(self, folder: Path) -> None:
        """Write every clip and the checksum list into the new folder ``folder``."""
        with new_output_dir(folder) as staging:
            lines = []
            for relative, data in sorted(self.files.items()):
                target = staging / relative
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
                lines.append(f"{sha256_bytes(data)}  {relative}\n")
            (staging / CHECKSUMS).write_text("".join(lines), encoding="utf-8")
