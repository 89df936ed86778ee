"""The image previewer: chosen by magic bytes, sized decoding, bombs refused."""

from __future__ import annotations

import io
import os
import struct
import subprocess
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from previewers import registry
from previewers.image import ImagePreviewer
from previewers.image import widget as image_module
from previewers.image.widget import ImagePreviewWidget
from previewers.media import MediaPreviewer
from tests.previewers.conftest import OpenPreview


@pytest.fixture(autouse=True)
def registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    table = [ImagePreviewer(), MediaPreviewer(), *registry.REGISTRY._table]
    monkeypatch.setattr(registry.REGISTRY, "_table", table)
    yield


def save(path: Path, image: Image.Image, fmt: str, **options: object) -> Path:
    image.save(path, fmt, **options)
    return path


def bomb_png(path: Path, width: int, height: int) -> Path:
    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = struct.pack(">I", zlib.crc32(kind + body))
        return struct.pack(">I", len(body)) + kind + body + crc

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    idat = zlib.compress(b"\x00" * 4096)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat))
    return path


def opened(qtbot: QtBot, open_preview: OpenPreview, path: Path) -> ImagePreviewWidget:
    preview = open_preview(path)
    assert isinstance(preview, ImagePreviewWidget)
    preview.resize(800, 600)
    preview.show()
    qtbot.waitUntil(preview.is_settled, timeout=10_000)
    return preview


