"""Which way is better for every metric of ``unified.json``: the report colours and ranks
by it. Fewer intrusions, early starts, missed responses, shorter latencies and less
talking over the user are better; responding within k seconds is better when higher;
the descriptive shares (how samples were exercised, where speech fell) only give context.
"""

from __future__ import annotations

from speecheval.fdb.v10.scoring.tasks import TASKS

LOWER, HIGHER, CONTEXT = "lower", "higher", "context"
RESPONSE_RATES = {"response_rate_1s": HIGHER, "response_rate_2s": HIGHER,
                  "response_rate_5s": HIGHER}
EXPECTED = {
    "pause_handling": {
        "pause_intrusion_rate": LOWER, "pause_intrusion_per_pause": LOWER,
        "intrusion_s_per_pause_s": LOWER, "inside_pause_onset_rate": CONTEXT,
        "pre_pause_speech_rate": CONTEXT, "carry_in_rate": CONTEXT, "any_speech_rate": CONTEXT},
    "smooth_turn_taking": {
        "early_start_rate": LOWER, "no_response_rate": LOWER, "response_latency_s": LOWER,
        **RESPONSE_RATES},
    "user_interruption": {
        "exercised_rate": CONTEXT, "speaking_at_end_rate": LOWER, "no_response_rate": LOWER,
        "response_latency_s": LOWER, "stop_latency_s": LOWER,
        "speech_s_per_interruption_s": LOWER, "restart_rate": LOWER, **RESPONSE_RATES},
}


def test_every_metric_says_which_way_is_better() -> None:
    for name, expected in EXPECTED.items():
        metrics = TASKS[name].subset([], 0, []).report_dict()["metrics"]
        assert {key: metric["better"] for key, metric in metrics.items()} == expected, name
