"""Image cards whose files are pixel bombs get no thumbnail, and cost nothing kept.

The attack: an agent presents small files that decode to huge images. A
139 KiB icon listed as 16x16 that holds a 7000x7000 PNG (49 MP, past the
40 MP chat limit) was decoded whole and kept as a 7000x7000 "thumbnail"; three
such cards kept 423 MiB in the thumbnail cache and the chat model. Here every
hostile file is shown as a card in the real window; each thumbnail must be at
most thumbnail size, no decoder may allocate an image over the pixel bound,
and the cache's byte total must stay under its bound.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image
from PySide6.QtGui import QImage
from pytestqt.qtbot import QtBot

from app.core.chat.blocks import DeliverableBlock
from app.core.store import Store
from app.core.store.deliverables import DeliverableRef
from app.core.trust.declare import declare
from app.core.trust.policy import PermissionMode, Policy, builtin_rules
from app.ui.chat.images import MAX_PIXELS
from app.ui.chat.model import ThumbnailRole
from app.ui.chat.thumbnails import CACHE_BYTES, THUMBNAIL_SIZE
from app.ui.window.main_window import MainWindow

from . import hostile_images as hostile

HANG = 60_000  # a hang guard, not a speed figure


@pytest.fixture(scope="module")
def bombs() -> dict[str, bytes]:
    inside = hostile.png(7000, 7000)  # 49 MP, a few hundred KiB as PNG
    return {
        "listed-16.ico": hostile.icon_holding(inside, 16),
        "listed-256.ico": hostile.icon_holding(inside, 256),
        "bitmap.ico": hostile.icon_with_huge_bitmap(7000, 7000),
        "header.png": hostile.png_declaring(20000, 20000),
        "screen.gif": hostile.gif_declaring(20000, 20000),
        "canvas.webp": hostile.webp_declaring(9000, 9000),
        "header.bmp": hostile.bmp_declaring(20000, 20000),
    }


GOOD = {
    "photo.jpg": (Image.new("RGB", (2400, 1600), (20, 120, 60)), "JPEG"),
    "chart.png": (Image.new("RGB", (400, 300), (200, 200, 20)), "PNG"),
    "logo.ico": (Image.new("RGBA", (256, 256), (90, 30, 160, 255)), "ICO"),
}


@pytest.fixture
def decoded_sizes(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """The size of every image Pillow's decoders allocate, from any thread."""
    found: list[tuple[int, int]] = []
    lock = threading.Lock()
    for name in ("new", "fill"):
        real = getattr(Image.core, name)

        def spy(mode, size, *args, _real=real):  # type: ignore[no-untyped-def]
            with lock:
                found.append(tuple(size))
            return _real(mode, size, *args)

        monkeypatch.setattr(Image.core, name, spy)
    return found


def present(store: Store, conversation_id: str, call: str, raw: str) -> None:
    """One ``present`` call of the agent, its record stored beside the result."""
    calls = [{"id": call, "name": "present", "args": {}}]
    store.append_message(
        conversation_id, {"type": "ai", "data": {"content": "", "tool_calls": calls}}
    )
    result = {"content": "ok", "tool_call_id": call, "name": "present"}
    store.append_message(
        conversation_id, {"type": "tool", "data": result}, record=raw, tool_call_id=call
    )


@pytest.fixture
def window(
    qtbot: QtBot, tmp_path: Path, bombs: dict[str, bytes]
) -> Iterator[tuple[MainWindow, dict[str, DeliverableRef]]]:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    for name, data in bombs.items():
        (workspace / name).write_bytes(data)
    for name, (image, fmt) in GOOD.items():
        image.save(workspace / name, fmt)
    names = [*bombs, *GOOD]
    policy = Policy(builtin_rules(), home=str(tmp_path / "home"))
    data = tmp_path / "data"
    store = Store(data)
    conversation = store.create_conversation("c", str(workspace))
    human = {"type": "human", "data": {"content": "Make the images"}}
    store.append_message(conversation.id, human)
    refs: dict[str, DeliverableRef] = {}
    for number, first in enumerate(range(0, len(names), 8)):
        batch = names[first : first + 8]
        record = declare(
            {"files": [{"path": name, "description": name} for name in batch]},
            workspace=workspace,
            mode=PermissionMode.WORKSPACE_ONLY,
            policy=policy,
        )
        call = f"call_{number + 1}"
        present(store, conversation.id, call, record.to_json())
        refs.update(
            {n: DeliverableRef(conversation.id, call, i) for i, n in enumerate(batch)}
        )
    answer = {"type": "ai", "data": {"content": "Here they are.", "tool_calls": []}}
    store.append_message(conversation.id, answer)
    win = MainWindow(store, data)
    qtbot.addWidget(win)
    yield win, refs
    win.close()
    store.close()


def test_no_card_decodes_or_keeps_an_image_past_the_bounds(
    qtbot: QtBot,
    window: tuple[MainWindow, dict[str, DeliverableRef]],
    bombs: dict[str, bytes],
    decoded_sizes: list[tuple[int, int]],
) -> None:
    win, refs = window
    made: dict[DeliverableRef, object] = {}
    win.thumbnails.made.connect(lambda ref, image: made.__setitem__(ref, image))
    win.refresh_conversations()
    win.show_conversation(next(iter(refs.values())).conversation_id)
    win.show()
    qtbot.waitExposed(win)
    qtbot.waitUntil(lambda: set(made) >= set(refs.values()), timeout=HANG)

    for name, ref in refs.items():
        image = made[ref]
        if name in bombs:
            assert image is None, f"{name} got a thumbnail"
        else:
            assert isinstance(image, QImage), f"{name} got no thumbnail"
        if isinstance(image, QImage):
            assert max(image.width(), image.height()) <= THUMBNAIL_SIZE, name

    # What the chat model keeps and draws: thumbnail-sized images or nothing.
    model = win.chat.chat_model()
    kept = [
        model.index(row).data(ThumbnailRole)
        for row in range(model.rowCount())
        if isinstance(model.block(row), DeliverableBlock)
    ]
    assert len([image for image in kept if image is not None]) == len(GOOD)
    assert all(
        max(image.width(), image.height()) <= THUMBNAIL_SIZE
        for image in kept
        if image is not None
    )

    largest = max((w * h for w, h in decoded_sizes), default=0)
    assert largest <= MAX_PIXELS
    cached = win.thumbnails.cached_bytes()
    assert 0 < cached <= CACHE_BYTES
    print(
        f"\n{len(refs)} image cards ({len(bombs)} bombs): largest decode "
        f"{largest:,} pixels; thumbnail cache {cached:,} bytes "
        f"(bound {CACHE_BYTES:,})"
    )
