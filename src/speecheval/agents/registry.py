"""Find a transport by name, or start a local agent to talk to.

``open_transport("pcm-websocket", {"url": ...})`` builds a built-in transport;
``open_transport("mypkg.agents:MyTransport", {...})`` imports a custom class and calls
it with the options as keyword arguments (strings). Options are checked by each
transport, so a misspelt key is an error, not a silently ignored setting.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

from ..core.errors import InputError
from .base import AgentTransport
from .local import LocalAgentServer
from .native_realtime import NativeRealtimeTransport
from .openai_realtime import OpenAIRealtimeTransport
from .pcm_websocket import PcmWebSocketTransport

BUILTIN: dict[str, Callable[..., AgentTransport]] = {
    "pcm-websocket": PcmWebSocketTransport,
    "openai-realtime": OpenAIRealtimeTransport,
    "native-realtime": NativeRealtimeTransport,
}

_REQUIRED = ("connect", "send_audio", "events", "report_played", "end_input", "close")


def open_transport(name: str, options: Mapping[str, str]) -> AgentTransport:
    """Build the transport ``name`` (a built-in name or ``module:Class``) with ``options``."""
    factory = BUILTIN.get(name)
    if factory is None:
        factory = _import_factory(name)
    try:
        transport = factory(**dict(options))
    except TypeError as exc:
        raise InputError(f"agent {name}: bad options: {exc}") from exc
    missing = [method for method in _REQUIRED if not callable(getattr(transport, method, None))]
    if missing:
        raise InputError(f"agent {name}: not an AgentTransport, missing {', '.join(missing)}")
    return transport


def _import_factory(name: str) -> Callable[..., Any]:
    module_name, sep, attribute = name.partition(":")
    if not sep or not module_name or not attribute:
        raise InputError(f"unknown agent {name!r}: use one of {', '.join(sorted(BUILTIN))} "
                         "or module:Class")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise InputError(f"agent {name}: cannot import {module_name}: {exc}") from exc
    factory = getattr(module, attribute, None)
    if not callable(factory):
        raise InputError(f"agent {name}: {module_name} has no class {attribute}")
    return factory  # type: ignore[no-any-return]


@contextlib.asynccontextmanager
async def start_local_agent(kind: str, protocol: str,
                            options: Mapping[str, str] | None = None) -> AsyncIterator[str]:
    """Serve a local agent on 127.0.0.1 (a free port) for the block; yield its URL.

    ``kind`` is ``turn`` (pcm-websocket or openai-realtime) or ``duplex``
    (native-realtime); see :mod:`speecheval.agents.local.server` for options and faults.
    """
    async with LocalAgentServer(kind, protocol, options) as agent:
        yield agent.url
