"""What the system under test can output, decided once for the whole manifest.

Speaker attribution and token timestamps are properties of a system, not of a sample:
a system that never names speakers does not start naming them on the sample where all its
runs failed. So support is read from every successful run in the manifest (or taken
from the manifest's ``speaker_attribution`` / ``token_timestamps`` keys when declared),
and a failed run is scored as a failure (DER and cp rates of 1) only for what the system
supports; for the rest it is ``unsupported``, never a rate of 1 or 0.

A run shows speaker attribution when it has a system RTTM or its transcript names a
speaker on every segment; it shows token timestamps when it has word times (``words``) or
its transcript is a CTM.

Where the speaker labels and timestamps come from is the system's declaration
(:mod:`.declarations`), carried beside the support so every measure can read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...core.errors import InputError
from ..formats.segment import has_speakers
from .declarations import Declared
from .inputs import load_transcript
from .manifest import Manifest, RunSpec, SampleSpec


@dataclass(frozen=True)
class SystemSupport:
    """Whether the system gives speaker attribution and token timestamps, and why."""

    speakers: bool
    token_timestamps: bool
    speakers_source: str
    token_timestamps_source: str
    declared: Declared = field(default_factory=Declared)


def _shows_speakers(sample: SampleSpec, run: RunSpec) -> bool:
    """Whether the run names speakers; a transcript that cannot be read shows nothing
    here: its sample's scoring refuses it, in sample order, so that the first bad file
    in the manifest is the one reported (not a later sample's, found by this scan)."""
    if run.rttm is not None:
        return True
    assert run.transcript is not None
    try:
        return has_speakers(load_transcript(run.transcript, sample.id))
    except InputError:
        return False


def _shows_token_times(run: RunSpec) -> bool:
    return run.words is not None or (run.transcript is not None
                                     and run.transcript.suffix.lower() == ".ctm")


def system_support(manifest: Manifest) -> SystemSupport:
    """Declared support where the manifest states it, else inferred from successful runs.

    A declaration of ``false`` that a successful run contradicts is an input error naming
    that sample, because one of the two is wrong and the scores would depend on which.
    """
    done = [(sample, run) for sample in manifest.samples for run in sample.runs
            if run.failure is None]
    speakers_run = next(((s, r) for s, r in done if _shows_speakers(s, r)), None)
    timed_run = next(((s, r) for s, r in done if _shows_token_times(r)), None)
    for key, declared, found in (("speaker_attribution", manifest.speaker_attribution,
                                  speakers_run),
                                 ("token_timestamps", manifest.token_timestamps, timed_run)):
        if declared is False and found is not None:
            raise InputError(f"manifest declares {key}: false, but run {found[1].repeat} "
                             f"of this sample has it", path=manifest.path,
                             sample_id=found[0].id)
    if manifest.speaker_labels is not None and manifest.speaker_attribution is False:
        raise InputError(f"manifest declares speaker_labels: {manifest.speaker_labels}, "
                         "but speaker_attribution: false; a system without speaker "
                         "attribution has no speaker labels to come from anywhere",
                         path=manifest.path)
    return SystemSupport(
        speakers=(manifest.speaker_attribution if manifest.speaker_attribution is not None
                  else speakers_run is not None),
        token_timestamps=(manifest.token_timestamps if manifest.token_timestamps is not None
                          else timed_run is not None),
        speakers_source=_source(manifest.speaker_attribution, speakers_run is not None),
        token_timestamps_source=_source(manifest.token_timestamps, timed_run is not None),
        declared=manifest.declared(),
    )


def _source(declared: bool | None, found: bool) -> str:
    if declared is not None:
        return "declared in the manifest"
    return ("inferred: a successful run shows it" if found
            else "inferred: no successful run in the manifest shows it")
