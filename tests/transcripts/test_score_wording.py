"""Report wording through ``speecheval transcripts score``: the report keeps measured
facts, judgements and untested hypotheses apart, and a judgement whose words need more
than the maturity level gives ("significantly better" below decision_grade, a ranking
below scenario_qualified) is refused with exit 2, nothing written.

The levels of the tiny manifests follow from the counts in the comments and the rules
in ``speecheval.transcripts.maturity``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from speecheval.cli import main
from speecheval.transcripts.claims import requirement

# The phase-one set's other two scenarios, added (each like meet) when a manifest is to
# reach decision_grade: meet stands for meeting overlap.
PHASE_ONE = {"meet": "meeting_overlap", "pod": "long_podcast", "biz": "business_meeting"}


def write_manifest(folder: Path, samples: int, repeats: int, sources: int,
                   judgements: list[dict[str, Any]], hypotheses: list[str] = (),
                   phase_one: bool = False) -> Path:
    """Scenario ``meet`` (core, leak-free) with ``samples`` perfect samples spread over
    ``sources`` sources, each with ``repeats`` runs; ``required_repeats`` is ``repeats``.
    With ``phase_one``, scenarios ``pod`` and ``biz`` the same, and the three cover the
    phase-one scenario set."""
    entries = []
    names = list(PHASE_ONE) if phase_one else ["meet"]
    for scenario in names:
        for k in range(1, samples + 1):
            name = f"{scenario[0]}{k}"
            for side, speaker in (("ref", "A"), ("hyp", "X")):
                (folder / f"{name}.{side}.stm").write_text(
                    f"{name} 1 {speaker} 0.0 2.0 hello world\n", "utf-8")
            entries.append({"id": name, "scenario": scenario, "duration_s": 2.0,
                            "source": f"src{k % sources}",
                            "reference": {"transcript": f"{name}.ref.stm"},
                            "runs": [{"repeat": r, "transcript": f"{name}.hyp.stm"}
                                     for r in range(1, repeats + 1)]})
    spec = {"unit": "word", "core": True, "reference_leak_free": True}
    path = folder / "manifest.yaml"
    path.write_text(yaml.safe_dump({
        "format": "speecheval.transcripts.manifest/1", "system": "s",
        "required_repeats": repeats,
        "scenarios": {name: {**spec, **({"covers": PHASE_ONE[name]} if phase_one else {})}
                      for name in names},
        "samples": entries, "judgements": judgements, "hypotheses": list(hypotheses)},
        sort_keys=False, allow_unicode=True, width=1000), encoding="utf-8")
    return path


def score(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, Path]:
    out = path.parent / "out"
    code = main(["transcripts", "score", "--manifest", str(path), "--out", str(out)])
    return code, capsys.readouterr().err, out


# (samples, repeats, sources) -> levels (scenario meet's, the run's):
# 1 sample: pipeline_smoke; 2 samples: exploratory (fewer than 3); 3 samples from 2
# sources with 1 required repeat: scenario_qualified, the run too (required_repeats 1 < 3);
# the same with 3 repeats (and the phase-one set covered): the run is decision_grade.
LEVELS = {"pipeline_smoke": (1, 1, 1), "exploratory": (2, 1, 2),
          "scenario_qualified": (3, 1, 2), "decision_grade": (3, 3, 2)}
RANKED = {"text": "s is better than the last vendor on meetings", "scenario": "meet"}
SIGNIFICANT = {"text": "s is significantly better than the last vendor", "scenario": "meet"}
ACROSS = {"text": "s leads the other vendor overall"}
CHINESE = {"text": "s 显著领先上一家供应商", "scenario": "meet"}
# which judgements each level lets through (True) or refuses (False)
ALLOWED = {
    "pipeline_smoke": {"ranked": False, "significant": False, "across": False,
                       "chinese": False},
    "exploratory": {"ranked": False, "significant": False, "across": False, "chinese": False},
    "scenario_qualified": {"ranked": True, "significant": False, "across": False,
                           "chinese": False},
    "decision_grade": {"ranked": True, "significant": True, "across": True, "chinese": True},
}
CLAIMS = {"ranked": RANKED, "significant": SIGNIFICANT, "across": ACROSS, "chinese": CHINESE}


@pytest.mark.parametrize("level", list(LEVELS))
@pytest.mark.parametrize("claim", list(CLAIMS))
def test_judgement_refused_below_its_level(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           level: str, claim: str) -> None:
    # a plain description first: it needs no level and never blocks the report
    judgements = [{"text": "WER is 0.00% on these samples", "scenario": "meet"},
                  CLAIMS[claim]]
    path = write_manifest(tmp_path, *LEVELS[level], judgements=judgements,
                          phase_one=level == "decision_grade")
    code, err, out = score(path, capsys)
    if ALLOWED[level][claim]:
        assert code == 0, err
        doc = json.loads((out / "scenarios.json").read_text("utf-8"))
        assert doc["run_maturity"]["level"] == level
        judged = doc["wording"]["judgements"]
        mine = [j for j in judged if j.startswith(CLAIMS[claim]["text"] + " [")]
        assert len(mine) == 1
        # the evidence beside it: coverage, samples rated, failures, uncertainty
        assert "3 of 3 samples rated, 0 of" in mine[0] and "95% CI [0.00%, 0.00%]" in mine[0]
        return
    assert code == 2
    assert not out.exists()
    line = 1 + (path.read_text("utf-8").splitlines().index(
        f"- text: {CLAIMS[claim]['text']}"))
    assert f"manifest.yaml: judgements[1] (line {line}): refused as a judgement: " in err
    assert err.count("\n") == 1 and "Traceback" not in err
    scenario_level = "scenario_qualified" if level == "decision_grade" else level
    if "scenario" in CLAIMS[claim] and scenario_level in ("pipeline_smoke", "exploratory"):
        # the scenario is below what even a ranking inside it needs
        assert f"scenario meet is {scenario_level}" in err
    else:
        assert f"needs decision_grade, the run is {level}" in err


def test_report_has_three_parts_in_order(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    hypothesis = "s is significantly better on long meetings"  # a hypothesis asserts nothing
    path = write_manifest(tmp_path, 2, 1, 2, judgements=[], hypotheses=[hypothesis])
    code, err, out = score(path, capsys)
    assert code == 0, err
    md = (out / "scenarios.md").read_text("utf-8")
    assert re.findall(r"^## (.*)$", md, re.MULTILINE) == [
        "Measured facts", "Judgements", "Untested hypotheses"]
    # every table is a part of the measured facts
    facts = md.split("## Judgements")[0]
    assert "### Transcription (main protocol)" in facts and "### Across scenarios" in facts
    judgements = md.split("## Judgements")[1].split("## Untested hypotheses")[0]
    assert judgements.splitlines()[2:4] == [
        "- meet (exploratory): per-sample facts only; no trend or ranking is drawn (fewer "
        "than 3 samples (2)) [scenario meet: 2 of 2 samples rated, 0 of 2 runs failed, WER "
        "macro 0.00% (95% CI [0.00%, 0.00%])]",
        "- across scenarios (exploratory): no conclusion across scenarios is drawn (core "
        "scenarios not all qualified: meet (exploratory); phase-one scenario set "
        "podcast-meeting-v1 incomplete: no core scenario covers long_podcast, "
        "business_meeting, meeting_overlap; required_repeats is 1, fewer than "
        "the 3 repeats per sample the spec prescribes) [WER scenario macro 0.00% over 1 of "
        "1 scenarios (exploratory); 0 of 2 runs failed; scenario meet: 2 of 2 samples "
        "rated, 0 of 2 runs failed, WER macro 0.00% (95% CI [0.00%, 0.00%])]"]
    hypotheses = md.split("## Untested hypotheses")[1]
    assert hypotheses.strip().splitlines() == [
        f"- {hypothesis}",
        "- meet: whether its results hold beyond its 2 samples is untested (exploratory)",
        "- nothing here extends to scenarios this manifest does not hold (it holds meet)"]
    html = (out / "report.html").read_text("utf-8")
    headings = re.findall(r"<h2[^>]*>(.*?)</h2>", html)
    assert headings == ["Measured facts", "Judgements", "Untested hypotheses"]


def test_judgement_on_an_undeclared_scenario_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_manifest(tmp_path, 1, 1, 1, judgements=[{"text": "x", "scenario": "nope"}])
    code, err, out = score(path, capsys)
    assert code == 2 and not out.exists()
    assert "judgements[0].scenario (line " in err and "'nope' is not declared" in err


@pytest.mark.parametrize(("text", "scenario", "expected"), [
    ("WER 4.1% on meet, 2 of 3 runs failed", "meet", None),
    ("the window size is 30 s", "meet", None),          # 'win' is not a ranking word
    ("s outperforms t", "meet", ("scenario_qualified", "outperforms")),
    ("s ranks first", None, ("decision_grade", "ranks")),
    ("s is Significantly ahead", "meet", ("decision_grade", "Significantly")),
    ("s 优于 t", "meet", ("scenario_qualified", "优于")),
])
def test_requirement_words(text: str, scenario: str | None,
                           expected: tuple[str, str] | None) -> None:
    need = requirement(text, scenario)
    assert (None if need is None else (need.level, need.word)) == expected
