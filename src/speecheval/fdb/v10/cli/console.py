"""Plain-text report of ``unified-score``: value, interval and count of every metric.

One line per metric, in a layout per kind of metric (share, pooled ratio, distribution);
numbers are written by :mod:`speecheval.report.numbers`, as in every other report.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ....report.numbers import fixed
from ..reference.column import ReferenceColumn

if TYPE_CHECKING:
    from ..scoring.unified import UnifiedSummary


def _amounts(name: str, metric: dict[str, Any]) -> str:
    """Numerator and denominator of a pooled ratio, both in the same fixed format.

    Ratios of seconds (by the naming rule, a name ending in ``_s``) print two decimals on
    both sides, whatever the values, so ``8.00/10.43 s`` never reads as a count over seconds;
    ratios of counts print whole numbers.

    >>> _amounts("intrusion_s_per_pause_s", {"numerator": 8.0, "denominator": 10.43})
    '8.00/10.43 s'
    >>> _amounts("pause_intrusion_per_pause", {"numerator": 3.0, "denominator": 7.0})
    '3/7'
    """
    if name.endswith("_s"):
        return f"{metric['numerator']:.2f}/{metric['denominator']:.2f} s"
    return f"{metric['numerator']:.0f}/{metric['denominator']:.0f}"


def _pair(pair: list[float] | None) -> str:
    return "n/a" if pair is None else f"[{fixed(pair[0])}, {fixed(pair[1])}]"


def _bound(value: float | None, reached: bool | None, unit: str = "") -> str:
    if reached is False:
        return "not reached"
    return "n/a" if value is None else fixed(value) + unit


def _metric_line(name: str, metric: dict[str, Any]) -> str:
    kind = metric["kind"]
    if kind == "share":
        return (f"  {name:<28} {fixed(metric['value']):>7}  {_pair(metric['interval']):<17} "
                f"{metric['count']:>4}/{metric['n']:<5} selected bounds "
                f"{_pair(metric['selected_bounds'])}")
    if kind == "pooled_ratio":
        interval = metric["interval"]
        shown = "n/a" if interval is None else (
            f"[{_bound(interval['low'], interval['low_reached'])}, "
            f"{_bound(interval['high'], interval['high_reached'])}]")
        return (f"  {name:<28} {fixed(metric['value']):>7}  {shown:<17} "
                f"{_amounts(name, metric)} over {metric['n_samples']} samples")
    median, p90 = metric["median"], metric["p90"]
    interval = median.get("interval")
    shown = "n/a" if interval is None else (
        f"[{_bound(interval['low'], interval['low_reached'])}, "
        f"{_bound(interval['high'], interval['high_reached'])}]")
    return (f"  {name:<28} median {_bound(median['value'], median['reached'], ' s')} {shown}, "
            f"p90 {_bound(p90['value'], p90['reached'], ' s')} "
            f"({metric['observed']} of {metric['n']} with a value)")


def _reference_lines(subset: str, reference: ReferenceColumn | None) -> list[str]:
    if reference is None or subset not in reference.subsets:
        return []
    lines = ["  reference column (official evaluator):"]
    for key, value in sorted(reference.subsets[subset].items()):
        lines.append(f"    {key:<30} {_reference_value(value):>9}  ({reference.label(key)})")
    return lines


def _reference_value(value: Any) -> str:
    """An official number with three decimals; null (the evaluator had none) as ``n/a``.

    >>> _reference_value(None), _reference_value(0.5), _reference_value(True)
    ('n/a', '0.500', 'True')
    """
    if isinstance(value, int | float) and not isinstance(value, bool):
        return fixed(value)
    return "n/a" if value is None else str(value)


def render(summary: UnifiedSummary, reference: ReferenceColumn | None, reference_note: str
           ) -> str:
    """The console report of the records written to ``unified.json``; shares show value,
    Wilson interval, count and selected bounds."""
    lines = [f"unified-score {summary.definitions_version}  "
             f"manifest {summary.input_sha256('manifest.json')[:12]}  "
             f"asr {summary.input_sha256('asr.json')[:12]}  "
             f"silero-vad {summary.vad_version}"]
    for subset, result in summary.subsets.items():
        record = result.report_dict()
        counts = record["counts"]
        reasons = ", ".join(f"{k} {v}" for k, v in counts["ineligible_reasons"].items())
        lines.append("")
        lines.append(f"{subset} ({record['task']}): {counts['selected']} selected of "
                     f"{counts['declared']} declared, {counts['eligible']} eligible "
                     f"(coverage {fixed(record['coverage'])})"
                     + (f"; ineligible {counts['ineligible']}: {reasons}" if reasons else ""))
        if "min_observable_s" in record:
            lines.append(f"  min_observable_s {fixed(record['min_observable_s'])}")
        if record["metrics"] is None:
            lines.append(f"  {record.get('note', 'no unified metric')}")
        else:
            for name, metric in record["metrics"].items():
                lines.append(_metric_line(name, metric))
        lines.extend(_reference_lines(subset, reference))
    lines.append("")
    lines.append(reference_note)
    return "\n".join(lines) + "\n"
