"""What aiortc sends in the tests: a known tone and a known picture, paced in real time, so a receiver can tell
them from anyone else's (and from silence and black)."""

from __future__ import annotations

import asyncio
import fractions
import time

import numpy
from aiortc.mediastreams import MediaStreamTrack
from av import AudioFrame, VideoFrame

AIORTC_TONE = 1000.0


class PacedTrack(MediaStreamTrack):
    """A track whose frames are due every `period` seconds from the first, as a real source produces them."""

    def __init__(self, period: float) -> None:
        super().__init__()
        self.period = period
        self.sent = 0
        self._start = 0.0

    async def next_slot(self) -> None:
        """Waits until frame number `sent` is due."""
        if self.sent == 0:
            self._start = time.monotonic()
        wait = self._start + self.sent * self.period - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)


class PacedTone(PacedTrack):
    """A sine of `hz`, 20 ms mono s16 frames at 48 kHz."""

    kind = "audio"

    def __init__(self, hz: float) -> None:
        super().__init__(0.02)
        self.hz = hz

    async def recv(self) -> AudioFrame:
        await self.next_slot()
        t = (numpy.arange(960) + self.sent * 960) / 48000
        samples = (numpy.sin(2 * numpy.pi * self.hz * t) * 9000).astype(numpy.int16)
        frame = AudioFrame.from_ndarray(samples.reshape(1, -1), format="s16", layout="mono")
        frame.sample_rate = 48000
        frame.pts = self.sent * 960
        frame.time_base = fractions.Fraction(1, 48000)
        self.sent += 1
        return frame


class HalfWhite(PacedTrack):
    """320x240 at `fps`: white top half, dark bottom half, a grey bar moving across so that frames differ (an
    encoder may skip identical ones). A mesh of several connections asks for fewer frames a second: one Python
    process encodes it for every peer, on two cores shared with everyone else."""

    kind = "video"

    def __init__(self, fps: int = 30) -> None:
        super().__init__(1 / fps)
        self.fps = fps

    async def recv(self) -> VideoFrame:
        await self.next_slot()
        image = numpy.full((240, 320, 3), 30, dtype=numpy.uint8)
        image[:120] = 220
        column = (self.sent * 40 // self.fps) % 300
        image[100:140, column:column + 20] = 128
        frame = VideoFrame.from_ndarray(image, format="bgr24")
        frame.pts = self.sent * (90000 // self.fps)
        frame.time_base = fractions.Fraction(1, 90000)
        self.sent += 1
        return frame


class Flat(PacedTrack):
    """320x240 at `fps`: one grey `level` (0...255, RGB) all over, with a small bar of `level` + 40 moving across so
    that frames differ. Beside `HalfWhite` it is a second picture a receiver can tell apart by its luma alone (a
    mean near `level`, a small spread)."""

    kind = "video"

    def __init__(self, level: int, fps: int = 30) -> None:
        super().__init__(1 / fps)
        self.level, self.fps = level, fps

    async def recv(self) -> VideoFrame:
        await self.next_slot()
        image = numpy.full((240, 320, 3), self.level, dtype=numpy.uint8)
        column = (self.sent * 40 // self.fps) % 300
        image[110:130, column:column + 20] = min(255, self.level + 40)
        frame = VideoFrame.from_ndarray(image, format="bgr24")
        frame.pts = self.sent * (90000 // self.fps)
        frame.time_base = fractions.Fraction(1, 90000)
        self.sent += 1
        return frame
