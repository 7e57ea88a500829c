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


class TestCardTrack(PacedTrack):
    """The Python twin of conftui's test card (Sources/Engine/Media/TestCardSource.swift), `width`x`height` at `fps`:
    the participant's colour (card_reader.CARD_COLOURS), a light bar sweeping across every two seconds, and the code
    strip along the bottom (frame counter, capture time in ms modulo 2^32, participant, checksum) that
    `card_reader.read_test_card` reads back, so a receiver knows whose picture it decoded and which frame."""

    kind = "video"
    __test__ = False   # not a pytest class, whatever its name

    def __init__(self, participant: int, fps: int = 15, width: int = 320, height: int = 240) -> None:
        super().__init__(1 / fps)
        assert 0 <= participant <= 255 and width % 2 == 0 and height % 2 == 0
        self.participant, self.fps, self.width, self.height = participant, fps, width, height

    def _planes(self) -> tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
        from testsupport.card_reader import BITS, CARD_COLOURS, COLUMNS, card_band_top, card_code_bits
        w, h = self.width, self.height
        y = numpy.empty((h, w), dtype=numpy.uint8)
        u = numpy.empty((h // 2, w // 2), dtype=numpy.uint8)
        v = numpy.empty((h // 2, w // 2), dtype=numpy.uint8)
        top = card_band_top(h)
        colour = CARD_COLOURS[self.participant % 7]
        y[:top], u[:top // 2], v[:top // 2] = colour
        bar_width, period = max(2, w // 20), max(1, self.fps * 2)
        bx = (self.sent % period) * (w - bar_width) // period
        y[:top, bx:bx + bar_width] = 200
        u[:top // 2, bx // 2:(bx + bar_width) // 2] = 128
        v[:top // 2, bx // 2:(bx + bar_width) // 2] = 128
        # The strip: black, with a white block for every bit set.
        y[top:], u[top // 2:], v[top // 2:] = 16, 128, 128
        bw, bh = w // COLUMNS, h // 20
        left = (w - bw * COLUMNS) // 2
        millis = int(time.time() * 1000) & 0xFFFFFFFF
        for i, bit in enumerate(card_code_bits(self.sent & 0xFFFFFFFF, millis, self.participant)[:BITS]):
            if bit:
                x0, y0 = left + (i % COLUMNS) * bw, top + (i // COLUMNS) * bh
                y[y0:y0 + bh, x0:x0 + bw] = 235
        return y, u, v

    async def recv(self) -> VideoFrame:
        await self.next_slot()
        y, u, v = self._planes()
        frame = VideoFrame.from_ndarray(numpy.concatenate([y.reshape(-1), u.reshape(-1), v.reshape(-1)])
                                        .reshape(self.height * 3 // 2, self.width), format="yuv420p")
        frame.pts = self.sent * (90000 // self.fps)
        frame.time_base = fractions.Fraction(1, 90000)
        self.sent += 1
        return frame