def test_a_png_loads_with_its_facts(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = save(
        tmp_path / "a.png", Image.new("RGBA", (300, 200), (0, 0, 255, 128)), "PNG"
    )
    preview = opened(qtbot, open_preview, path)
    assert preview.is_loaded()
    assert preview.decoded_size().width() == 300
    assert preview.info.text().startswith("300 \u00d7 200 pixels")
    assert "PNG" in preview.info.text()
    assert preview.info.textFormat() == Qt.TextFormat.PlainText


def test_a_png_named_pdf_is_still_shown_as_an_image(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = save(tmp_path / "report.pdf", Image.new("RGB", (40, 30), "red"), "PNG")
    preview = opened(qtbot, open_preview, path)
    assert preview.is_loaded()


def test_a_jpeg_named_png_is_decoded_as_jpeg(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = save(tmp_path / "photo.png", Image.new("RGB", (64, 48), "red"), "JPEG")
    preview = opened(qtbot, open_preview, path)
    assert preview.is_loaded()
    assert "JPEG" in preview.info.text()


def test_svg_is_never_taken(tmp_path: Path) -> None:
    from app.core.trust.safeio import open_verified
    from previewers.source import PreviewSource

    path = tmp_path / "logo.svg"
    path.write_text('<svg xmlns="http://www.w3.org/2000/svg"><image href="/x"/></svg>')
    with open_verified(str(path)) as file:
        source = PreviewSource.from_file(str(path), file)
    assert not ImagePreviewer().accepts(source)


def test_a_large_photo_is_decoded_scaled_for_fit_to_window(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = save(tmp_path / "big.jpg", Image.new("RGB", (4000, 3000), "teal"), "JPEG")
    preview = opened(qtbot, open_preview, path)
    assert preview.view.is_fit()
    decoded = preview.decoded_size()
    assert decoded.width() <= image_module.DECODE_FLOOR
    assert decoded.width() < 4000


def test_zooming_to_actual_size_decodes_again_at_full_size(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = save(tmp_path / "wide.jpg", Image.new("RGB", (2600, 1000), "navy"), "JPEG")
    preview = opened(qtbot, open_preview, path)
    assert preview.decoded_size().width() < 2600
    preview.actual_button.click()
    assert preview.view.zoom() == pytest.approx(1.0)
    qtbot.waitUntil(lambda: preview.decoded_size().width() == 2600, timeout=10_000)


def test_a_bomb_is_refused_before_any_decoding(
    qtbot: QtBot,
    open_preview: OpenPreview,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    decodes: list[object] = []
    monkeypatch.setattr(
        image_module, "decode_scaled", lambda *args: decodes.append(args)
    )
    preview = open_preview(bomb_png(tmp_path / "bomb.png", 20000, 20000))
    refusals: list[str] = []
    preview.refused.connect(refusals.append)
    qtbot.waitUntil(preview.is_settled, timeout=10_000)
    assert refusals == [
        "The image is 20000\u00d720000 pixels (400 MP), more than the 89 MP "
        "this viewer decodes."
    ]
    assert "20000\u00d720000" in preview.message_text()
    assert decodes == []


def test_a_truncated_png_fails_with_a_clear_message(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    whole = io.BytesIO()
    Image.effect_noise((300, 300), 60).save(whole, "PNG")
    path = tmp_path / "cut.png"
    path.write_bytes(whole.getvalue()[: len(whole.getvalue()) // 2])
    preview = open_preview(path)
    failures: list[str] = []
    preview.failed.connect(failures.append)
    qtbot.waitUntil(preview.is_settled, timeout=10_000)
    assert failures == ["The PNG data is damaged or truncated"]


@pytest.mark.parametrize("name", ["empty.png", "empty.jpg", "empty.gif", "empty.webp"])
def test_an_empty_file_named_like_an_image_is_not_decoded(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path, name: str
) -> None:
    path = tmp_path / name
    path.write_bytes(b"")
    preview = open_preview(path)
    assert not isinstance(preview, ImagePreviewWidget)
    qtbot.waitUntil(preview.is_settled, timeout=5_000)


def test_exif_orientation_is_applied(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    exif = Image.Exif()
    exif[0x0112] = 6
    path = save(
        tmp_path / "turned.jpg", Image.new("RGB", (300, 100), "red"), "JPEG", exif=exif
    )
    preview = opened(qtbot, open_preview, path)
    size = preview.decoded_size()
    assert (size.width(), size.height()) == (100, 300)
    assert "orientation 6" in preview.info.text()


def test_an_animated_gif_plays_and_pauses(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    frames = [Image.new("RGB", (60, 40), (i * 40, 80, 120)) for i in range(5)]
    path = save(
        tmp_path / "anim.gif",
        frames[0],
        "GIF",
        save_all=True,
        append_images=frames[1:],
        duration=40,
        loop=0,
    )
    preview = opened(qtbot, open_preview, path)
    movie = preview.movie()
    assert movie is not None
    assert "5 frames" in preview.info.text()
    qtbot.waitUntil(lambda: movie.currentFrameNumber() > 0, timeout=5_000)
    preview.play_button.click()
    assert not preview.play_button.isChecked()
    assert preview.play_button.text() == "Play"


@pytest.mark.parametrize(
    ("pillow", "name"), [("BMP", "a.bmp"), ("WEBP", "a.webp"), ("TIFF", "a.tif")]
)
def test_other_formats_load(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path, pillow: str, name: str
) -> None:
    path = save(tmp_path / name, Image.new("RGB", (50, 30), "orange"), pillow)
    preview = opened(qtbot, open_preview, path)
    assert preview.is_loaded()
    assert preview.decoded_size().width() == 50


def test_an_icon_loads_its_largest_size(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = save(
        tmp_path / "app.ico",
        Image.new("RGB", (64, 64), "blue"),
        "ICO",
        sizes=[(16, 16), (48, 48)],
    )
    preview = opened(qtbot, open_preview, path)
    assert preview.decoded_size().width() == 48


def test_zoom_keys_and_hooks_change_the_scale(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = save(tmp_path / "z.png", Image.new("RGB", (100, 100), "white"), "PNG")
    preview = opened(qtbot, open_preview, path)
    start = preview.view.zoom()
    qtbot.keyClick(preview.view, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    assert preview.view.zoom() > start
    preview.zoom_out()
    preview.zoom_out()
    assert preview.view.zoom() < start
    preview.zoom_reset()
    assert preview.view.is_fit()
    assert preview.view.zoom() == pytest.approx(start)


def test_the_preview_reads_the_opened_file_not_the_path(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = save(tmp_path / "swap.png", Image.new("RGB", (70, 20), "red"), "PNG")
    preview = open_preview(path)
    replacement = tmp_path / "other.png"
    save(replacement, Image.new("RGB", (10, 10), "red"), "PNG")
    os.replace(replacement, path)
    preview.show()
    qtbot.waitUntil(preview.is_settled, timeout=10_000)
    assert preview.decoded_size().width() == 70


def test_release_closes_the_file_and_drops_the_pixels(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = save(tmp_path / "r.png", Image.new("RGB", (30, 30), "red"), "PNG")
    preview = opened(qtbot, open_preview, path)
    with preview.borrow_file() as file:
        fd = file.fd
    preview.release()
    assert preview.view.pixmap().isNull()
    with pytest.raises(OSError):
        os.fstat(fd)


def test_importing_the_previewers_loads_no_heavy_library() -> None:
    code = (
        "import sys, previewers.image.widget, previewers.media;"
        "heavy = ('PySide6.QtMultimedia', 'PIL.Image');"
        "print([name for name in heavy if name in sys.modules])"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


def bmp_header(path: Path, width: int, height: int) -> Path:
    info = struct.pack("<IiiHHIIiiII", 40, width, height, 1, 24, 0, 0, 0, 0, 0, 0)
    path.write_bytes(b"BM" + struct.pack("<IHHI", 0, 0, 0, 54) + info)
    return path


@pytest.mark.parametrize(
    ("name", "width", "height"),
    [
        ("badwidth.bmp", -5, 10),  # read as 4294967291 wide: past what QSize holds
        ("sliver.bmp", 1, -(2**31)),
        ("huge.bmp", 100_000, 100_000),
    ],
)
def test_a_header_claiming_an_impossible_size_is_refused(
    qtbot: QtBot,
    open_preview: OpenPreview,
    tmp_path: Path,
    name: str,
    width: int,
    height: int,
) -> None:
    preview = opened(qtbot, open_preview, bmp_header(tmp_path / name, width, height))
    assert not preview.is_loaded()
    assert "more than the 89 MP this viewer decodes" in preview.message_text()
    assert preview.view.image_size().isEmpty()


def test_a_png_claiming_no_pixels_fails_with_a_sentence(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    preview = opened(qtbot, open_preview, bomb_png(tmp_path / "empty.png", 0, 0))
    assert preview.message_text() == (
        "Could not load empty.png: The PNG header is damaged or truncated"
    )


def gradient(width: int, height: int) -> Image.Image:
    """Red changes across, green downwards: a colour tells a position."""
    red = Image.linear_gradient("L").rotate(90)
    green = Image.linear_gradient("L")
    blue = Image.new("L", (256, 256), 90)
    return Image.merge("RGB", (red, green, blue)).resize((width, height))


def test_zooming_far_into_a_large_image_decodes_only_what_is_shown(
    qtbot: QtBot,
    open_preview: OpenPreview,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A smaller threshold stands for a huge image: 2400 x 1800 is over it.
    monkeypatch.setattr(image_module, "DETAIL_PIXELS", 1_000_000)
    whole_bounds: list[tuple[int, int] | None] = []
    decode_scaled = image_module.decode_scaled

    def spy(data: bytes, fmt: object, bound: tuple[int, int] | None = None) -> object:
        whole_bounds.append(bound)
        return decode_scaled(data, fmt, bound)  # type: ignore[arg-type]

    monkeypatch.setattr(image_module, "decode_scaled", spy)
    source = gradient(2400, 1800)
    path = save(tmp_path / "huge.jpg", source, "JPEG", quality=95)
    preview = opened(qtbot, open_preview, path)
    fit_width = preview.decoded_size().width()
    preview.view.set_zoom(2.0)
    preview.view.centerOn(1800, 450)  # right and up: a distinct colour there
    qtbot.waitUntil(lambda: not preview.view.detail()[0].isNull(), timeout=10_000)
    qtbot.wait(400)  # any further decode the move asked for
    pixmap, rect = preview.view.detail()
    shown = preview.view.visible_image_rect()
    assert rect.contains(shown)
    # The part on screen and a margin, at full resolution: a small share.
    assert pixmap.width() == rect.width() and pixmap.height() == rect.height()
    assert rect.width() * rect.height() < 2400 * 1800 / 4
    # The whole image was never decoded at full size, nor again after the fit.
    assert preview.decoded_size().width() == fit_width < 2400
    assert len(whole_bounds) == 1 and whole_bounds[0] is not None
    image = pixmap.toImage()
    for x, y in ((0, 0), (rect.width() - 1, rect.height() - 1)):
        got = image.pixelColor(x, y)
        want = source.getpixel((rect.x() + x, rect.y() + y))
        assert abs(got.red() - want[0]) <= 12 and abs(got.green() - want[1]) <= 12
    preview.zoom_reset()
    qtbot.waitUntil(lambda: preview.view.detail()[0].isNull(), timeout=10_000)


def test_a_looping_gif_keeps_playing_after_its_first_loop(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    frames = [Image.new("RGB", (30, 20), (i * 80, 60, 90)) for i in range(3)]
    path = save(
        tmp_path / "loop.gif",
        frames[0],
        "GIF",
        save_all=True,
        append_images=frames[1:],
        duration=20,
        loop=0,
    )
    preview = opened(qtbot, open_preview, path)
    movie = preview.movie()
    assert movie is not None
    shown: list[int] = []
    movie.frameChanged.connect(shown.append)
    # Back to the first frame, then on again: the second loop plays.
    qtbot.waitUntil(lambda: 0 in shown and len(shown) > shown.index(0) + 1)
    assert movie.state() == movie.MovieState.Running
    assert "damaged" not in preview.info.text()
    assert preview.play_button.isChecked()


def test_an_animation_cut_inside_its_first_frame_says_it_is_damaged(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    frames = [
        Image.effect_noise((60, 40), 60 + i * 20).convert("RGB") for i in range(4)
    ]
    whole = save(
        tmp_path / "whole.gif",
        frames[0],
        "GIF",
        save_all=True,
        append_images=frames[1:],
        duration=20,
        loop=0,
    ).read_bytes()
    path = tmp_path / "cut.gif"
    path.write_bytes(whole[: len(whole) // 8])
    preview = opened(qtbot, open_preview, path)
    damaged = "damaged or truncated"
    qtbot.waitUntil(
        lambda: damaged in preview.info.text() or damaged in preview.message_text(),
        timeout=10_000,
    )
