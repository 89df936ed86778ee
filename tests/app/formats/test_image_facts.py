"""Image facts from headers, the pixel limit, and decoding sized to the view."""

from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path

import pytest
from PIL import Image

from app.formats.image_facts import (
    FORMATS,
    MAX_PIXELS,
    ImageDataError,
    ReadAtStream,
    decode_scaled,
    fit_within,
    format_for_mime,
    megapixels,
    pixel_refusal,
    read_facts,
)

PNG = FORMATS["image/png"]
JPEG = FORMATS["image/jpeg"]
GIF = FORMATS["image/gif"]


def png_header(width: int, height: int) -> bytes:
    """A PNG that declares a size in its header but holds no pixel data."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", b"")


def chunk(kind: bytes, body: bytes) -> bytes:
    crc = struct.pack(">I", zlib.crc32(kind + body))
    return struct.pack(">I", len(body)) + kind + body + crc


def encoded(image: Image.Image, fmt: str, **options: object) -> bytes:
    out = io.BytesIO()
    image.save(out, fmt, **options)
    return out.getvalue()


def test_png_dimensions_come_from_the_header_alone() -> None:
    facts = read_facts(io.BytesIO(png_header(640, 480)), PNG)
    assert (facts.width, facts.height, facts.frames) == (640, 480, 1)


def test_a_bomb_header_is_measured_and_refused_with_its_size() -> None:
    facts = read_facts(io.BytesIO(png_header(20000, 20000)), PNG)
    assert facts.pixels == 400_000_000
    assert pixel_refusal(facts) == (
        "The image is 20000\u00d720000 pixels (400 MP), more than the 89 MP "
        "this viewer decodes."
    )


def test_an_image_at_the_limit_is_not_refused() -> None:
    facts = read_facts(io.BytesIO(png_header(9459, 9459)), PNG)
    assert facts.pixels <= MAX_PIXELS
    assert pixel_refusal(facts) is None


def test_decoding_a_bomb_header_refuses_before_reading_pixels() -> None:
    with pytest.raises(ImageDataError, match="20000\u00d720000"):
        decode_scaled(png_header(20000, 20000), PNG, (100, 100))


def test_a_truncated_png_fails_with_a_clear_message() -> None:
    data = encoded(Image.new("RGB", (200, 200), "red"), "PNG")
    with pytest.raises(ImageDataError, match="The PNG data is damaged or truncated"):
        decode_scaled(data[: len(data) // 2], PNG)


def test_a_header_of_another_format_is_not_read_as_png() -> None:
    data = encoded(Image.new("RGB", (8, 8)), "JPEG")
    with pytest.raises(ImageDataError, match="PNG"):
        read_facts(io.BytesIO(data), PNG)


def test_exif_orientation_swaps_the_displayed_size_and_the_decode() -> None:
    exif = Image.Exif()
    exif[0x0112] = 6
    data = encoded(Image.new("RGB", (300, 100), "blue"), "JPEG", exif=exif)
    facts = read_facts(io.BytesIO(data), JPEG)
    assert facts.orientation == 6
    assert facts.display_size == (100, 300)
    decoded = decode_scaled(data, JPEG)
    assert (decoded.width, decoded.height) == (100, 300)


def test_a_large_jpeg_is_decoded_no_larger_than_the_bound() -> None:
    data = encoded(Image.new("RGB", (4000, 3000), "green"), "JPEG")
    decoded = decode_scaled(data, JPEG, (800, 800))
    assert (decoded.width, decoded.height) == (800, 600)
    assert (decoded.full_width, decoded.full_height) == (4000, 3000)
    assert len(decoded.data) == 800 * 600 * 4
    assert decoded.scale == pytest.approx(0.2)


def test_transparency_survives_as_rgba() -> None:
    data = encoded(Image.new("RGBA", (4, 4), (10, 20, 30, 0)), "PNG")
    decoded = decode_scaled(data, PNG)
    assert decoded.data[:4] == bytes((10, 20, 30, 0))


def test_sixteen_bit_greyscale_is_scaled_not_clipped() -> None:
    image = Image.new("I;16", (4, 4), 32768)
    decoded = decode_scaled(encoded(image, "PNG"), PNG)
    assert decoded.data[0] == 128


def test_animated_gif_counts_its_frames() -> None:
    frames = [Image.new("RGB", (20, 10), (index * 50, 0, 0)) for index in range(5)]
    data = encoded(frames[0], "GIF", save_all=True, append_images=frames[1:])
    facts = read_facts(io.BytesIO(data), GIF)
    assert facts.frames == 5
    assert facts.animated


def test_each_accepted_format_reads_its_size(tmp_path: Path) -> None:
    image = Image.new("RGB", (48, 32), "white")
    for fmt, pillow in (
        ("image/bmp", "BMP"),
        ("image/webp", "WEBP"),
        ("image/tiff", "TIFF"),
    ):
        facts = read_facts(io.BytesIO(encoded(image, pillow)), FORMATS[fmt])
        assert (facts.width, facts.height) == (48, 32), fmt
    icon = encoded(image, "ICO", sizes=[(32, 32)])
    assert read_facts(io.BytesIO(icon), FORMATS["image/vnd.microsoft.icon"]).width == 32


def test_svg_is_not_an_accepted_format() -> None:
    assert format_for_mime("image/svg+xml") is None
    assert format_for_mime("image/png") is PNG


def test_read_at_stream_reads_through_positional_reads() -> None:
    data = bytes(range(100))
    calls: list[tuple[int, int]] = []

    def read_at(size: int, offset: int) -> bytes:
        calls.append((size, offset))
        return data[offset : offset + size]

    stream = io.BufferedReader(ReadAtStream(read_at, len(data)), buffer_size=16)
    stream.seek(90)
    assert stream.read(20) == data[90:]
    assert all(offset >= 90 for _size, offset in calls)


def test_fit_within_never_grows_and_keeps_the_ratio() -> None:
    assert fit_within((6000, 4000), (1280, 1280)) == (1280, 853)
    assert fit_within((100, 50), (1280, 1280)) == (100, 50)


def test_megapixels_reads_naturally() -> None:
    assert megapixels(24_000_000) == "24 MP"
    assert megapixels(400_000) == "0.4 MP"
    assert megapixels(9_600) == "<0.1 MP"


def test_the_facts_read_exif_without_decoding_a_pixel(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from PIL import ImageFile

    exif = Image.Exif()
    exif[0x0112] = 6
    data = encoded(Image.new("RGB", (40, 20)), "PNG", exif=exif.tobytes())

    def no_decoding(self: object) -> None:
        raise AssertionError("the facts decoded the pixels")

    monkeypatch.setattr(ImageFile.ImageFile, "load", no_decoding)
    facts = read_facts(io.BytesIO(data), PNG)
    assert (facts.width, facts.height, facts.orientation) == (40, 20, 6)
    # Without an eXIf chunk before the pixels, Pillow's getexif() decodes them
    # all looking for one further on.
    plain = encoded(Image.new("RGB", (40, 20)), "PNG")
    assert read_facts(io.BytesIO(plain), PNG).orientation == 1


def test_a_bomb_is_refused_from_its_header_before_its_exif_is_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from app.formats import image_facts

    read: list[object] = []
    monkeypatch.setattr(image_facts, "_orientation", lambda image: read.append(1))
    facts = read_facts(io.BytesIO(png_header(20000, 20000)), PNG)
    assert pixel_refusal(facts) is not None and read == []
    with pytest.raises(ImageDataError, match="20000\u00d720000"):
        decode_scaled(png_header(20000, 20000), PNG, (100, 100))
    assert read == []


@pytest.mark.parametrize(("width", "height"), [(0, 0), (0, 10)])
def test_a_header_without_pixels_says_so(width: int, height: int) -> None:
    with pytest.raises(ImageDataError, match=r"no pixels|damaged"):
        read_facts(io.BytesIO(png_header(width, height)), PNG)


def test_a_tall_sliver_header_is_refused_without_running_out_of_memory() -> None:
    facts = read_facts(io.BytesIO(png_header(1, 2147483647)), PNG)
    assert pixel_refusal(facts) is not None
    with pytest.raises(ImageDataError, match="more than the 89 MP"):
        decode_scaled(png_header(1, 2147483647), PNG, (100, 100))


@pytest.mark.parametrize("error", [TypeError("takes at most 3 arguments"), KeyError(1)])
def test_a_decoder_failing_oddly_on_fuzzed_data_says_the_data_is_damaged(
    monkeypatch: pytest.MonkeyPatch, error: Exception
) -> None:
    from PIL import ImageFile

    def broken(self: object) -> None:
        raise error

    data = encoded(Image.new("RGB", (40, 20)), "PNG")
    monkeypatch.setattr(ImageFile.ImageFile, "load", broken)
    with pytest.raises(ImageDataError, match=r"^The PNG data is damaged or truncated$"):
        decode_scaled(data, PNG, (40, 20))


ICO = FORMATS["image/vnd.microsoft.icon"]


@pytest.fixture
def allocations(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """The size of every image Pillow's decoders allocate."""
    found: list[tuple[int, int]] = []
    for name in ("new", "fill"):
        real = getattr(Image.core, name)

        def spy(mode, size, *args, _real=real):  # type: ignore[no-untyped-def]
            found.append(tuple(size))
            return _real(mode, size, *args)

        monkeypatch.setattr(Image.core, name, spy)
    return found


