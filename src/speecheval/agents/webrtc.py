"""``webrtc``: an agent that speaks WebRTC, reached with aiortc (the ``webrtc`` extra).

Signalling is one plain HTTP exchange, the convention of aiortc's examples and of
Pipecat's SmallWebRTC transport: the client POSTs ``{"sdp": ..., "type": "offer"}`` as
JSON to ``url`` and the agent answers ``{"sdp": ..., "type": "answer"}``. ICE candidates
travel inside the SDP (no trickle), so no further exchange is needed. Media is one audio
track each way: the user frames go out as they are sent (Opus, 48 kHz, aiortc resamples),
and the agent's track is decoded, mixed to mono and resampled to the session rate.

WebRTC has no message to clear audio or to say how much of a reply was played, so
``report_played`` and ``end_input`` send nothing; the session ends by closing the peer
connection. A failed signalling request, an answer that is not an SDP answer, or the
connection going to ``failed`` or ``closed`` while the session runs is the agent's fault.
"""

from __future__ import annotations

import asyncio
import fractions
import functools
import json
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

import numpy as np

from ..core import peer_json
from ..core.errors import InputError, SystemUnderTestError
from ..core.extras import require
from ..core.redact import Redactor, redact_url
from ..remote import answers
from ..remote.client import ErrorAnswer, NoAnswer, send
from .base import AgentEvent, AgentFault, AgentTransport, AudioOut

if TYPE_CHECKING:
    from aiortc import RTCPeerConnection
    from av import AudioFrame

NAME = "webrtc"
_END = object()


def _import_aiortc() -> Any:
    return require("aiortc", needed_for="the webrtc transport", extra="webrtc")


def post_json(url: str, body: dict[str, Any], timeout_s: float) -> dict[str, Any]:
    """POST ``body`` as JSON and return the JSON object answered (blocking: run it in a
    thread). Any failure is the agent's: a :class:`SystemUnderTestError` naming it."""
    try:
        reply = send(url, body=json.dumps(body).encode("utf-8"), timeout_s=timeout_s,
                     headers={"Content-Type": "application/json"}, follow_redirects=True)
        answer = answers.parse(reply.body)
    except ErrorAnswer as exc:
        raise SystemUnderTestError(f"signalling: HTTP {exc.status} {exc.phrase}") from None
    except NoAnswer as exc:
        raise SystemUnderTestError(f"signalling: {exc.text}") from None
    except peer_json.PeerJSONLimit as exc:
        raise SystemUnderTestError(f"signalling: the answer is not JSON ({exc.reason})"
                                   ) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SystemUnderTestError(f"signalling: the answer is not JSON ({exc})") from None
    if not isinstance(answer, dict):
        raise SystemUnderTestError("signalling: the answer is not a JSON object")
    return answer


@functools.cache
def _user_track_class() -> type:
    """The outgoing audio track class (aiortc's base class is imported only when used)."""
    from aiortc.mediastreams import MediaStreamError, MediaStreamTrack
    from av import AudioFrame

    class UserTrack(MediaStreamTrack):
        """Hands aiortc each user frame as the runner sends it; None ends the track."""

        kind = "audio"

        def __init__(self, sample_rate: int) -> None:
            super().__init__()
            self.rate = sample_rate
            self.frames: asyncio.Queue[bytes | None] = asyncio.Queue()
            self.pts = 0

        async def recv(self) -> AudioFrame:
            pcm = await self.frames.get()
            if pcm is None:
                self.stop()
                raise MediaStreamError
            samples = np.frombuffer(pcm, dtype="<i2").reshape(1, -1)
            frame = AudioFrame.from_ndarray(samples, format="s16", layout="mono")
            frame.sample_rate = self.rate
            frame.pts = self.pts
            frame.time_base = fractions.Fraction(1, self.rate)
            self.pts += samples.shape[1]
            return frame

    return UserTrack


