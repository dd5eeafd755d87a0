"""Pairing a reference and a hypothesis by id, and refusing ids found on one side only.

Every scorer here pairs the two sides by an id: ``cp``, ``orc`` and ``tcp`` by session,
``der`` by RTTM file, ``wer`` by utterance, ``transcripts score`` by the session each file
of a sample names. An id on one side only is no error to the arithmetic: its reference
counts as all deletions or all missed speech, its hypothesis as all insertions or false
alarms, so a session renamed on one side turns a cpWER of 23 % into 208 % without a word.
As in meeteval, such a pair is refused, naming the ids missing on each side; ``--partial``
scores only the ids both sides name and lists the others, in the output and on standard
error. This module is the one place that decides it, for every command.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from ..core.errors import InputError
from ..core.log import get_logger

_log = get_logger(__name__)

SHOWN_IDS = 5
"""Ids listed per side in a message; the rest are counted (a corpus may differ in all)."""

PARTIAL_PREFIX = "--partial: "
"""How every line that says what ``--partial`` scored or left out begins."""

PARTIAL_HELP = ("Score only the ids (sessions, files, utterances) that both REF and HYP "
                "name, and list the others; without it, such a pair is refused.")


@dataclass(frozen=True)
class IdMatch:
    """The ids of one reference/hypothesis pair: those both name (``common``) and those
    only one side names (each sorted). ``kind`` names what an id is, for messages."""

    kind: str
    common: frozenset[str]
    missing_in_hypothesis: tuple[str, ...]
    missing_in_reference: tuple[str, ...]

    @classmethod
    def of(cls, kind: str, reference: Iterable[str], hypothesis: Iterable[str]) -> IdMatch:
        """The match of the two sides' ids (repeats ignored).

        >>> IdMatch.of("session", ["a", "b"], ["b", "c"]).describe()
        "missing in the hypothesis (1): 'a'; missing in the reference (1): 'c'"
        """
        ref, hyp = set(reference), set(hypothesis)
        return cls(kind, frozenset(ref & hyp), tuple(sorted(ref - hyp)), tuple(sorted(hyp - ref)))

    @property
    def complete(self) -> bool:
        """Whether both sides name the same ids."""
        return not self.missing_in_hypothesis and not self.missing_in_reference

    def keeps(self, identifier: str) -> bool:
        """Whether ``identifier`` is scored (both sides name it)."""
        return identifier in self.common

    def describe(self) -> str:
        """The ids missing on each side, at most :data:`SHOWN_IDS` of each, the rest counted.

        >>> IdMatch.of("file", [str(i) for i in range(7)], []).describe()
        "missing in the hypothesis (7): '0', '1', '2', '3', '4' and 2 more"
        """
        parts = [f"missing in the {side} ({len(ids)}): {_listed(ids)}"
                 for side, ids in (("hypothesis", self.missing_in_hypothesis),
                                   ("reference", self.missing_in_reference)) if ids]
        return "; ".join(parts)

    def partial_line(self) -> str:
        """What ``--partial`` scored and left out, one line for the output and stderr.

        >>> IdMatch.of("session", ["a", "b"], ["b"]).partial_line()  # doctest: +ELLIPSIS
        "--partial: scored 1 session id named on both sides; left out: missing in the ..."
        """
        scored = (f"{PARTIAL_PREFIX}scored {len(self.common)} {self.kind} "
                  f"id{'' if len(self.common) == 1 else 's'} named on both sides")
        return f"{scored}; left out: {self.describe()}" if not self.complete else scored

    def report_dict(self) -> dict[str, Any]:
        """The ``partial`` object of a ``--json`` answer."""
        return {"kind": self.kind, "scored_ids": len(self.common),
                "missing_in_hypothesis": list(self.missing_in_hypothesis),
                "missing_in_reference": list(self.missing_in_reference)}


def _listed(ids: tuple[str, ...]) -> str:
    shown = ", ".join(repr(i) for i in ids[:SHOWN_IDS])
    return shown if len(ids) <= SHOWN_IDS else f"{shown} and {len(ids) - SHOWN_IDS} more"


def match_ids(kind: str, reference: Iterable[str], hypothesis: Iterable[str], *,
              partial: bool, reference_path: Path | str, hypothesis_path: Path | str,
              sample_id: str | None = None) -> IdMatch:
    """The ids to score of a pair whose sides name ``reference`` and ``hypothesis`` ids.

    Ids on one side only are an :class:`InputError` (exit 2) naming them, unless
    ``partial``; even then a pair with no id in common is refused, as nothing would be
    scored.
    """
    match = IdMatch.of(kind, reference, hypothesis)
    if match.complete:
        return match
    if not partial:
        raise refusal(match, reference_path, hypothesis_path, sample_id)
    if not match.common:
        raise InputError(f"no {kind} id is named by both this file and the reference "
                         f"{reference_path} ({match.describe()}): nothing to score, even "
                         "with --partial", path=hypothesis_path, sample_id=sample_id)
    return match


def refusal(match: IdMatch, reference_path: Path | str, hypothesis_path: Path | str,
            sample_id: str | None = None) -> InputError:
    """The error refusing a pair whose ids differ: the ids missing on each side."""
    return InputError(f"{match.kind} ids differ from those of the reference {reference_path}: "
                      f"{match.describe()} (--partial scores only the ids both name)",
                      path=hypothesis_path, sample_id=sample_id)


def partial_option(command: Any) -> Any:
    """The ``--partial`` flag, worded once for every scoring command."""
    return click.option("--partial", is_flag=True, help=PARTIAL_HELP)(command)


def warn_left_out(match: IdMatch) -> None:
    """Name on stderr the ids ``--partial`` left out (nothing when none were)."""
    if not match.complete:
        _log.warning("warning: %s", match.partial_line())
