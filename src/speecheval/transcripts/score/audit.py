"""The data audit of each sample, and synthetic samples kept apart from real ones.

The spec (数据与许可) asks every sample to pin its upstream data revision, its licence
and its reference type, and synthetic samples (controlled noise, synthetic overlap,
generated silence) to be reported apart from real recordings. A sample of the score
manifest may declare:

- ``data_revision``: the upstream dataset revision (a commit, a tag, a version);
- ``license``: the licence of the audio and reference;
- ``reference_type``: ``human`` (transcribed by people), ``corrected`` (a machine draft
  people corrected) or ``synthetic`` (generated together with the sample);
- ``synthetic``: whether the sample itself is generated or mixed rather than recorded.

A synthetic reference means a synthetic sample (the text the audio was made from), so
``reference_type: synthetic`` with ``synthetic: false`` is refused.

Keeping them apart is done before any table is built (:func:`grouped_apart`): each
synthetic sample moves to the scenario ``<scenario> (synthetic)``, so every aggregate
(scenario tables, parity tracks, cross-scenario values, maturity) groups synthetic and real
samples apart. A synthetic group is not core and stands for no phase-one scenario: it is
reported, and never makes a run ``decision_grade``. A manifest that declares no audit
field is scored exactly as before.

This module imports pydantic: import it inside the command that reads a manifest.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import AfterValidator, model_validator

from ...core.errors import InputError
from ...core.schema import Schema

if TYPE_CHECKING:
    from .manifest import Manifest, SampleSpec

ReferenceType = Literal["human", "corrected", "synthetic"]
AUDIT_KEYS = ("data_revision", "license", "reference_type", "synthetic")
SYNTHETIC_SUFFIX = " (synthetic)"
UNDECLARED = "undeclared"


def _declared(value: str) -> str:
    """An audit value names something: blank is refused (leave the key out instead)."""
    if not value.strip():
        raise ValueError(f"must be a non-empty string, got {value!r}")
    return value


_Declared = Annotated[str, AfterValidator(_declared)]


class SampleAudit(Schema):
    """The audit keys of a sample (every one optional; see the module)."""

    data_revision: _Declared | None = None
    license: _Declared | None = None
    reference_type: ReferenceType | None = None
    synthetic: bool | None = None

    @model_validator(mode="after")
    def _synthetic_reference(self) -> SampleAudit:
        if self.reference_type == "synthetic" and self.synthetic is False:
            raise ValueError("reference_type is synthetic, so the sample is synthetic too "
                             "(the audio was made from that text), but synthetic is false")
        return self

    @property
    def is_synthetic(self) -> bool:
        """Generated or mixed rather than recorded (``synthetic: true``, or a synthetic
        reference)."""
        return self.synthetic is True or self.reference_type == "synthetic"

    def audit_declared(self) -> bool:
        """Whether any audit key is given."""
        return any(getattr(self, key) is not None for key in AUDIT_KEYS)

    def audit_dict(self) -> dict[str, Any]:
        """The four keys as ``samples.jsonl`` holds them (``null``: not declared)."""
        return {key: getattr(self, key) for key in AUDIT_KEYS}


def audited(manifest: Manifest) -> bool:
    """Whether any sample of ``manifest`` declares an audit key."""
    return any(sample.audit_declared() for sample in manifest.samples)


def grouped_apart(manifest: Manifest) -> Manifest:
    """``manifest`` with each synthetic sample in the scenario ``<name> (synthetic)``
    (not core, covering no phase-one scenario); the manifest itself when none is
    synthetic. A scenario left without samples is dropped (a judgement about it is about
    its synthetic group then); an InputError when the manifest already declares a
    scenario of that name."""
    if not any(sample.is_synthetic for sample in manifest.samples):
        return manifest
    scenarios = dict(manifest.scenarios)
    samples: list[SampleSpec] = []
    for sample in manifest.samples:
        if not sample.is_synthetic:
            samples.append(sample)
            continue
        group = sample.scenario + SYNTHETIC_SUFFIX
        if group in manifest.scenarios:
            raise InputError(f"scenarios: {group!r} is declared, but that name is the group "
                             f"speecheval gives the synthetic samples of {sample.scenario!r};"
                             " rename the scenario", path=manifest.path, sample_id=sample.id)
        scenarios[group] = manifest.scenarios[sample.scenario].model_copy(
            update={"core": False, "covers": None})
        samples.append(sample.model_copy(update={"scenario": group}))
    used = {sample.scenario for sample in samples}
    kept = {name: spec for name, spec in sorted(scenarios.items()) if name in used}
    judgements = tuple(j if j.scenario is None or j.scenario in kept else
                       j.model_copy(update={"scenario": j.scenario + SYNTHETIC_SUFFIX})
                       for j in manifest.judgements)
    return manifest.model_copy(update={"scenarios": kept, "samples": tuple(samples),
                                       "judgements": judgements})


@dataclass(frozen=True)
class ScenarioAudit:
    """What one scenario's samples declare: synthetic or real, reference types, licences
    and data revisions (each counted over samples, ``undeclared`` where missing)."""

    synthetic: bool
    reference_types: Mapping[str, int]
    licenses: Mapping[str, int]
    data_revisions: Mapping[str, int]

    def report_dict(self) -> dict[str, Any]:
        """The scenario's ``data_audit`` entry in ``scenarios.json``."""
        return {"synthetic": self.synthetic, "reference_types": dict(self.reference_types),
                "licenses": dict(self.licenses), "data_revisions": dict(self.data_revisions)}


def scenario_audits(manifest: Manifest) -> dict[str, ScenarioAudit]:
    """The audit of each scenario of a manifest already :func:`grouped_apart`; empty when
    no sample declares an audit key (the report then has no audit)."""
    if not audited(manifest):
        return {}
    result = {}
    for name in manifest.scenarios:
        samples = [s for s in manifest.samples if s.scenario == name]
        result[name] = ScenarioAudit(
            synthetic=samples[0].is_synthetic,
            reference_types=_counts(s.reference_type for s in samples),
            licenses=_counts(s.license for s in samples),
            data_revisions=_counts(s.data_revision for s in samples))
    return result


def _counts(values: Any) -> dict[str, int]:
    return dict(sorted(Counter(UNDECLARED if v is None else v for v in values).items()))
