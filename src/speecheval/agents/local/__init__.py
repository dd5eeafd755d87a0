"""Local reference agents for tests and demos, served on 127.0.0.1."""

from .server import FAULTS, KINDS, PROTOCOLS, AgentConfig, LocalAgentServer

__all__ = ["FAULTS", "KINDS", "PROTOCOLS", "AgentConfig", "LocalAgentServer"]
