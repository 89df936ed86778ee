"""Inline chat images: verified public files decoded off the GUI thread, safely."""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from typing import Final

from PySide6.QtCore import QObject, QRunnable, QSize, QThreadPool, Signal
from PySide6.QtGui import QImage

from app.core.filetype import HEAD_SIZE, detect
from app.core.trust.public_files import PUBLIC_FOLDER
from app.core.trust.safeio import SafeOpenError
from app.formats.image_facts import (
    ImageDataError,
    ImageFormat,
    decode_scaled,
    format_for_mime,
)
from app.ssh.errors import RemoteError
from app.workspace.protocol import Workspace
from previewers.qimage import to_qimage

MAX_PIXELS: Final = 40_000_000
MAX_BYTES: Final = 32 * 1024 * 1024
MAX_WIDTH: Final = 480
READ_TIMEOUT_S: Final = 120
"""How long a read may take before the image is given up (a slow host)."""

# The formats an inline image may have, as the file-type service names them
# from the bytes; the reader is told the format, never asked to guess it.
_FORMATS: Final = frozenset(
    {
        "image/png",
        "image/jpeg",
        "image/gif",
        "image/bmp",
        "image/vnd.microsoft.icon",
        "image/webp",
    }
)


class ImageLoadError(Exception):
    """An image that is not shown; the message says why, in plain words."""


def sniff_format(head: bytes) -> ImageFormat | None:
    """The format of ``head``'s magic bytes, or ``None`` if not allowed."""
    found = format_for_mime(detect(head).mime)
    return found if found is not None and found.mime in _FORMATS else None


def load_public_image(workspace: Workspace, filename: str) -> QImage:
    """Read ``public/<filename>`` of ``workspace`` as one checked version, decoded.

    Whichever host holds the folder, the workspace refuses links, anything
    outside it, denied paths, files that are not regular, files over
    ``MAX_BYTES`` and files replaced mid-read, under the policy in force now;
    then unknown formats (SVG included) and images over ``MAX_PIXELS`` are
    refused here. Only a name directly in the public folder is read.
    """
    name = os.path.basename(filename.replace("\\", "/"))
    try:
        data = workspace.read(f"{PUBLIC_FOLDER}/{name}", limit=MAX_BYTES).result(
            READ_TIMEOUT_S
        )
    except SafeOpenError as error:
        reason = "the file is too large" if error.reason == "too_large" else error
        raise ImageLoadError(f"Image not shown: {reason}") from error
    except RemoteError as error:
        raise ImageLoadError(f"Image not shown: {error}") from error
    except FutureTimeout as error:
        raise ImageLoadError("Image not shown: its host did not answer") from error
    return decode_image(data, QSize(MAX_WIDTH, MAX_PIXELS))


def decode_image(data: bytes, box: QSize) -> QImage:
    """Decode ``data`` by its magic bytes, no larger than ``box``.

    Only the raster formats of ``_FORMATS``. The size every header gives (each
    image of an icon) is checked against ``MAX_PIXELS`` before any pixel is
    decoded, and the decode is as small as the format allows: JPEG at a
    fraction in the DCT, an icon's image nearest ``box``. Raises
    ``ImageLoadError``.
    """
    image_format = sniff_format(data[:HEAD_SIZE])
    if image_format is None:
        raise ImageLoadError("Image not shown: not a supported image format")
    bound = (box.width(), box.height())
    try:
        decoded = decode_scaled(data, image_format, bound, limit=MAX_PIXELS)
    except ImageDataError as error:
        raise ImageLoadError(f"Image not shown: {error}") from error
    return to_qimage(decoded)


@dataclass(frozen=True)
class ImageResult:
    """A decoded image (or why not) for the row keyed ``key`` of ``generation``."""

    key: str
    generation: int
    image: QImage | None
    error: str


class _DecodeTask(QRunnable):
    def __init__(
        self,
        emit: Callable[[ImageResult], None],
        key: str,
        generation: int,
        filename: str,
        workspace: Workspace,
    ) -> None:
        super().__init__()
        self._emit = emit
        self._args = (key, generation, filename, workspace)

    def run(self) -> None:
        key, generation, filename, workspace = self._args
        try:
            image = load_public_image(workspace, filename)
        except ImageLoadError as error:
            self._emit(ImageResult(key, generation, None, str(error)))
        except Exception as error:  # a decoder bug must not kill the worker
            self._emit(ImageResult(key, generation, None, f"Image not shown: {error}"))
        else:
            self._emit(ImageResult(key, generation, image, ""))


class ImageLoader(QObject):
    """Queues decodes on a thread pool and reports back on the GUI thread.

    Signals:
        decoded(ImageResult): emitted (queued) on the loader's thread.
    """

    decoded = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(2)

    def request(
        self,
        key: str,
        generation: int,
        filename: str,
        workspace: Workspace,
    ) -> None:
        """Decode ``public/<filename>`` of ``workspace``, wherever its files are."""
        task = _DecodeTask(self.decoded.emit, key, generation, filename, workspace)
        self._pool.start(task)

    def wait_for_done(self, msecs: int = 5000) -> bool:
        return self._pool.waitForDone(msecs)
