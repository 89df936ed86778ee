"""A 24 MP JPEG: time to its dimensions, to a fit-to-window image, and memory."""

from __future__ import annotations

import os
import statistics
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest
from PIL import Image
from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QSize, Qt
from PySide6.QtGui import QImage, QImageReader

from app.core.trust.safeio import open_verified
from app.formats.image_facts import FORMATS, ReadAtStream, decode_scaled, read_facts
from previewers.image.widget import DECODE_FLOOR
from previewers.qimage import to_qimage

pytestmark = pytest.mark.benchmark

JPEG = FORMATS["image/jpeg"]
T = TypeVar("T")


def _photo(path: Path) -> Path:
    # Noise scaled up gives the JPEG a photo-like size rather than a flat 200 KiB.
    noise = Image.effect_noise((1500, 1000), 40).resize((6000, 4000))
    gradient = Image.linear_gradient("L").resize((6000, 4000))
    Image.merge("RGB", (noise, gradient, noise)).save(path, "JPEG", quality=90)
    return path


def _off_thread(job: Callable[[], T]) -> tuple[float, T]:
    """Run ``job`` on another thread, as the previewer does; ms and its result."""
    box: list[T] = []
    start = time.perf_counter()
    worker = threading.Thread(target=lambda: box.append(job()))
    worker.start()
    worker.join()
    return (time.perf_counter() - start) * 1000, box[0]


def _median_ms(runs: int, job: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        job()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def _rss_mib() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / (1 << 20)


def test_24_megapixel_jpeg_to_fit_to_window(
    qapp: object, tmp_path: Path, report: list[str]
) -> None:
    path = _photo(tmp_path / "photo.jpg")
    bound = (DECODE_FLOOR, DECODE_FLOOR)
    with open_verified(str(path)) as file:
        facts_ms = _median_ms(
            20,
            lambda: read_facts(
                ReadAtStream(file.read, file.identity.size),  # type: ignore[arg-type]
                JPEG,
            ),
        )
        data = file.read(-1, 0)

    def scaled() -> QImage:
        return to_qimage(decode_scaled(data, JPEG, bound))

    def full_then_scaled() -> QImage:
        full = to_qimage(decode_scaled(data, JPEG))
        return full.scaled(
            QSize(*bound),
            Qt.AspectRatioMode.KeepAspectRatio,
            Qt.TransformationMode.SmoothTransformation,
        )

    def qt_scaled() -> QImage:
        buffer = QBuffer()
        buffer.setData(QByteArray(data))
        buffer.open(QIODevice.OpenModeFlag.ReadOnly)
        reader = QImageReader(buffer, b"jpeg")
        reader.setDecideFormatFromContent(False)
        reader.setScaledSize(QSize(1280, 853))
        return reader.read()

    _off_thread(scaled)  # warm the decoder plugins once
    rss_before = _rss_mib()
    scaled_runs = [_off_thread(scaled) for _ in range(5)]
    kept = scaled_runs[-1][1]
    rss_after = _rss_mib()
    scaled_ms = statistics.median(ms for ms, _image in scaled_runs)
    full_ms = statistics.median(_off_thread(full_then_scaled)[0] for _ in range(3))
    qt_ms = statistics.median(_off_thread(qt_scaled)[0] for _ in range(3))
    full_bytes = 6000 * 4000 * 4
    assert kept.width() == 1280
    report.extend(
        [
            f"image: 24 MP JPEG ({path.stat().st_size / (1 << 20):.1f} MiB), "
            f"dimensions from the header {facts_ms:.2f} ms (target <= 10 ms)",
            f"image: fit-to-window {kept.width()}x{kept.height()} off the GUI "
            f"thread {scaled_ms:.0f} ms (target <= 150 ms); full decode then "
            f"scale {full_ms:.0f} ms (x{full_ms / scaled_ms:.1f} slower); Qt "
            f"QImageReader scaled {qt_ms:.0f} ms",
            f"image: decoded QImage {kept.sizeInBytes() / (1 << 20):.1f} MiB vs "
            f"{full_bytes / (1 << 20):.1f} MiB at full size; RSS growth over "
            f"5 scaled decodes {rss_after - rss_before:+.1f} MiB",
        ]
    )
