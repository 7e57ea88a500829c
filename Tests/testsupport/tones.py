"""The pitch of received audio: what the tests compare with the tone each participant sends."""

from __future__ import annotations

import numpy


def dominant_frequency(samples: numpy.ndarray, rate: int = 48000) -> float:
    """The strongest frequency (Hz) in `samples`, ignoring DC."""
    spectrum = numpy.abs(numpy.fft.rfft(samples * numpy.hanning(len(samples))))
    return float(numpy.fft.rfftfreq(len(samples), 1 / rate)[int(numpy.argmax(spectrum[1:])) + 1])
