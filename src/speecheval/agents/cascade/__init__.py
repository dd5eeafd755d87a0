"""The cascade agent: Silero end of turn, Whisper tiny.en, a templated reply, espeak-ng.

A real turn-based voice agent built from parts that run offline, to record with
``fdb10 record`` and see what the benchmark measures on a real system
(``speecheval agents serve cascade``; docs/agents.md).
"""

from .options import CascadeSettings
from .server import CascadeAgentServer, serve_cascade_until_cancelled

__all__ = ["CascadeAgentServer", "CascadeSettings", "serve_cascade_until_cancelled"]
