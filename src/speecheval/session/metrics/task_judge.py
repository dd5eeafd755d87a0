"""Did the agent get the caller's task done? An optional judge behind any
OpenAI-compatible ``POST /v1/chat/completions`` endpoint.

A scenario's ``judge`` block names the task, the model and the endpoint; the key comes
from the environment variable ``api_key_env`` and is never recorded. After each session
the judge reads the conversation (each turn: the caller's words as scripted, then the
agent's words as the bundled Whisper heard them on the agent track) and answers with a
JSON object ``{"success": true|false, "reason": "..."}``. The request goes through the
project's chat-completions client (:class:`speecheval.remote.chat.ChatModel`:
temperature 0, bounded retries on HTTP 429/5xx, dropped answers and timeouts; a refused
key stops the run). A judge that gives no valid answer leaves
``success`` null with the problem named, and ``min_task_success_rate`` then fails, as
every assertion on a missing value does. The request and the raw answer of each session
are its ledger, ``sessions/NNN/judge.json``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...core import peer_json
from ...core.errors import InputError
from ..scenario.judge import JudgeSpec, open_judge
from .results import JudgeLedger, TaskVerdict, TurnMetrics

if TYPE_CHECKING:
    from ...asr.base import TimedWord
    from ..scenario.model import Scenario

SYSTEM_PROMPT = (
    "You judge recorded phone calls between a caller and a voice agent. You get the "
    "caller's task and the conversation. Answer with one JSON object and nothing else: "
    '{"success": true or false, "reason": "one sentence"}. success is true only when the '
    "agent did what the task asks.")


def conversation(scenario: Scenario, turns: tuple[TurnMetrics, ...],
                 words: list[TimedWord]) -> str:
    """The call as the judge reads it: each played turn, the caller then the agent."""
    from ...core.timebase import to_us

    texts = {t.id: t.text or t.audio.say or "(a sound without words)" for t in scenario.turns}
    lines = []
    for turn in turns:
        if turn.start_s is None or turn.end_s is None:
            continue
        start, end = to_us(turn.start_s), to_us(turn.end_s)
        said = " ".join(w.text for w in words if start <= to_us(w.start_s) < end)
        lines += [f"Caller: {texts[turn.id]}", f"Agent: {said or '(says nothing)'}"]
    return "\n".join(lines)


def judge_session(spec: JudgeSpec, scenario: Scenario, turns: tuple[TurnMetrics, ...],
                  words: list[TimedWord]) -> TaskVerdict:
    """The session's verdict, with its ``ledger`` (written beside the recording)."""
    judge = open_judge(spec)
    messages = [{"role": "system", "content": SYSTEM_PROMPT},
                {"role": "user", "content": f"Task: {spec.task}\n\nConversation:\n"
                                            f"{conversation(scenario, turns, words)}"}]
    reply = judge.ask(messages)
    if reply.stop is not None:  # a refused key: every later session would be refused too
        raise InputError(f"judge: {reply.stop}")
    success, reason, problem = _verdict(reply.content)
    if reply.content is None:
        problem = f"no answer from the judge: {reply.stderr or 'no reason given'}"
    return TaskVerdict(model=spec.model, model_reported=reply.model_reported,
                       success=success, reason=reason, problem=problem,
                       attempts=reply.attempts,
                       ledger=JudgeLedger(judge=judge.identity(), messages=messages,
                                          response=reply.stdout, failures=reply.stderr))


def _verdict(content: str | None) -> tuple[bool | None, str | None, str | None]:
    """(success, reason, problem) of the judge's answer text."""
    if content is None:
        return None, None, None
    try:
        data = peer_json.loads(content)
    except peer_json.PeerJSONLimit as exc:
        return None, None, f"the judge's answer is not JSON: {exc.reason}"
    except ValueError:
        return None, None, f"the judge's answer is not JSON: {content[:200]!r}"
    if not isinstance(data, dict) or not isinstance(data.get("success"), bool):
        return None, None, f"the judge's answer has no true/false 'success': {content[:200]!r}"
    reason = data.get("reason")
    return data["success"], reason if isinstance(reason, str) else None, None
