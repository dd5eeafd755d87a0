"""Run the official interruption task with a judge whose retries are bounded and logged.

The official ``eval_user_interruption.py`` asks a chat model to rate every reply and asks
again, without end, while the answer does not parse; ``evaluate.py`` builds an OpenAI
client that retries on its own. This module is run by ``reference-evaluate`` as
``python -m speecheval.fdb.v10.reference.judge_runner`` with the evaluator's folder as the working
directory (so ``import eval_user_interruption`` loads the pinned, unchanged file) and
passes it a client whose ``chat.completions.create`` sends each request at most
``--max-attempts`` times (errors and unparsable answers alike) and writes every request,
response and error to a JSON Lines ledger. The model the script names (gpt-4-turbo) is
sent as ``--model`` (the official judge's own name, or a self-hosted served model).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from pathlib import Path
from typing import Any


class JudgeGaveUp(RuntimeError):
    """The judge failed or did not answer in the rating format within the bound."""


class _Ledger:
    def __init__(self, path: Path) -> None:
        self.handle = open(path, "a", encoding="utf-8")  # noqa: SIM115 - lives with the run

    def write(self, **entry: Any) -> None:
        self.handle.write(json.dumps(entry, sort_keys=True, ensure_ascii=False) + "\n")
        self.handle.flush()


class BoundedCompletions:
    """``chat.completions`` with a bound on how often one request is sent."""

    def __init__(self, client: Any, model: str, max_attempts: int, ledger: _Ledger) -> None:
        self.client, self.model, self.max_attempts, self.ledger = (client, model, max_attempts,
                                                                   ledger)
        self.last_messages: Any = None
        self.attempts = 0

    def create(self, **kwargs: Any) -> Any:
        messages = kwargs.get("messages")
        self.attempts = self.attempts + 1 if messages == self.last_messages else 1
        self.last_messages = messages
        while True:
            if self.attempts > self.max_attempts:
                self.ledger.write(event="gave_up", attempts=self.max_attempts)
                raise JudgeGaveUp(f"the judge gave no rating in {self.max_attempts} attempts")
            request = {**kwargs, "model": self.model}
            self.ledger.write(event="request", attempt=self.attempts,
                              script_model=kwargs.get("model"), request=request)
            try:
                response = self.client.chat.completions.create(**request)
            except Exception as exc:  # the ledger keeps every failure, then we retry
                self.ledger.write(event="error", attempt=self.attempts,
                                  error=f"{type(exc).__name__}: {exc}")
                self.attempts += 1
                continue
            self.ledger.write(event="response", attempt=self.attempts,
                              content=response.choices[0].message.content)
            return response


class _Chat:
    def __init__(self, completions: BoundedCompletions) -> None:
        self.completions = completions


class BoundedClient:
    """What ``eval_user_interruption`` uses of an OpenAI client: ``chat.completions``."""

    def __init__(self, completions: BoundedCompletions) -> None:
        self.chat = _Chat(completions)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root-dir", required=True)
    parser.add_argument("--base-url", default=None)
    parser.add_argument("--model", required=True)
    parser.add_argument("--api-key-env", default="OPENAI_API_KEY")
    parser.add_argument("--max-attempts", type=int, default=3)
    parser.add_argument("--timeout-s", type=float, default=60.0)
    parser.add_argument("--ledger", required=True, type=Path)
    args = parser.parse_args(argv)
    from openai import OpenAI

    sys.path.insert(0, os.getcwd())
    # the pinned official script, from the working directory (the evaluator's folder)
    official = importlib.import_module("eval_user_interruption")

    client = OpenAI(api_key=os.environ.get(args.api_key_env, "not-needed"),
                    base_url=args.base_url, max_retries=0, timeout=args.timeout_s)
    completions = BoundedCompletions(client, args.model, args.max_attempts,
                                     _Ledger(args.ledger))
    official.eval_user_interruption(args.root_dir, BoundedClient(completions))
    return 0


if __name__ == "__main__":
    sys.exit(main())
