"""Thumbnails for image cards: made off the GUI thread, through the safe open.

Each image card's file is checked and opened as an action would open it
(``check_deliverable``: trusted record, same file, policy, no symlink), read
through that verified descriptor up to the inline-image byte limit and decoded
by its magic bytes within the inline-image pixel limit (every header checked
before a pixel is decoded), at the card's icon size or the nearest the format
can decode. A thumbnail is kept per card and file identity (device, inode,
size, mtime), so a card shown again costs nothing and a changed file gets a
new one; what is kept is bounded in bytes, least recently made first out.
A card whose check finds anything but "ok" (changed included) gets no
thumbnail: its badge says why.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Final

from PySide6.QtCore import QObject, QSize, Signal
from PySide6.QtGui import QImage

from app.core.filetype import Kind
from app.core.store import Store
from app.core.store.deliverables import DeliverableRef, check_deliverable, look_up
from app.core.trust.policy import PermissionMode, Policy
from app.core.trust.revalidate import Verdict
from app.core.trust.safeio import Identity
from app.ui.chat.images import MAX_BYTES, ImageLoadError, decode_image
from app.ui.gui_thread import run

THUMBNAIL_SIZE: Final = 96
"""The box a thumbnail fits in, in pixels (the card draws it at icon size)."""
CACHE_BYTES: Final = 8 * 1024 * 1024
"""What the kept thumbnails hold together: over 200 at 96x96 RGBA (36 KiB)."""


@dataclass(frozen=True)
class Thumbnail:
    """A card's thumbnail, or ``None`` when it has none now (and why not)."""

    ref: DeliverableRef
    identity: Identity | None
    image: QImage | None
    reason: str = ""


def make_thumbnail(
    store: Store,
    ref: DeliverableRef,
    policy: Policy,
    mode: PermissionMode | None,
    known: Callable[[DeliverableRef, Identity], QImage | None],
) -> Thumbnail | None:
    """On a worker: the thumbnail of ``ref``'s image, or ``None`` if not an image."""
    lookup = look_up(store, ref)
    if lookup.entry is None or lookup.entry.kind_enum is not Kind.IMAGE:
        return None
    check, _entry, opened = check_deliverable(
        store, ref, policy, mode=mode, keep_open=True
    )
    if opened is None or check.verdict is not Verdict.OK:
        # A changed file keeps its icon and badge: the thumbnail would show
        # bytes the record never vouched for.
        if opened is not None:
            opened.close()
        return Thumbnail(ref, None, None, check.reason)
    with opened:
        identity = opened.identity
        cached = known(ref, identity)
        if cached is not None:
            return Thumbnail(ref, identity, cached)
        if identity.size > MAX_BYTES:
            return Thumbnail(ref, identity, None, "the image is too large")
        try:
            data = opened.read(MAX_BYTES + 1)
        except OSError as error:
            return Thumbnail(ref, identity, None, os.strerror(error.errno or 0))
    try:
        image = decode_image(data, QSize(THUMBNAIL_SIZE, THUMBNAIL_SIZE))
    except ImageLoadError as error:
        return Thumbnail(ref, identity, None, str(error))
    except Exception as error:  # a decoder bug must not kill the worker
        return Thumbnail(ref, identity, None, str(error))
    if max(image.width(), image.height()) > THUMBNAIL_SIZE:
        # Never kept or drawn: a decoder that ignored the size asked for.
        return Thumbnail(ref, identity, None, "the image did not decode small")
    return Thumbnail(ref, identity, image)


def _made_safely(
    store: Store,
    ref: DeliverableRef,
    policy: Policy,
    mode: PermissionMode | None,
    known: Callable[[DeliverableRef, Identity], QImage | None],
) -> Thumbnail | None:
    try:
        return make_thumbnail(store, ref, policy, mode, known)
    except Exception as error:  # one bad card must not stop the others
        return Thumbnail(ref, None, None, str(error))


class ThumbnailMaker(QObject):
    """Makes and caches the thumbnails of the image cards shown.

    Signals:
        made(DeliverableRef, object): a card's thumbnail (QImage), or ``None``
            when it has none now; emitted on the GUI thread, newest request only.
    """

    made = Signal(object, object)

    def __init__(
        self,
        store: Store,
        policy_for: Callable[[str], Policy],
        mode: Callable[[], PermissionMode | None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._store = store
        self._policy_for = policy_for
        self._mode = mode
        self._generation = 0
        self._cache: OrderedDict[tuple[DeliverableRef, Identity], QImage] = (
            OrderedDict()
        )
        self._cache_bytes = 0

    def request(self, workspace: str, refs: Sequence[DeliverableRef]) -> None:
        """Make (or find) the thumbnails of ``refs``; older requests are dropped.

        The cards are done one at a time, so an older request stops at the
        card it is on instead of making thumbnails nobody will see.
        """
        self._generation += 1
        if not refs:
            return
        snapshot = dict(self._cache)  # the worker reads a copy, never the cache

        def known(ref: DeliverableRef, identity: Identity) -> QImage | None:
            return snapshot.get((ref, identity))

        policy = self._policy_for(workspace)  # asked on the GUI thread
        self._make(self._generation, tuple(refs), policy, self._mode(), known)

    def _make(
        self,
        generation: int,
        refs: tuple[DeliverableRef, ...],
        policy: Policy,
        mode: PermissionMode | None,
        known: Callable[[DeliverableRef, Identity], QImage | None],
    ) -> None:
        """Make the first of ``refs`` on the pool, then the rest, one at a time."""
        store, ref, rest = self._store, refs[0], refs[1:]

        def made(done: Future[Thumbnail | None]) -> None:
            self._on_made(generation, done.result())
            if rest and generation == self._generation:
                self._make(generation, rest, policy, mode, known)

        run(self, lambda: _made_safely(store, ref, policy, mode, known), made)

    def cancel(self) -> None:
        self._generation += 1

    def cached(self) -> int:
        return len(self._cache)

    def cached_bytes(self) -> int:
        """The pixel bytes the kept thumbnails hold; at most ``CACHE_BYTES``."""
        return self._cache_bytes

    def _keep(self, key: tuple[DeliverableRef, Identity], image: QImage) -> None:
        """Keep ``image``, dropping the least recently made past ``CACHE_BYTES``."""
        size = image.sizeInBytes()
        if size > CACHE_BYTES:
            return
        old = self._cache.pop(key, None)
        if old is not None:
            self._cache_bytes -= old.sizeInBytes()
        self._cache[key] = image
        self._cache_bytes += size
        while self._cache_bytes > CACHE_BYTES:
            _key, dropped = self._cache.popitem(last=False)
            self._cache_bytes -= dropped.sizeInBytes()

    def _on_made(self, generation: int, made: Thumbnail | None) -> None:
        if made is None:
            return  # not an image: its card keeps its icon
        if made.image is not None and made.identity is not None:
            self._keep((made.ref, made.identity), made.image)
        if generation == self._generation:
            self.made.emit(made.ref, made.image)