def test_an_icon_is_measured_by_its_images_own_headers_decoding_nothing(
    allocations: list[tuple[int, int]],
) -> None:
    from tests.security.hostile_images import icon_holding

    # Listed as 16x16 in the directory; the PNG inside is 3000x2000.
    data = icon_holding(encoded(Image.new("L", (3000, 2000)), "PNG"), 16)
    allocations.clear()
    facts = read_facts(io.BytesIO(data), ICO)
    assert (facts.width, facts.height) == (3000, 2000)
    assert allocations == []
    with pytest.raises(ImageDataError, match="3000\u00d72000"):
        decode_scaled(data, ICO, (96, 96), limit=5_000_000)
    assert allocations == []


def test_an_icon_bitmap_that_claims_a_huge_size_is_refused_unread(
    allocations: list[tuple[int, int]],
) -> None:
    from tests.security.hostile_images import icon_with_huge_bitmap

    data = icon_with_huge_bitmap(20000, 20000)
    allocations.clear()
    facts = read_facts(io.BytesIO(data), ICO)
    assert pixel_refusal(facts) is not None
    with pytest.raises(ImageDataError, match="20000\u00d720000"):
        decode_scaled(data, ICO, (96, 96))
    assert allocations == []


@pytest.mark.parametrize(
    ("bound", "decoded", "shown"),
    [
        ((96, 96), (128, 128), (96, 96)),
        ((20, 20), (32, 32), (20, 20)),
        (None, (256, 256), (256, 256)),
    ],
)
def test_an_icon_decodes_only_its_image_nearest_the_bound(
    allocations: list[tuple[int, int]],
    bound: tuple[int, int] | None,
    decoded: tuple[int, int],
    shown: tuple[int, int],
) -> None:
    sizes = [(16, 16), (32, 32), (128, 128), (256, 256)]
    data = encoded(Image.new("RGBA", (256, 256), (9, 8, 7, 255)), "ICO", sizes=sizes)
    allocations.clear()
    result = decode_scaled(data, ICO, bound)
    assert (result.width, result.height) == shown
    assert (result.full_width, result.full_height) == (256, 256)
    assert max(w * h for w, h in allocations) == decoded[0] * decoded[1]


def test_an_icon_of_bitmaps_decodes_its_best_bitmap() -> None:
    data = encoded(
        Image.new("RGBA", (48, 48), (200, 10, 10, 255)),
        "ICO",
        sizes=[(16, 16), (48, 48)],
        bitmap_format="bmp",
    )
    result = decode_scaled(data, ICO, (16, 16))
    assert (result.width, result.height) == (16, 16)
    assert result.data[:4] == bytes((200, 10, 10, 255))


@pytest.mark.parametrize("fmt", ["png", "gif", "bmp", "webp"])
def test_every_format_is_held_to_the_callers_pixel_limit_before_decoding(
    allocations: list[tuple[int, int]], fmt: str
) -> None:
    from tests.security import hostile_images

    data = getattr(hostile_images, f"{fmt}_declaring")(7000, 7000)
    mime = {"png": "image/png", "gif": "image/gif", "bmp": "image/bmp"}
    image_format = FORMATS[mime.get(fmt, "image/webp")]
    allocations.clear()
    with pytest.raises(ImageDataError, match="more than the 40 MP"):
        decode_scaled(data, image_format, (96, 96), limit=40_000_000)
    assert allocations == []
