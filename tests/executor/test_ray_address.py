"""``--ray-address`` that does not answer: exit 2 with one line naming it, within seconds.

``ray.init`` alone retries such an address for minutes; the probe in
:mod:`speecheval.core.ray_probe` bounds it. The probe is checked on real loopback
sockets (a closed port, a server that accepts and says nothing, one that answers in
HTTP/1, one that answers as an HTTP/2 server does); the command-line tests need Ray, and
the real cluster's address passing the probe is checked in test_executor_ray.py.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from speecheval.core.errors import InputError
from speecheval.core.ray_probe import EMPTY_SETTINGS, probe_ray_address

REPO = Path(__file__).resolve().parents[2]
TRANSCRIPTS_EXAMPLE = REPO / "examples" / "transcripts" / "manifest.yaml"
SERVER_LIFETIME_S = 30.0
"""A test server stops by itself after this long, whatever the test did."""


@contextmanager
def closed_port() -> Iterator[int]:
    """A loopback port bound but not listening: a connection to it is refused."""
    with socket.socket() as bound:
        bound.bind(("127.0.0.1", 0))
        yield bound.getsockname()[1]


@contextmanager
def one_shot_server(answer: Callable[[socket.socket], None]) -> Iterator[int]:
    """A loopback server for at most one connection, to which it does ``answer``; it
    stops by itself after :data:`SERVER_LIFETIME_S` seconds or when the test ends."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(SERVER_LIFETIME_S)
    done = threading.Event()

    def serve() -> None:
        try:
            connection, _ = listener.accept()
        except OSError:
            return
        with connection:
            answer(connection)
            done.wait(SERVER_LIFETIME_S)  # hold the connection open, saying nothing more

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        done.set()
        listener.close()
        thread.join(SERVER_LIFETIME_S)


def say_nothing(connection: socket.socket) -> None:
    """Accept the connection and never answer (a handshake that never comes)."""


def answer_http1(connection: socket.socket) -> None:
    connection.recv(1024)
    connection.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")


def answer_http2(connection: socket.socket) -> None:
    """What any HTTP/2 (so gRPC) server sends first: a SETTINGS frame."""
    connection.sendall(EMPTY_SETTINGS)


def test_a_closed_port_is_refused_by_name() -> None:
    with closed_port() as port, pytest.raises(InputError) as raised:
        probe_ray_address(f"127.0.0.1:{port}")
    assert str(raised.value) == f"cannot reach the Ray cluster at 127.0.0.1:{port}: " \
                                "Connection refused"


def test_a_server_that_never_answers_is_given_up_on() -> None:
    with one_shot_server(say_nothing) as port, pytest.raises(InputError) as raised:
        probe_ray_address(f"127.0.0.1:{port}", timeout_s=0.5)
    assert str(raised.value) == f"cannot reach the Ray cluster at 127.0.0.1:{port}: " \
                                "no answer within 0.5 s"


def test_a_server_that_is_not_grpc_is_refused() -> None:
    with one_shot_server(answer_http1) as port, pytest.raises(InputError) as raised:
        probe_ray_address(f"ray://127.0.0.1:{port}")
    assert str(raised.value) == (
        f"cannot reach the Ray cluster at ray://127.0.0.1:{port}: the server there does "
        "not speak gRPC (not a Ray head or Ray Client port)")


def test_an_http2_server_passes() -> None:
    with one_shot_server(answer_http2) as port:
        probe_ray_address(f"127.0.0.1:{port}")


def test_addresses_ray_resolves_itself_are_left_to_it() -> None:
    probe_ray_address("auto")  # no endpoint to probe: returns without connecting


@pytest.mark.parametrize("server", ["closed", "silent"])
def test_the_command_exits_2_naming_the_address(server: str, tmp_path: Path) -> None:
    """As a user runs it: a fresh process (one with Ray already connected uses that
    connection and never looks at the address), bounded by the probe's 5 s."""
    pytest.importorskip("ray", reason="ray is not installed (pip install 'speecheval[ray]')")
    env = {key: value for key, value in os.environ.items() if key != "RAY_ADDRESS"}
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    env["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"  # Ray keeps 127.0.0.1 as given
    with (closed_port() if server == "closed" else one_shot_server(say_nothing)) as port:
        done = subprocess.run(
            [sys.executable, "-m", "speecheval", "transcripts", "score", "--manifest",
             str(TRANSCRIPTS_EXAMPLE), "--out", str(tmp_path / "run"), "--executor", "ray",
             "--ray-address", f"127.0.0.1:{port}"], env=env, capture_output=True, text=True,
            timeout=120)
    assert done.returncode == 2
    problem = "Connection refused" if server == "closed" else "no answer within 5 s"
    assert done.stderr == (f"error: cannot reach the Ray cluster at 127.0.0.1:{port}: "
                           f"{problem}\n")
    assert not (tmp_path / "run").exists()
