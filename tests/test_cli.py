"""The entry point returns the exit code a command asked for."""

from __future__ import annotations

import click
import pytest

from speecheval import cli


def test_exit_code_of_ctx_exit_is_returned(monkeypatch: pytest.MonkeyPatch) -> None:
    @click.command("fails-checks")
    @click.pass_context
    def fails_checks(ctx: click.Context) -> None:
        ctx.exit(1)

    monkeypatch.setattr(cli.app, "commands", {**cli.app.commands, "fails-checks": fails_checks})
    assert cli.main(["fails-checks"]) == 1


def test_usage_error_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["fdb10", "unified-score"]) == 2
    assert "--tree" in capsys.readouterr().err
