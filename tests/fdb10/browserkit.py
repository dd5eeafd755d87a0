"""A real headless Chromium driven over the DevTools protocol, for page tests.

``--dump-dom`` shows what the page built but cannot click or ask a player whether it can
play; the DevTools protocol can. Chromium speaks it over a pipe (``--remote-debugging-pipe``:
it reads commands on fd 3 and writes replies and events on fd 4, each a JSON message
ended by a NUL byte), so no port and no extra package are needed. The test collects
every console error, uncaught exception and failed load the page reports.
"""

from __future__ import annotations

import fcntl
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path
from types import TracebackType
from typing import Any

import pytest

BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def find_browser() -> str:
    """The Chromium binary, or skip the test saying how to install it."""
    for name in BROWSERS:
        if (path := shutil.which(name)) is not None:
            return path
    pytest.skip("headless Chromium is not installed (apt-get install chromium)")


class Browser:
    """One headless Chromium with one page; use as a context manager."""

    def __init__(self, profile: Path, timeout_s: float = 120.0) -> None:
        self.timeout_s = timeout_s
        to_browser_read, self._write = os.pipe()
        self._read, from_browser_write = os.pipe()
        # Move the child's ends above 3 and 4 first, so that placing them there cannot
        # overwrite one with the other.
        high_read = fcntl.fcntl(to_browser_read, fcntl.F_DUPFD, 10)
        high_write = fcntl.fcntl(from_browser_write, fcntl.F_DUPFD, 10)
        os.close(to_browser_read)
        os.close(from_browser_write)

        def place_pipes() -> None:
            os.dup2(high_read, 3)
            os.dup2(high_write, 4)

        self._process = subprocess.Popen(
            [find_browser(), "--headless", "--no-sandbox", "--disable-gpu",
             "--remote-debugging-pipe", f"--user-data-dir={profile}", "--no-first-run",
             "--mute-audio", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=place_pipes, pass_fds=(3, 4))
        os.close(high_read)
        os.close(high_write)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        self._session: str | None = None

    def __enter__(self) -> Browser:
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self._session = self.call("Target.attachToTarget",
                                  {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable")
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self._process.kill()
        self._process.wait(timeout=30)
        os.close(self._write)
        os.close(self._read)

    def _message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._read], [], [], left)[0]:
                raise TimeoutError("Chromium did not answer in time")
            chunk = os.read(self._read, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        parsed: dict[str, Any] = json.loads(message)
        return parsed

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send one command (to the page once attached) and return its result."""
        self._next_id += 1
        command: dict[str, Any] = {"id": self._next_id, "method": method,
                                   "params": params or {}}
        if self._session is not None:
            command["sessionId"] = self._session
        os.write(self._write, json.dumps(command).encode() + b"\0")
        deadline = time.monotonic() + self.timeout_s
        while True:
            message = self._message(deadline)
            if message.get("id") == self._next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                result: dict[str, Any] = message["result"]
                return result
            self.events.append(message)

    def open(self, page: Path) -> None:
        """Load ``page`` and wait for its load event."""
        self.call("Page.navigate", {"url": page.as_uri()})
        deadline = time.monotonic() + self.timeout_s
        while not any(e.get("method") == "Page.loadEventFired" for e in self.events):
            self.events.append(self._message(deadline))

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression (a promise is awaited)."""
        reply = self.call("Runtime.evaluate", {"expression": expression,
                                               "awaitPromise": True, "returnByValue": True})
        if "exceptionDetails" in reply:
            raise RuntimeError(f"{expression}: {reply['exceptionDetails']}")
        return reply["result"].get("value")

    def open_drilldowns(self) -> int:
        """Open every closed drill-down of the page's filter tables, as a click would, and
        wait until each has had its ``toggle``; the number of drill-downs still unbuilt
        (their held text still in place) after that."""
        left = self.evaluate("""Promise.all([...document.querySelectorAll(
                '.filter tbody tr:not(.detail) details:not([open])')]
            .map(d => new Promise(resolve => {
                d.addEventListener('toggle', resolve, {once: true});
                d.open = true;
            })))
            .then(() => document.querySelectorAll('.filter tr.detail>td>script').length)""")
        assert isinstance(left, int)
        return left

    def load_players(self, fields: str) -> list[Any]:
        """``fields`` (a JavaScript expression of ``a``) of every audio element in the
        document, once each has been asked to load (the page writes them
        ``preload="none"``) and has its metadata or an error."""
        players = self.evaluate(f"""new Promise(resolve => {{
            const all = [...document.querySelectorAll('audio')];
            all.forEach(a => {{ a.preload = 'metadata'; a.load(); }});
            const check = () => all.every(a => a.readyState >= 1 || a.error)
                ? resolve(all.map(a => {fields}))
                : setTimeout(check, 100);
            check();
        }})""")
        assert isinstance(players, list)
        return players

    def errors(self) -> list[str]:
        """Every console error, uncaught exception and error log entry so far."""
        found = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params["type"] in ("error", "assert"):
                found.append(json.dumps(params["args"]))
            elif method == "Runtime.exceptionThrown":
                found.append(json.dumps(params["exceptionDetails"]))
            elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
                found.append(params["entry"]["text"])
        return found
