"""Every registered result type round-trips through its dict form, and sums associate.

The registry is filled by importing every speecheval module, so a result type added
anywhere is found here; :func:`test_every_registered_kind_has_an_example` then fails until
this file can build examples of it. Float fields are drawn as multiples of 1/64: their
sums are exact in binary floating point, so associativity is tested on the way results
combine (field by field), not on rounding.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fdb15.result_examples import FDB15_EXAMPLES  # tests/fdb15, on the path by conftest
from hypothesis import given, settings
from hypothesis import strategies as st
from session.result_examples import SESSION_EXAMPLES  # tests/session, on the path by conftest

import speecheval
from speecheval.core.canonical_json import dumps
from speecheval.core.errors import InputError
from speecheval.core.provenance import (
    PROVENANCE_FILE,
    Provenance,
    collect_provenance,
    read_provenance,
)
from speecheval.core.results import (
    FieldwiseSum,
    Result,
    ResultDecodeError,
    from_dict,
    register,
    registered_kinds,
    to_dict,
)
from speecheval.core.share import Share
from speecheval.core.timeline import Span
from speecheval.fdb.common.aggregate import (
    Bootstrap,
    LatencyQuantiles,
    PooledRatio,
    ShareMetric,
    SubsetCounts,
)
from speecheval.fdb.v10.scoring.interruption import InterruptionSample
from speecheval.fdb.v10.scoring.pause import PauseSample
from speecheval.fdb.v10.scoring.tasks import SubsetResult
from speecheval.fdb.v10.scoring.turn_taking import TurnTakingSample
from speecheval.fdb.v10.scoring.unified import SampleRow, UnifiedSummary
from speecheval.transcripts.diarization.differences import Differences, Occurrence
from speecheval.transcripts.diarization.result import (
    DerComponents,
    DiarizationScore,
    DiarizationUnsupported,
    JerComponents,
    SpeakerCount,
    TurnCounts,
)
from speecheval.transcripts.text.counts import ErrorCounts
from speecheval.transcripts.text.cp import CpResult, SpeakerPair
from speecheval.transcripts.text.hallucination import HallucinationCounts
from speecheval.transcripts.text.orc import OrcResult
from speecheval.transcripts.text.prf import MatchCounts
from speecheval.transcripts.text.wder import WderResult
from speecheval.transcripts.timestamps.coverage import SpeechCoverage
from speecheval.transcripts.timestamps.segment_pairs import SegmentPairTiming
from speecheval.transcripts.timestamps.stats import ErrorValues
from speecheval.transcripts.timestamps.token_times import TokenTiming
from speecheval.transcripts.timestamps.turns import TurnTiming


def _import_everything() -> None:
    for module in pkgutil.walk_packages(speecheval.__path__, "speecheval."):
        if not module.name.endswith(".__main__"):  # runs the CLI when imported
            importlib.import_module(module.name)


_import_everything()

count = st.integers(0, 40)
dyadic = st.integers(0, 64 * 50).map(lambda k: k / 64)
unit_dyadic = st.integers(0, 64).map(lambda k: k / 64)
text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=6)
micros = st.lists(st.integers(0, 10**9), max_size=6)


def error_counts() -> st.SearchStrategy[ErrorCounts]:
    # kept reference tokens k; S <= k; N = k + D; H = k + I
    return st.builds(lambda k, s, d, i: ErrorCounts(min(s, k), d, i, k + d, k + i),
                     count, count, count, count)


def speaker_pair() -> st.SearchStrategy[SpeakerPair]:
    speakers = st.sampled_from([("r", "h"), ("r", None), (None, "h")])
    return st.builds(lambda sid, pair, c: SpeakerPair(sid, pair[0], pair[1], c),
                     text, speakers, error_counts())


def cp_result() -> st.SearchStrategy[CpResult]:
    def build(pairs: list[SpeakerPair]) -> CpResult:
        return CpResult(sum((p.counts for p in pairs), ErrorCounts.zero()),
                        sum(p.reference_speaker is not None for p in pairs),
                        sum(p.hypothesis_speaker is not None for p in pairs),
                        sum(p.hypothesis_speaker is None for p in pairs),
                        sum(p.reference_speaker is None for p in pairs), tuple(pairs))
    return st.lists(speaker_pair(), max_size=4).map(build)


def der_components() -> st.SearchStrategy[DerComponents]:
    return st.builds(lambda m, c, extra, fa, region: DerComponents(m + c + extra, m, fa, c,
                                                                   region),
                     count, count, count, count, count)


def jer_components() -> st.SearchStrategy[JerComponents]:
    return st.integers(0, 10).flatmap(
        lambda n: st.integers(0, 4 * n).map(lambda k: JerComponents(k / 4, n)))


def speaker_count(files: int) -> st.SearchStrategy[SpeakerCount]:
    def per_file(ref: int, hyp: int) -> SpeakerCount:
        return SpeakerCount(1, int(ref == hyp), abs(hyp - ref), hyp - ref, ref, hyp)
    pairs = st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), min_size=files,
                     max_size=files)
    return pairs.map(lambda rows: sum((per_file(r, h) for r, h in rows),
                                      SpeakerCount(0, 0, 0, 0, 0, 0)))


def turn_counts() -> st.SearchStrategy[TurnCounts]:
    return st.builds(lambda merges, empty, rest: TurnCounts(merges + empty + rest, merges,
                                                            empty), count, count, count)


occurrence = st.builds(Occurrence, count, count)


def diarization_score(prefix: str) -> st.SearchStrategy[DiarizationScore]:
    @st.composite
    def build(draw: st.DrawFn) -> DiarizationScore:
        n = draw(st.integers(0, 3))
        ids = tuple(f"{prefix}{i}" for i in range(n))
        excluded, only = draw(der_components()), draw(der_components())
        return DiarizationScore(
            track="main", compat="speecheval", collar_us=250_000, mapping_region="uem",
            file_ids=ids, overlap_included=excluded + only, overlap_excluded=excluded,
            overlap_only=only, jer=draw(jer_components()),
            jer_collared=draw(jer_components()),
            jer_collared_overlap_excluded=draw(jer_components()),
            speaker_count=draw(speaker_count(n)), ref_turns=draw(turn_counts()),
            hyp_turns=draw(turn_counts()),
            mapping=tuple((i, draw(text), draw(text)) for i in ids),
            differences=draw(st.builds(Differences, *[occurrence] * 6)))
    return build()


def error_values() -> st.SearchStrategy[ErrorValues]:
    return micros.map(ErrorValues.of)


def sized_errors(size: int) -> st.SearchStrategy[ErrorValues]:
    return st.lists(st.integers(0, 10**9), min_size=size, max_size=size).map(ErrorValues.of)


def ious(size: int) -> st.SearchStrategy[np.ndarray]:
    return st.lists(unit_dyadic, min_size=size, max_size=size).map(
        lambda xs: np.asarray(xs, dtype=np.float64))


@st.composite
def token_timing(draw: st.DrawFn) -> TokenTiming:
    matched = draw(st.integers(0, 5))
    return TokenTiming(matched + draw(count), draw(sized_errors(matched)),
                       draw(sized_errors(matched)))


@st.composite
def turn_timing(draw: st.DrawFn) -> TurnTiming:
    excluded = [draw(count) for _ in range(4)]
    scorable = draw(st.integers(0, 5))
    matched = draw(count)
    return TurnTiming(sum(excluded) + scorable, *excluded, matched + draw(count), matched,
                      draw(sized_errors(scorable)), draw(sized_errors(scorable)),
                      draw(ious(scorable)))


@st.composite
def segment_pair_timing(draw: st.DrawFn) -> SegmentPairTiming:
    pairs = draw(st.integers(0, 5))
    return SegmentPairTiming(draw(count), draw(count), draw(sized_errors(pairs)),
                             draw(sized_errors(pairs)), draw(ious(pairs)))


def hallucination_counts() -> st.SearchStrategy[HallucinationCounts]:
    def build(nonempty: int, rest: int, extra: int, duration: float) -> HallucinationCounts:
        return HallucinationCounts(nonempty + rest, nonempty,
                                   nonempty + extra if nonempty else 0, duration)
    return st.builds(build, count, count, count, dyadic)


@st.composite
def share(draw: st.DrawFn) -> Share:
    n = draw(count)
    k = draw(st.integers(0, n))
    if n and draw(st.booleans()):
        low = draw(st.integers(0, 64))
        return Share(k, n, (low / 64, draw(st.integers(low, 64)) / 64), "percentile_bootstrap")
    return Share.wilson(k, n)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | dyadic | text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
    max_leaves=8)


def provenance() -> st.SearchStrategy[Provenance]:
    hashes = st.dictionaries(text, st.text("0123456789abcdef", min_size=64, max_size=64),
                             max_size=3)
    return st.builds(Provenance, tool=st.just("speecheval"), tool_version=text, python=text,
                     packages=st.dictionaries(text, st.none() | text, max_size=3),
                     models=hashes, inputs=hashes,
                     settings=st.dictionaries(text, json_values, max_size=4),
                     command=st.lists(text, max_size=4).map(tuple))


# --- FDB v1.0 -----------------------------------------------------------------------------

maybe_us = st.none() | st.integers(0, 10**8)
maybe_dyadic = st.none() | dyadic
pause_sample = st.builds(PauseSample, *[st.booleans()] * 5, *[count] * 3,
                         *[st.integers(0, 10**8)] * 3, count)
turn_taking_sample = st.builds(TurnTakingSample, text, st.integers(0, 10**8), maybe_us,
                               maybe_us, st.integers(0, 10**8))
fdb_span = st.tuples(st.integers(0, 10**8), st.integers(0, 10**6)).map(
    lambda p: Span(p[0], p[0] + p[1]))
interruption_sample = st.builds(
    InterruptionSample, text, st.integers(0, 10**8), st.integers(0, 10**8), st.booleans(),
    st.booleans(), st.booleans(), maybe_us, st.none() | st.booleans(), st.integers(0, 10**8),
    count, maybe_us, maybe_us, st.integers(0, 10**8),
    st.lists(fdb_span, max_size=3).map(tuple))
bootstrap = st.builds(Bootstrap, maybe_dyadic, maybe_dyadic, count, count)
subset_counts = st.builds(SubsetCounts, count, count, count,
                          st.dictionaries(text, count, max_size=3))
share_metric = st.builds(ShareMetric, share(), text, count, count)
pooled_ratio = st.builds(PooledRatio, text, dyadic, dyadic, count, st.none() | bootstrap)
latency_quantiles = st.builds(LatencyQuantiles, text, count, count, maybe_dyadic,
                              st.none() | bootstrap, maybe_dyadic)
subset_result = st.builds(
    SubsetResult, text, subset_counts, maybe_dyadic,
    st.none() | st.dictionaries(text, share_metric | pooled_ratio | latency_quantiles,
                                max_size=3),
    st.booleans(), maybe_dyadic, st.none() | text)
sample_row = st.builds(SampleRow, text, text, text, st.booleans(), dyadic,
                       st.lists(text, max_size=2).map(tuple),
                       st.none() | pause_sample | turn_taking_sample | interruption_sample)


def _any(strategy: st.SearchStrategy[Any]) -> Callable[[str], st.SearchStrategy[Any]]:
    return lambda prefix: strategy


# kind -> (file-id prefix -> strategy); the prefix keeps the files of summed operands apart
EXAMPLES: dict[str, Callable[[str], st.SearchStrategy[Any]]] = {
    "core.share": _any(share()),
    "core.provenance": _any(provenance()),
    "transcripts.error_counts": _any(error_counts()),
    "transcripts.match_counts": _any(st.builds(lambda m, r, h: MatchCounts(m, m + r, m + h),
                                               count, count, count)),
    "transcripts.cp_speaker_pair": _any(speaker_pair()),
    "transcripts.cp_result": _any(cp_result()),
    "transcripts.orc_result": _any(st.builds(
        OrcResult, error_counts(), st.lists(st.none() | text, max_size=3).map(tuple))),
    "transcripts.wder_result": _any(st.builds(lambda e, extra: WderResult(e + extra, e),
                                              count, count)),
    "transcripts.hallucination_counts": _any(hallucination_counts()),
    "transcripts.der_components": _any(der_components()),
    "transcripts.jer_components": _any(jer_components()),
    "transcripts.speaker_count": _any(st.integers(0, 4).flatmap(speaker_count)),
    "transcripts.turn_counts": _any(turn_counts()),
    "transcripts.diarization_score": diarization_score,
    "transcripts.diarization_unsupported": lambda prefix: st.integers(0, 3).map(
        lambda n: DiarizationUnsupported(tuple(f"{prefix}{i}" for i in range(n)),
                                         "no speaker labels")),
    "transcripts.speech_coverage": _any(st.builds(
        lambda s, r, h: SpeechCoverage(s + r, s + h, s), count, count, count)),
    "transcripts.error_values": _any(error_values()),
    "transcripts.token_timing": _any(token_timing()),
    "transcripts.turn_timing": _any(turn_timing()),
    "transcripts.segment_pair_timing": _any(segment_pair_timing()),
    "transcripts.der_difference_occurrence": _any(occurrence),
    "transcripts.der_differences": _any(st.builds(Differences, *[occurrence] * 6)),
    "fdb10.pause_sample": _any(pause_sample),
    "fdb10.turn_taking_sample": _any(turn_taking_sample),
    "fdb10.interruption_sample": _any(interruption_sample),
    "fdb10.bootstrap_interval": _any(bootstrap),
    "fdb10.subset_counts": _any(subset_counts),
    "fdb10.share_metric": _any(share_metric),
    "fdb10.pooled_ratio": _any(pooled_ratio),
    "fdb10.latency_quantiles": _any(latency_quantiles),
    "fdb10.subset_result": _any(subset_result),
    "fdb10.sample_row": _any(sample_row),
    "fdb10.unified_summary": _any(st.builds(UnifiedSummary, text, provenance(),
                                            st.dictionaries(text, subset_result,
                                                            max_size=2))),
    **SESSION_EXAMPLES,
    **FDB15_EXAMPLES,
}


def test_every_registered_kind_has_an_example() -> None:
    assert set(registered_kinds()) == set(EXAMPLES)


@pytest.mark.parametrize("kind", sorted(EXAMPLES))
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_every_kind_round_trips(kind: str, data: st.DataObject) -> None:
    value = data.draw(EXAMPLES[kind]("f"))
    assert type(value) is registered_kinds()[kind]
    encoded = to_dict(value)
    assert encoded["kind"] == kind
    dumps(encoded)  # canonical JSON can write it (it refuses what JSON cannot hold)
    decoded = from_dict(json.loads(json.dumps(encoded)))  # through JSON text, losslessly
    assert type(decoded) is type(value)
    assert to_dict(decoded) == encoded
    if type(value).__eq__ is not object.__eq__:  # eq=False types hold arrays
        assert decoded == value


SUMMABLE = sorted(kind for kind, cls in registered_kinds().items()
                  if issubclass(cls, FieldwiseSum))


def test_the_summable_kinds_are_the_transcripts_totals() -> None:
    assert len(SUMMABLE) == 19 and "transcripts.cp_speaker_pair" not in SUMMABLE


@pytest.mark.parametrize("kind", SUMMABLE)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_sums_are_associative(kind: str, data: st.DataObject) -> None:
    a, b, c = (data.draw(EXAMPLES[kind](prefix)) for prefix in ("a", "b", "c"))
    left, right = (a + b) + c, a + (b + c)
    assert to_dict(left) == to_dict(right)
    assert to_dict(sum([a, b, c])) == to_dict(left)  # sum() starts from 0


# --- the codec's guards -------------------------------------------------------------------


def test_decoding_names_the_kind_and_field() -> None:
    with pytest.raises(ResultDecodeError, match="unknown result kind 'nope'"):
        from_dict({"kind": "nope"})
    good = to_dict(ErrorCounts(1, 0, 0, 3, 3))
    with pytest.raises(ResultDecodeError, match=r"transcripts.error_counts: unknown field 'x'"):
        from_dict({**good, "x": 1})
    with pytest.raises(ResultDecodeError,
                       match=r"transcripts.error_counts.deletions: expected an integer, got '2'"):
        from_dict({**good, "deletions": "2"})
    # the constructor's invariants run again on reading
    with pytest.raises(ResultDecodeError, match="inconsistent counts"):
        from_dict({**good, "deletions": 2})
    nested = to_dict(CpResult.zero())
    nested["counts"] = to_dict(MatchCounts(0, 0, 0))
    with pytest.raises(ResultDecodeError, match=r"cp_result.counts: expected ErrorCounts"):
        from_dict(nested)
    with pytest.raises(ResultDecodeError, match="expected a result of kind 'core.share'"):
        Share.from_dict(to_dict(CpResult.zero()))
    with pytest.raises(ResultDecodeError, match=r"core.share: missing field 'count'"):
        from_dict({"kind": "core.share"})
    with pytest.raises(InputError):  # one-line error at the CLI, exit 2
        from_dict([1, 2])  # type: ignore[arg-type]


def test_registration_refuses_what_cannot_round_trip() -> None:
    with pytest.raises(TypeError, match="frozen dataclass"):
        @register("test.mutable")
        @dataclass
        class Mutable:
            x: int
    with pytest.raises(TypeError, match="field named 'kind'"):
        @register("test.kind_field")
        @dataclass(frozen=True)
        class KindField:
            kind: str
    with pytest.raises(ValueError, match="already taken"):
        @register("core.share")
        @dataclass(frozen=True)
        class Other:
            x: int
    with pytest.raises(TypeError, match="not a registered result"):
        to_dict(1)
    assert "test.mutable" not in registered_kinds()


def test_derived_values_are_written_for_readers_and_recomputed_on_reading() -> None:
    encoded = Share.wilson(3, 10).to_dict()
    assert encoded["value"] == 0.3 and encoded["method"] == "wilson"
    assert [round(x, 6) for x in encoded["interval"]] == [0.107791, 0.603222]  # stats doc
    assert Share.from_dict({**encoded, "value": 0.9}).value == 0.3


def test_a_subclass_result_registers_through_the_base() -> None:
    @dataclass(frozen=True)
    class Probe(Result, kind="test.probe"):
        values: tuple[int, ...]
        mean: float | None = None

    try:
        probe = Probe((1, 2), 1.5)
        assert probe.to_dict() == {"kind": "test.probe", "values": [1, 2], "mean": 1.5}
        assert Probe.from_dict({"kind": "test.probe", "values": [3]}) == Probe((3,))
    finally:
        from speecheval.core import results
        results._REGISTRY.pop("test.probe")


# --- provenance ---------------------------------------------------------------------------


def test_provenance_hashes_inputs_and_models_and_reads_back(tmp_path: Path) -> None:
    data = tmp_path / "in.txt"
    data.write_bytes(b"abc")
    record = collect_provenance(command=["speecheval", "x", "--frame-ms", "10"],
                                settings={"frame_ms": 10, "tracks": ("user", "agent")},
                                inputs={"in.txt": data}, models={"m.onnx": data},
                                packages=["numpy", "no-such-distribution-xyz"])
    # sha256("abc"), as published in FIPS 180-2, appendix B.1
    abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert record.inputs == {"in.txt": abc} and record.models == {"m.onnx": abc}
    assert record.packages["numpy"] == np.__version__
    assert record.packages["no-such-distribution-xyz"] is None
    assert set(record.packages) >= {"numpy", "scipy", "soundfile"}
    assert record.settings == {"frame_ms": 10, "tracks": ["user", "agent"]}
    written = record.write(tmp_path)
    assert written.name == PROVENANCE_FILE
    assert read_provenance(written) == record
    assert [f.name for f in fields(Provenance)] == [
        "tool", "tool_version", "python", "packages", "models", "inputs", "settings",
        "command", "numeric"]


def test_provenance_is_deterministic_and_refuses_bad_files(tmp_path: Path) -> None:
    first = collect_provenance(command=["a"], settings={"b": 1}).write(tmp_path / "1")
    second = collect_provenance(command=["a"], settings={"b": 1}).write(tmp_path / "2")
    assert first.read_bytes() == second.read_bytes()
    with pytest.raises(InputError, match="cannot read input file"):
        collect_provenance(command=[], settings={}, inputs={"x": tmp_path / "missing"})
    bad = tmp_path / "bad.json"
    bad.write_text('{"kind": "core.share"}', encoding="utf-8")
    with pytest.raises(InputError, match=rf"{bad}: expected a result of kind"):
        read_provenance(bad)
