"""WAV facts and a waveform, read from a verified file before playback."""

from __future__ import annotations

import array
import sys
import threading
import wave
from dataclasses import dataclass
from typing import IO

WAVEFORM_BUCKETS = 1200
"""How many (min, max) pairs a waveform has; about one per pixel of a wide view."""

MAX_FRAMES_READ = 1 << 22
"""At most this many frames are read for a waveform, spread over the file."""

# Frames read per step: bounds memory and lets a cancel stop a long file.
_CHUNK_FRAMES = 1 << 16


@dataclass(frozen=True)
class WavFacts:
    """What a WAV header says."""

    channels: int
    sample_rate: int
    sample_width: int
    frames: int
    compression: str

    @property
    def duration(self) -> float:
        return self.frames / self.sample_rate if self.sample_rate else 0.0

    @property
    def bits(self) -> int:
        return self.sample_width * 8


@dataclass(frozen=True)
class Waveform:
    """Peaks per bucket: ``peaks[i]`` is (minimum, maximum) in -1.0 to 1.0."""

    peaks: tuple[tuple[float, float], ...]
    facts: WavFacts


class WavError(ValueError):
    """Not a PCM WAV the waveform reader understands; the message is for the user."""


def _open_wav(stream: IO[bytes]) -> wave.Wave_read:
    try:
        return wave.open(stream, "rb")
    except (wave.Error, EOFError, ValueError) as error:
        raise WavError(f"The WAV header cannot be read: {error}") from error


def _facts_of(reader: wave.Wave_read) -> WavFacts:
    return WavFacts(
        channels=reader.getnchannels(),
        sample_rate=reader.getframerate(),
        sample_width=reader.getsampwidth(),
        frames=reader.getnframes(),
        compression=reader.getcompname(),
    )


def read_wav_facts(stream: IO[bytes]) -> WavFacts:
    """Channels, rate, sample width and length from the header."""
    return _facts_of(_open_wav(stream))


def _mono_samples(raw: bytes, width: int, channels: int) -> list[float]:
    """The first channel of interleaved little-endian PCM, scaled to -1..1."""
    if width == 1:  # 8-bit WAV is unsigned
        values = [byte - 128 for byte in raw[::channels]]
        return [value / 128 for value in values]
    if width == 2:
        samples = array.array("h")
        samples.frombytes(raw[: len(raw) - len(raw) % 2])
        if sys.byteorder == "big":
            samples.byteswap()
        return [value / 32768 for value in samples[::channels]]
    step = width * channels
    scale = float(1 << (8 * width - 1))
    return [
        int.from_bytes(raw[i : i + width], "little", signed=True) / scale
        for i in range(0, len(raw) - width + 1, step)
    ]


def read_waveform(
    stream: IO[bytes],
    buckets: int = WAVEFORM_BUCKETS,
    cancelled: threading.Event | None = None,
    max_frames: int = MAX_FRAMES_READ,
) -> Waveform:
    """A downsampled waveform of the first channel of a PCM WAV.

    Long files are sampled: at most ``max_frames`` frames are read,
    spread evenly over the file, so the cost is bounded whatever the length.
    """
    reader = _open_wav(stream)
    facts = _facts_of(reader)
    if facts.sample_width not in (1, 2, 3, 4) or facts.channels < 1:
        raise WavError("Only PCM WAV files have a waveform here.")
    total = facts.frames
    if total == 0 or buckets <= 0:
        return Waveform((), facts)
    buckets = min(buckets, total)
    per_bucket = total / buckets
    # Read every bucket's share, or an evenly spaced slice of it when long.
    read_per_bucket = max(1, min(int(per_bucket), max_frames // buckets))
    read_per_bucket = min(read_per_bucket, _CHUNK_FRAMES)
    peaks: list[tuple[float, float]] = []
    for index in range(buckets):
        if cancelled is not None and cancelled.is_set():
            raise WavError("cancelled")
        start = int(index * per_bucket)
        try:
            reader.setpos(start)
            raw = reader.readframes(read_per_bucket)
        except (wave.Error, EOFError, OSError) as error:
            raise WavError(f"The WAV data cannot be read: {error}") from error
        samples = _mono_samples(raw, facts.sample_width, facts.channels)
        if not samples:
            break  # a header that claims more frames than the file holds
        peaks.append((max(-1.0, min(samples)), min(1.0, max(samples))))
    return Waveform(tuple(peaks), facts)
