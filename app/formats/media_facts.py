"""WAV facts and a waveform, read from a verified file before playback."""

from __future__ import annotations

import array
import struct
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


# WAVE format tags (the fmt chunk's first field) that are not integer PCM.
_ENCODINGS = {
    0x0002: "Microsoft ADPCM",
    0x0003: "32-bit float samples",
    0x0006: "A-law",
    0x0007: "µ-law",
    0x0011: "IMA ADPCM",
    0x0031: "GSM 6.10",
    0x0050: "MPEG audio",
    0x0055: "MP3",
}
_PCM = 0x0001
_EXTENSIBLE = 0xFFFE
_FMT_SEARCH = 4096


def wav_encoding(head: bytes) -> str | None:
    """The name of a WAV's sample encoding when it is not plain PCM, from its header.

    Looks for the ``fmt `` chunk among the first chunks of ``head``; for
    ``WAVE_FORMAT_EXTENSIBLE`` the sub-format decides. None for PCM, or when
    the header says nothing clear.
    """
    if len(head) < 12 or head[8:12] != b"WAVE":
        return None
    position = 12
    while position + 8 <= min(len(head), _FMT_SEARCH):
        chunk, size = (
            head[position : position + 4],
            int.from_bytes(head[position + 4 : position + 8], "little"),
        )
        body = head[position + 8 : position + 8 + size]
        if chunk == b"fmt " and len(body) >= 2:
            (tag,) = struct.unpack_from("<H", body)
            if tag == _EXTENSIBLE and len(body) >= 26:
                (tag,) = struct.unpack_from("<H", body, 24)
                if tag == _PCM:
                    return None
                return _ENCODINGS.get(tag, f"an extensible format ({tag:#06x})")
            if tag == _PCM:
                return None
            return _ENCODINGS.get(tag, f"the format {tag:#06x}")
        position += 8 + size + (size & 1)
    return None


def _open_wav(stream: IO[bytes]) -> wave.Wave_read:
    try:
        return wave.open(stream, "rb")
    except (wave.Error, EOFError, ValueError, struct.error) as error:
        # wave reads PCM only: float, ADPCM, µ-law and extensible are "unknown".
        raise WavError("Only PCM WAV files have a waveform here.") from error


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
