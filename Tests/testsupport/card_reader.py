"""The Python twin of `TestCard.decode` (Sources/Engine/Media/TestCardSource.swift), for pictures received by aiortc
and Chromium: the code strip along the bottom eighth of the picture, 2 rows of 40 black/white blocks holding the frame
counter, the capture time and the participant with a checksum. Every size is a fraction of the picture's, so a card
scaled on the way reads at the size it arrives; only the middle half of each block is read, so blur at block edges
(VP8 at low bitrates, scaling) does not matter."""

from __future__ import annotations

import numpy

COLUMNS, ROWS, BITS = 40, 2, 80

# TestCard.colour(for:) in Y'CbCr, indexed by participant % 7.
CARD_COLOURS = [(81, 90, 240), (145, 54, 34), (110, 200, 60), (90, 180, 200), (140, 70, 180), (120, 170, 150),
                (100, 110, 90)]


def card_band_top(height: int) -> int:
    """The first row of the code strip (TestCard.bandTop): everything above it is the picture."""
    return height - (height // 20) * ROWS - height // 40


def _checksum(counter: int, millis: int, participant: int) -> int:
    m = 0xFFFFFFFF
    x = (counter ^ ((millis * 0x9E3779B9) & m) ^ ((participant * 0x85EBCA6B) & m)) & m
    x ^= x >> 16
    x = (x * 0x7FEB352D) & m
    x ^= x >> 15
    return x & 0xFF


def card_code_bits(counter: int, millis: int, participant: int) -> list[bool]:
    """The 80 bits of a card's strip, most significant first (TestCard.bits): counter (32), capture time (32),
    participant (8), checksum (8). What `aiortc_media.TestCardTrack` draws."""
    words = [counter >> 16, counter & 0xFFFF, millis >> 16, millis & 0xFFFF,
             participant << 8 | _checksum(counter, millis, participant)]
    return [bool((word >> (15 - i)) & 1) for word in words for i in range(16)]


def read_test_card(y: numpy.ndarray) -> dict | None:
    """{counter, capture_millis, participant} from a luma plane, or None when there is no valid code strip."""
    height, width = y.shape
    bw, bh = width // COLUMNS, height // 20
    if bw < 2 or bh < 2:
        return None
    top, left = card_band_top(height), (width - bw * COLUMNS) // 2
    words = [0] * (BITS // 16)
    for i in range(BITS):
        x0 = left + (i % COLUMNS) * bw + bw // 4
        y0 = top + (i // COLUMNS) * bh + bh // 4
        mean = int(y[y0:y0 + max(1, bh // 2), x0:x0 + max(1, bw // 2)].mean())
        if 90 < mean < 160:
            return None   # black is 16 and white 235: anything far from both is not a card's strip
        if mean >= 126:
            words[i // 16] |= 1 << (15 - i % 16)
    if not any(words):
        return None   # the all-black strip passes the checksum (0, 0, 0 -> 0): a dark picture, not a card
    counter = words[0] << 16 | words[1]
    millis = words[2] << 16 | words[3]
    participant = words[4] >> 8
    if _checksum(counter, millis, participant) != words[4] & 0xFF:
        return None
    return {"counter": counter, "capture_millis": millis, "participant": participant}


def card_background(yuv: tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]) -> tuple[int, int, int]:
    """The median Y'CbCr above the code strip: the participant colour (the bar, name and counter are a minority)."""
    y, u, v = yuv
    top = card_band_top(y.shape[0])
    return (int(numpy.median(y[:top])), int(numpy.median(u[:top // 2])), int(numpy.median(v[:top // 2])))
