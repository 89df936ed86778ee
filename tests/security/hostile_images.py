"""Hostile images made at test time: Pillow writes each, then its size is lied about.

An attacker's file is an ordinary one with a header that claims, or an icon
entry that holds, far more pixels than it shows: each builder saves a real
image with Pillow and then changes only what the attack needs (the declared
size, or the image an icon's directory points at), keeping checksums valid.
"""

from __future__ import annotations

import io
import struct
import zlib

from PIL import Image


def encoded(image: Image.Image, fmt: str, **options: object) -> bytes:
    out = io.BytesIO()
    image.save(out, fmt, **options)
    return out.getvalue()


def png(width: int, height: int) -> bytes:
    """A real PNG of one colour; a large one compresses to a few hundred KiB."""
    return encoded(Image.new("RGB", (width, height), (200, 30, 30)), "PNG")


def icon_holding(payload: bytes, listed: int) -> bytes:
    """A Pillow icon listed as ``listed`` px whose one image is ``payload``.

    The directory stays Pillow's own (one byte per side: 0 means 256); only
    its image is swapped and its byte count set to the new one's.
    """
    icon = encoded(
        Image.new("RGBA", (listed, listed), (30, 90, 200, 255)),
        "ICO",
        sizes=[(listed, listed)],
    )
    count, offset = struct.unpack_from("<II", icon, 6 + 8)
    assert offset + count == len(icon)  # one image, right after the directory
    directory = bytearray(icon[:offset])
    struct.pack_into("<I", directory, 6 + 8, len(payload))
    return bytes(directory) + payload


def icon_with_huge_bitmap(width: int, height: int) -> bytes:
    """A Pillow BMP-format icon whose bitmap header claims ``width`` x ``height``."""
    icon = bytearray(
        encoded(
            Image.new("RGBA", (16, 16), (30, 90, 200, 255)),
            "ICO",
            sizes=[(16, 16)],
            bitmap_format="bmp",
        )
    )
    (offset,) = struct.unpack_from("<I", icon, 6 + 12)
    # The bitmap's rows count its colour and its mask together.
    struct.pack_into("<ii", icon, offset + 4, width, 2 * height)
    return bytes(icon)


def png_declaring(width: int, height: int) -> bytes:
    """A Pillow PNG whose IHDR says ``width`` x ``height`` (its CRC made right)."""
    data = bytearray(png(8, 8))
    struct.pack_into(">II", data, 16, width, height)
    struct.pack_into(">I", data, 29, zlib.crc32(bytes(data[12:29])))
    return bytes(data)


def gif_declaring(width: int, height: int) -> bytes:
    """A Pillow GIF whose logical screen is ``width`` x ``height``."""
    data = bytearray(encoded(Image.new("P", (8, 8), 1), "GIF"))
    struct.pack_into("<HH", data, 6, width, height)
    return bytes(data)


def bmp_declaring(width: int, height: int) -> bytes:
    """A Pillow BMP whose info header says ``width`` x ``height``."""
    data = bytearray(encoded(Image.new("RGB", (8, 8), (1, 2, 3)), "BMP"))
    struct.pack_into("<ii", data, 18, width, height)
    return bytes(data)


def webp_declaring(width: int, height: int) -> bytes:
    """A Pillow animated WebP whose canvas (VP8X) is ``width`` x ``height``."""
    frames = [Image.new("RGBA", (16, 16), (n * 80, 40, 90, 255)) for n in range(2)]
    data = bytearray(
        encoded(frames[0], "WEBP", save_all=True, append_images=frames[1:])
    )
    at = data.index(b"VP8X") + 8 + 4  # chunk id, length, flags
    data[at : at + 3] = (width - 1).to_bytes(3, "little")
    data[at + 3 : at + 6] = (height - 1).to_bytes(3, "little")
    return bytes(data)
