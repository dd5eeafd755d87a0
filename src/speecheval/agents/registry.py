"""Find an agent class by name, build a transport, or start a local agent to talk to.

``open_transport("pcm-websocket", {"url": ...})`` builds a built-in transport;
``open_transport("mypkg.agents:MyTransport", {...})`` imports a custom class and calls
it with the options as keyword arguments (strings). Options are checked by each
transport, so a misspelt key is an error, not a silently ignored setting.

A custom class subclasses :class:`~speecheval.agents.base.AgentTransport` (real clock) or
:class:`~speecheval.agents.base.VirtualClockAgent` (virtual clock); :func:`agent_class`
finds it and its ``clock`` says which runner drives it. A new built-in transport is one
module in ``agents/`` and one entry in :data:`BUILTIN`.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
from collections.abc import AsyncIterator, Mapping

from ..core.errors import InputError
from .base import Agent, AgentTransport
from .local import LocalAgentServer
from .native_realtime import NativeRealtimeTransport
from .openai_realtime import OpenAIRealtimeTransport
from .pcm_websocket import PcmWebSocketTransport
from .pipecat import PipecatTransport
from .vllm_omni_duplex import VllmOmniDuplexTransport
from .webrtc import WebRtcTransport

BUILTIN: dict[str, type[AgentTransport]] = {
    "pcm-websocket": PcmWebSocketTransport,
    "openai-realtime": OpenAIRealtimeTransport,
    "native-realtime": NativeRealtimeTransport,
    "webrtc": WebRtcTransport,
    "pipecat": PipecatTransport,
    "vllm-omni-duplex": VllmOmniDuplexTransport,
}


def agent_class(name: str) -> type[Agent]:
    """The class ``name`` names: a built-in transport or ``module:Class``, an :class:`Agent`."""
    builtin = BUILTIN.get(name)
    if builtin is not None:
        return builtin
    module_name, sep, attribute = name.partition(":")
    if not sep or not module_name or not attribute:
        raise InputError(f"unknown agent {name!r}: use one of {', '.join(sorted(BUILTIN))} "
                         "or module:Class")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise InputError(f"agent {name}: cannot load {attribute!r} from module "
                         f"{module_name!r}: {exc}") from exc
    found = getattr(module, attribute, None)
    if not isinstance(found, type):
        raise InputError(f"agent {name}: {module_name} has no class {attribute}")
    if not issubclass(found, Agent):
        raise InputError(f"agent {name}: {attribute} is not an agent; subclass "
                         "speecheval.agents.base.AgentTransport (real clock) or "
                         "VirtualClockAgent (virtual clock)")
    if inspect.isabstract(found):
        missing = ", ".join(sorted(found.__abstractmethods__))
        raise InputError(f"agent {name}: {attribute} does not implement {missing}")
    return found


def build_agent(name: str, cls: type[Agent], options: Mapping[str, object]) -> Agent:
    """``cls(**options)``; a constructor that refuses the options is a usage error."""
    try:
        return cls(**dict(options))
    except TypeError as exc:
        raise InputError(f"agent {name}: bad options {sorted(options)}: {exc}") from exc


def open_transport(name: str, options: Mapping[str, str]) -> AgentTransport:
    """Build the transport ``name`` (a built-in name or ``module:Class``) with ``options``."""
    cls = agent_class(name)
    if not issubclass(cls, AgentTransport):
        raise InputError(f"agent {name}: runs on the {cls.clock} clock, not a transport "
                         "for the real clock")
    transport = build_agent(name, cls, options)
    assert isinstance(transport, AgentTransport)
    return transport


def check_server(transport: AgentTransport, concurrency: int) -> None:
    """Before a run: let a transport that can ask its server what it supports do so
    (its ``check_server(concurrency)``), so that a setting the server denies is an
    InputError (exit 2) before the first session, not a fault in every one."""
    check = getattr(transport, "check_server", None)
    if callable(check):
        check(concurrency)


@contextlib.asynccontextmanager
async def start_local_agent(kind: str, protocol: str,
                            options: Mapping[str, str] | None = None) -> AsyncIterator[str]:
    """Serve a local agent on 127.0.0.1 (a free port) for the block; yield its URL.

    ``kind`` is ``turn`` (pcm-websocket or openai-realtime) or ``duplex``
    (native-realtime); see :mod:`speecheval.agents.local.server` for options and faults.
    """
    async with LocalAgentServer(kind, protocol, options) as agent:
        yield agent.url
