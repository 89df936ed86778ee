"""WAV facts and a downsampled waveform."""

from __future__ import annotations

import io
import math
import struct
import threading
import wave

import pytest

from app.formats import media_facts
from app.formats.media_facts import WavError, read_wav_facts, read_waveform
from tests.data import corpus


def wav_bytes(
    samples: list[float], *, rate: int = 8000, width: int = 2, channels: int = 1
) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as writer:
        writer.setnchannels(channels)
        writer.setsampwidth(width)
        writer.setframerate(rate)
        frames = bytearray()
        for value in samples:
            for _ in range(channels):
                if width == 1:
                    frames += bytes((int(value * 127) + 128,))
                else:
                    frames += struct.pack("<h", int(value * 32767))
        writer.writeframes(bytes(frames))
    return out.getvalue()


def test_wav_facts_come_from_the_header() -> None:
    facts = read_wav_facts(io.BytesIO(wav_bytes([0.0] * 16000, rate=8000)))
    assert (facts.channels, facts.sample_rate, facts.bits) == (1, 8000, 16)
    assert facts.duration == pytest.approx(2.0)


def test_the_waveform_follows_the_signal_amplitude() -> None:
    quiet_then_loud = [0.1 * math.sin(i / 5) for i in range(4000)] + [
        0.9 * math.sin(i / 5) for i in range(4000)
    ]
    waveform = read_waveform(io.BytesIO(wav_bytes(quiet_then_loud)), buckets=10)
    assert len(waveform.peaks) == 10
    _first_low, first_high = waveform.peaks[0]
    last_low, last_high = waveform.peaks[-1]
    assert first_high == pytest.approx(0.1, abs=0.02)
    assert last_high == pytest.approx(0.9, abs=0.02)
    assert last_low == pytest.approx(-0.9, abs=0.02)


def test_eight_bit_stereo_wav_has_a_waveform() -> None:
    data = wav_bytes([0.5] * 1000, width=1, channels=2)
    waveform = read_waveform(io.BytesIO(data), buckets=4)
    assert waveform.facts.channels == 2
    assert all(high == pytest.approx(0.5, abs=0.02) for _low, high in waveform.peaks)


def test_a_long_file_reads_a_bounded_number_of_samples() -> None:
    reads: list[int] = []
    data = wav_bytes([0.25] * 200_000)

    class Counting(io.BytesIO):
        def read(self, size: int | None = -1) -> bytes:
            chunk = super().read(size)
            reads.append(len(chunk))
            return chunk

    waveform = read_waveform(Counting(data), buckets=100, max_frames=10_000)
    assert len(waveform.peaks) == 100
    assert sum(reads) < len(data) / 10


def test_a_truncated_header_is_a_wav_error() -> None:
    with pytest.raises(WavError):
        read_waveform(io.BytesIO(b"RIFF\x00\x00\x00\x00WAVE"))


def test_a_cancelled_waveform_stops() -> None:
    cancelled = threading.Event()
    cancelled.set()
    with pytest.raises(WavError, match="cancelled"):
        read_waveform(io.BytesIO(wav_bytes([0.1] * 1000)), cancelled=cancelled)


def test_an_empty_wav_has_no_peaks() -> None:
    assert read_waveform(io.BytesIO(wav_bytes([]))).peaks == ()


def wav_header(tag: int, extensible_tag: int | None = None) -> bytes:
    return corpus.wav_bytes(tag, 16, b"\x00" * 64, extensible_tag=extensible_tag)


@pytest.mark.parametrize(
    ("tag", "extensible", "words"),
    [
        (0x0003, None, "float"),
        (0x0002, None, "ADPCM"),
        (0x0007, None, "µ-law"),
        (0xFFFE, 0x0003, "float"),
        (0xFFFE, 0x0011, "IMA ADPCM"),
    ],
)
def test_wavs_wave_cannot_read_are_named_and_give_a_sentence(
    tag: int, extensible: int | None, words: str
) -> None:
    data = wav_header(tag, extensible_tag=extensible)
    encoding = media_facts.wav_encoding(data)
    assert encoding is not None and words in encoding
    with pytest.raises(media_facts.WavError, match="Only PCM WAV files"):
        media_facts.read_waveform(io.BytesIO(data))


def test_pcm_wavs_have_no_encoding_to_name() -> None:
    assert media_facts.wav_encoding(wav_header(1)) is None
    assert media_facts.wav_encoding(wav_header(0xFFFE, extensible_tag=1)) is None
    assert media_facts.wav_encoding(b"RIFF\x00\x00\x00\x00AVI ") is None
