"""A real Pipecat pipeline for the ``pipecat`` transport's tests; run with Pipecat's Python.

    PYTHON pipecat_bot.py PORT

serves one client on 127.0.0.1:PORT over Pipecat's WebSocket server transport with its
ProtobufFrameSerializer, and prints ``ready`` once the server listens. The pipeline is
transport input -> AnswerAudioWithAudio -> transport output: when the user has been
loud (above 1000 in PCM16) and then quiet for QUIET_MS, the bot answers with REPLY_MS of
a 440 Hz tone at 24 kHz (the bot's output rate differs from the 16 kHz input on purpose).
"""

from __future__ import annotations

import asyncio
import sys

import numpy as np
from pipecat.frames.frames import (
    Frame,
    InputAudioRawFrame,
    OutputAudioRawFrame,
)
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.runner import PipelineRunner
from pipecat.pipeline.task import PipelineParams, PipelineTask
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.serializers.protobuf import ProtobufFrameSerializer
from pipecat.transports.websocket.server import (
    SingleClientWebsocketServerParams,
    SingleClientWebsocketServerTransport,
)

QUIET_MS, REPLY_MS, OUT_RATE, LOUD = 200, 600, 24000, 1000


class AnswerAudioWithAudio(FrameProcessor):
    def __init__(self) -> None:
        super().__init__()
        self.heard = False
        self.quiet_ms = 0.0

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if not isinstance(frame, InputAudioRawFrame):
            await self.push_frame(frame, direction)
            return
        pcm = np.frombuffer(frame.audio, dtype="<i2")
        ms = pcm.size * 1000.0 / frame.sample_rate
        if pcm.size and np.abs(pcm.astype(np.int32)).max() > LOUD:
            self.heard, self.quiet_ms = True, 0.0
            return
        self.quiet_ms += ms
        if self.heard and self.quiet_ms >= QUIET_MS:
            self.heard = False
            t = np.arange(OUT_RATE * REPLY_MS // 1000) / OUT_RATE
            tone = (8000 * np.sin(2 * np.pi * 440 * t)).astype("<i2").tobytes()
            await self.push_frame(OutputAudioRawFrame(tone, OUT_RATE, 1))


async def main(port: int) -> None:
    transport = SingleClientWebsocketServerTransport(
        SingleClientWebsocketServerParams(audio_in_enabled=True, audio_out_enabled=True,
                                          serializer=ProtobufFrameSerializer()),
        host="127.0.0.1", port=port)

    @transport.event_handler("on_websocket_ready")
    async def ready(_transport: object) -> None:
        print("ready", flush=True)

    pipeline = Pipeline([transport.input(), AnswerAudioWithAudio(), transport.output()])
    task = PipelineTask(pipeline, params=PipelineParams(audio_in_sample_rate=16000,
                                                        audio_out_sample_rate=OUT_RATE))
    await PipelineRunner(handle_sigint=True).run(task)


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1])))
