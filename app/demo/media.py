"""Deterministic raster images, a WAV tone and an MJPEG AVI clip for the demo."""

from __future__ import annotations

import io
import math
import struct
from array import array
from collections.abc import Sequence

from PIL import Image, ImageDraw, ImageFont

CHART_SIZE = (800, 500)
LOGO_SIZE = 256
CLIP_SIZE = (320, 240)
CLIP_FPS = 10
CLIP_FRAMES = 20
TONE_RATE = 22050
TONE_SECONDS = 2.0

QUARTERS: tuple[tuple[str, float], ...] = (
    ("Q1", 182.4),
    ("Q2", 205.9),
    ("Q3", 231.7),
    ("Q4", 268.3),
)

_INK = (31, 41, 55)
_GRID = (226, 232, 240)
_BAR_COLORS = ((37, 99, 235), (14, 165, 233), (16, 185, 129), (245, 158, 11))


def _png_bytes(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def bar_chart_png(
    title: str, bars: Sequence[tuple[str, float]] = QUARTERS, unit: str = "k$"
) -> bytes:
    """Return an 800x500 PNG bar chart of (label, value) pairs."""
    width, height = CHART_SIZE
    image = Image.new("RGB", CHART_SIZE, (255, 255, 255))
    draw = ImageDraw.Draw(image)
    left, top, right, bottom = 90, 80, width - 40, height - 70
    draw.text((left, 28), title, fill=_INK, font=_font(26))

    top_value = max(value for _, value in bars) * 1.15
    step = 50.0
    tick = 0.0
    while tick <= top_value:
        y = bottom - (bottom - top) * tick / top_value
        draw.line((left, y, right, y), fill=_GRID, width=1)
        draw.text((left - 12, y), f"{tick:.0f}", fill=_INK, font=_font(14), anchor="rm")
        tick += step
    draw.line((left, top, left, bottom), fill=_INK, width=2)
    draw.line((left, bottom, right, bottom), fill=_INK, width=2)

    slot = (right - left) / len(bars)
    for index, (label, value) in enumerate(bars):
        x0 = left + slot * index + slot * 0.2
        x1 = left + slot * (index + 1) - slot * 0.2
        y0 = bottom - (bottom - top) * value / top_value
        color = _BAR_COLORS[index % len(_BAR_COLORS)]
        draw.rectangle((x0, y0, x1, bottom), fill=color)
        centre = (x0 + x1) / 2
        caption = f"{value:g} {unit}".rstrip()
        draw.text((centre, y0 - 8), caption, fill=_INK, font=_font(16), anchor="ms")
        draw.text((centre, bottom + 12), label, fill=_INK, font=_font(18), anchor="mt")
    return _png_bytes(image)


def logo_png() -> bytes:
    """Return the agent's 256x256 logo: a rounded badge with rising bars."""
    size = LOGO_SIZE
    image = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((8, 8, size - 8, size - 8), radius=48, fill=(30, 58, 138))
    for index, height in enumerate((60, 95, 130)):
        x0 = 58 + index * 50
        draw.rounded_rectangle(
            (x0, 196 - height, x0 + 36, 196), radius=6, fill=_BAR_COLORS[index + 1]
        )
    draw.line((50, 150, 110, 110, 150, 120, 206, 62), fill=(255, 255, 255), width=8)
    draw.ellipse((194, 50, 218, 74), fill=(255, 255, 255))
    return _png_bytes(image)


def tone_wav() -> bytes:
    """Return a 2 s mono 16-bit PCM A-major chord with a short fade in and out."""
    import wave

    frequencies = (440.0, 554.37, 659.25)
    count = int(TONE_RATE * TONE_SECONDS)
    fade = int(TONE_RATE * 0.15)
    samples = array("h")
    for n in range(count):
        t = n / TONE_RATE
        level = sum(math.sin(2 * math.pi * f * t) for f in frequencies) / 3
        envelope = min(1.0, n / fade, (count - 1 - n) / fade)
        samples.append(round(level * envelope * 0.6 * 32767))
    if samples.itemsize != 2:
        raise RuntimeError("array('h') is not 16-bit on this platform")
    # WAV stores little-endian samples whatever the host order is.
    if struct.pack("=h", 1) != struct.pack("<h", 1):
        samples.byteswap()

    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as writer:
        writer.setnchannels(1)
        writer.setsampwidth(2)
        writer.setframerate(TONE_RATE)
        writer.writeframes(samples.tobytes())
    return buffer.getvalue()


def clip_frames() -> list[bytes]:
    """Return the clip's JPEG frames: a bar sweeping right and a frame counter."""
    width = CLIP_SIZE[0]
    frames = []
    for index in range(CLIP_FRAMES):
        image = Image.new("RGB", CLIP_SIZE, (15, 23, 42))
        draw = ImageDraw.Draw(image)
        progress = (index + 1) / CLIP_FRAMES
        draw.rectangle((20, 150, 20 + (width - 40) * progress, 190), fill=(37, 99, 235))
        draw.rectangle((20, 150, width - 20, 190), outline=(148, 163, 184), width=2)
        x = 20 + (width - 60) * index / (CLIP_FRAMES - 1)
        draw.ellipse((x, 70, x + 40, 110), fill=(245, 158, 11))
        draw.text(
            (20, 20),
            f"frame {index + 1:02d}/{CLIP_FRAMES}",
            fill=(241, 245, 249),
            font=_font(22),
        )
        buffer = io.BytesIO()
        image.save(buffer, format="JPEG", quality=85)
        frames.append(buffer.getvalue())
    return frames


def _chunk(fourcc: bytes, data: bytes) -> bytes:
    # RIFF chunks start on even offsets, so odd-sized data gets one pad byte.
    pad = b"\0" if len(data) % 2 else b""
    return fourcc + struct.pack("<I", len(data)) + data + pad


def _list(kind: bytes, body: bytes) -> bytes:
    return b"LIST" + struct.pack("<I", len(body) + 4) + kind + body


def mjpeg_avi(frames: Sequence[bytes], width: int, height: int, fps: int) -> bytes:
    """Wrap JPEG frames in an AVI 1.0 (RIFF) container with an idx1 index."""
    largest = max(len(frame) for frame in frames)
    avih = struct.pack(
        "<10I16x",
        1_000_000 // fps,  # microseconds per frame
        largest * fps,  # max bytes per second
        0,  # padding granularity
        0x10,  # AVIF_HASINDEX
        len(frames),
        0,  # initial frames
        1,  # streams
        largest,
        width,
        height,
    )
    strh = struct.pack(
        "<4s4sI2H8I4h",
        b"vids",
        b"MJPG",
        0,  # flags
        0,  # priority
        0,  # language
        0,  # initial frames
        1,  # scale
        fps,  # rate: rate / scale = frames per second
        0,  # start
        len(frames),
        largest,
        0xFFFFFFFF,  # quality: driver default
        0,  # sample size: variable
        0,  # frame rectangle: left, top, right, bottom
        0,
        width,
        height,
    )
    strf = struct.pack(  # BITMAPINFOHEADER
        "<IiiHH4sIiiII",
        40,  # header size
        width,
        height,
        1,  # planes
        24,  # bits per pixel once decoded
        b"MJPG",
        width * height * 3,  # decoded image size
        0,  # horizontal pixels per metre: unknown
        0,  # vertical pixels per metre: unknown
        0,  # colours used: none, no palette
        0,  # important colours: all
    )
    strl = _list(b"strl", _chunk(b"strh", strh) + _chunk(b"strf", strf))
    hdrl = _list(b"hdrl", _chunk(b"avih", avih) + strl)

    movi_body = bytearray()
    index = bytearray()
    for frame in frames:
        # idx1 offsets count from the 'movi' fourcc, which is 4 bytes before the body.
        index += struct.pack("<4sIII", b"00dc", 0x10, len(movi_body) + 4, len(frame))
        movi_body += _chunk(b"00dc", frame)
    movi = _list(b"movi", bytes(movi_body))
    idx1 = _chunk(b"idx1", bytes(index))

    body = b"AVI " + hdrl + movi + idx1
    return b"RIFF" + struct.pack("<I", len(body)) + body


def clip_avi() -> bytes:
    """Return the demo clip: 2 s of 320x240 Motion-JPEG at 10 frames per second."""
    width, height = CLIP_SIZE
    return mjpeg_avi(clip_frames(), width, height, CLIP_FPS)
