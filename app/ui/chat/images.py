"""Inline chat images: verified public files decoded off the GUI thread, safely."""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from PySide6.QtCore import QObject, QRunnable, QSize, QThreadPool, Signal
from PySide6.QtGui import QImage

from app.core.filetype import HEAD_SIZE, detect
from app.core.trust.policy import Policy
from app.core.trust.public_files import PUBLIC_FOLDER, is_public_path
from app.core.trust.safeio import SafeOpenError, open_verified
from app.formats.image_facts import (
    ImageDataError,
    ImageFormat,
    decode_scaled,
    format_for_mime,
)
from app.ssh.errors import RemoteError
from previewers.qimage import to_qimage

if TYPE_CHECKING:
    from app.remote.workspace import RemoteWorkspace


MAX_PIXELS: Final = 40_000_000
MAX_BYTES: Final = 32 * 1024 * 1024
MAX_WIDTH: Final = 480

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


def load_public_image(path: str, workspace: str, policy: Policy) -> QImage:
    """Read ``path`` through a verified descriptor and decode it, scaled down.

    Refuses symlinks, anything outside ``<workspace>/public/``, denied paths,
    unknown formats (SVG included) and images over ``MAX_PIXELS``.
    """
    try:
        verified = open_verified(path)
    except SafeOpenError as error:
        raise ImageLoadError(f"Image not shown: {error}") from error
    with verified:
        real = verified.real_path or os.path.realpath(path)
        if not is_public_path(real, workspace):
            raise ImageLoadError("Image not shown: it is not in the public folder")
        if policy.denying_rule(real) is not None or policy.denying_rule(path):
            raise ImageLoadError("Image not shown: the read-deny policy forbids it")
        if verified.identity.size > MAX_BYTES:
            raise ImageLoadError("Image not shown: the file is too large")
        data = verified.read(MAX_BYTES + 1)
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


def load_remote_public_image(workspace: RemoteWorkspace, filename: str) -> QImage:
    """Fetch ``public/<filename>`` of a remote workspace within the limits, decoded.

    The bytes come as one verified snapshot (a file replaced mid-read is
    refused); a link, a denied path or an oversized file is refused first,
    under the policy in force on that host. No local path is ever used.
    """
    path = posixpath.join(workspace.root, PUBLIC_FOLDER, filename)
    timeout = workspace.link.settings.operation_timeout * 2
    try:
        policy = workspace.policy().result(timeout)
        if policy.denying_rule(path) is not None:
            raise ImageLoadError("Image not shown: the read-deny policy forbids it")
        identity = workspace.lstat(path).result(timeout)
        if not identity.is_regular:
            raise ImageLoadError("Image not shown: it is not a regular file")
        if identity.size > MAX_BYTES:
            raise ImageLoadError("Image not shown: the file is too large")
        snapshot = workspace.snapshot(path, limit=MAX_BYTES, expected=identity)
        data = snapshot.result(timeout + MAX_BYTES / (1 << 20)).data
    except (RemoteError, SafeOpenError) as error:
        raise ImageLoadError(f"Image not shown: {error}") from error
    except TimeoutError as error:
        raise ImageLoadError(
            "Image not shown: the remote host did not answer"
        ) from error
    return decode_image(data, QSize(MAX_WIDTH, MAX_PIXELS))


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
        path: str,
        workspace: str | RemoteWorkspace,
        policy: Policy,
    ) -> None:
        super().__init__()
        self._emit = emit
        self._args = (key, generation, path, workspace, policy)

    def run(self) -> None:
        key, generation, path, workspace, policy = self._args
        try:
            if isinstance(workspace, str):
                image = load_public_image(path, workspace, policy)
            else:
                image = load_remote_public_image(workspace, os.path.basename(path))
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
        path: str,
        workspace: str | RemoteWorkspace,
        policy: Policy,
    ) -> None:
        """Decode ``path`` of a local workspace folder, or of a remote workspace."""
        task = _DecodeTask(self.decoded.emit, key, generation, path, workspace, policy)
        self._pool.start(task)

    def wait_for_done(self, msecs: int = 5000) -> bool:
        return self._pool.waitForDone(msecs)