class WebRtcTransport(AgentTransport):
    """Client for agents reached over WebRTC with HTTP offer/answer signalling."""

    name = NAME

    def __init__(self, **options: str) -> None:
        from .transport_options import WebRtcOptions, parse_options  # pydantic: lazily

        known = sorted(WebRtcOptions.model_fields)
        unknown = sorted(set(options) - set(known))
        if unknown:
            raise InputError(f"{NAME}: unknown option(s) {', '.join(unknown)} "
                             f"(known: {', '.join(known)})")
        opts = parse_options(NAME, options, WebRtcOptions)
        self.url = opts.parsed.url
        if not self.url.startswith(("http://", "https://")):
            raise InputError(f"{NAME}: url must be the http(s) signalling endpoint that "
                             f"takes the SDP offer, got {redact_url(self.url)!r}")
        self.timeout_s = opts.parsed.signalling_timeout_s
        self._redactor = Redactor(options)
        self._pc: RTCPeerConnection | None = None
        self._user: Any = None  # the UserTrack, once connected
        self._events: asyncio.Queue[AgentEvent | object] = asyncio.Queue()
        self._tasks: list[asyncio.Task[None]] = []
        self._closing = False

    def describe(self) -> dict[str, object]:
        """Settings for the run record (no secrets: the URL is redacted)."""
        return {"transport": NAME, "url": redact_url(self.url)}

    async def connect(self, sample_rate: int) -> None:
        aiortc = _import_aiortc()
        self._pc = aiortc.RTCPeerConnection()
        try:
            await self._negotiate(aiortc, self._pc, sample_rate)
        except BaseException:
            # a caller that uses the transport directly may not call close() after a
            # failed (or timed-out) connect (the runners do): the peer connection's ICE
            # gatherer and UDP sockets must not outlive it
            self._closing = True
            await self._pc.close()
            raise

    async def _negotiate(self, aiortc: Any, pc: Any, sample_rate: int) -> None:
        """Offer, answer and the media path up (see the module docstring)."""
        self._user = _user_track_class()(sample_rate)
        pc.addTrack(self._user)

        @pc.on("track")  # type: ignore[untyped-decorator]
        def on_track(track: Any) -> None:
            if track.kind == "audio":
                self._tasks.append(asyncio.create_task(self._play(track, sample_rate)))

        connected = asyncio.Event()

        @pc.on("connectionstatechange")  # type: ignore[untyped-decorator]
        def on_state() -> None:
            if pc.connectionState == "connected":
                connected.set()
            if pc.connectionState in ("failed", "closed") and not self._closing:
                connected.set()
                self._events.put_nowait(AgentFault(
                    f"webrtc connection {pc.connectionState} during the session"))
                self._events.put_nowait(_END)

        await pc.setLocalDescription(await pc.createOffer())  # gathers ICE candidates
        offer = {"sdp": pc.localDescription.sdp, "type": pc.localDescription.type}
        try:
            answer = await asyncio.to_thread(post_json, self.url, offer, self.timeout_s)
        except SystemUnderTestError as exc:
            raise SystemUnderTestError(self._redactor.scrub(str(exc))) from None
        if answer.get("type") != "answer" or not isinstance(answer.get("sdp"), str):
            raise SystemUnderTestError("signalling: the reply is not an SDP answer "
                                       "({\"type\": \"answer\", \"sdp\": ...})")
        try:
            await pc.setRemoteDescription(aiortc.RTCSessionDescription(
                sdp=answer["sdp"], type="answer"))
        except ValueError as exc:
            raise SystemUnderTestError(f"signalling: the SDP answer is unusable: "
                                       f"{self._redactor.scrub(str(exc))}") from None
        # the media path (ICE, then DTLS) is up before the session's clock starts: frames
        # queued during the handshake would leave in a burst and shift the whole session;
        # ICE gives up only after its checks time out (half a minute or more), so the wait
        # is bounded by the signalling timeout too
        try:
            await asyncio.wait_for(connected.wait(), self.timeout_s)
        except TimeoutError:
            raise SystemUnderTestError(
                f"webrtc: the media path did not connect within {self.timeout_s:g} s of the "
                f"answer (signalling_timeout_s)") from None
        if pc.connectionState != "connected":
            raise SystemUnderTestError(f"webrtc connection {pc.connectionState} while "
                                       f"connecting")

    async def _play(self, track: Any, sample_rate: int) -> None:
        """Decode the agent's track into mono PCM16 at the session rate, as events."""
        from aiortc.mediastreams import MediaStreamError
        from av import AudioResampler

        resampler = AudioResampler(format="s16", layout="mono", rate=sample_rate)
        try:
            while True:
                frame = await track.recv()
                for out in resampler.resample(frame):
                    self._events.put_nowait(AudioOut(out.to_ndarray().astype("<i2").tobytes()))
        except MediaStreamError:
            if not self._closing:
                self._events.put_nowait(AgentFault("webrtc: the agent's audio track ended"))
                self._events.put_nowait(_END)

    async def send_audio(self, pcm16: bytes) -> None:
        assert self._user is not None, "connect first"
        self._user.frames.put_nowait(pcm16)

    async def events(self) -> AsyncIterator[AgentEvent]:
        while True:
            event = await self._events.get()
            if event is _END:
                return
            assert isinstance(event, AudioOut | AgentFault)
            yield event

    async def report_played(self, played_ms: int) -> None:
        """Nothing to send: WebRTC has no truncate message."""

    async def end_input(self) -> None:
        """Nothing to send: the session ends by closing the peer connection."""

    async def close(self) -> None:
        self._closing = True
        if self._user is not None:
            self._user.frames.put_nowait(None)
        if self._pc is not None:
            await self._pc.close()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
