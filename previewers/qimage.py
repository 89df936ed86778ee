"""Decoded RGBA pixels as a ``QImage`` that owns them."""

from __future__ import annotations

from PySide6.QtGui import QImage

from app.formats.image_facts import DecodedImage


def to_qimage(decoded: DecodedImage) -> QImage:
    """A ``QImage`` of ``decoded``'s pixels, holding its own copy of them."""
    image = QImage(
        decoded.data,
        decoded.width,
        decoded.height,
        decoded.width * 4,
        QImage.Format.Format_RGBA8888,
    )
    # The copy owns its pixels; the view must not point into a Python buffer.
    return image.copy()
