"""Local reference agents for tests and demos, served on 127.0.0.1."""

from . import vllm_duplex  # noqa: F401  (adds its protocol to the server's SESSIONS)
from .server import FAULTS, KINDS, PROTOCOLS, AgentConfig, LocalAgentServer

__all__ = ["FAULTS", "KINDS", "PROTOCOLS", "AgentConfig", "LocalAgentServer"]
