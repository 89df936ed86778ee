"""Image cards get thumbnails: off the GUI thread, through the safe open, cached."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import QBuffer, QIODevice
from PySide6.QtGui import QColor, QImage
from pytestqt.qtbot import QtBot

from app.core.store import Store
from app.core.store.deliverables import DeliverableRef
from app.core.trust.declare import declare
from app.core.trust.policy import PermissionMode, Policy, builtin_rules
from app.ui.chat.thumbnails import THUMBNAIL_SIZE, ThumbnailMaker, make_thumbnail
from tests.app.ui.cards.test_actions import append_present


def _png(width: int, height: int, colour: str = "teal") -> bytes:
    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(QColor(colour))
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    assert image.save(buffer, "PNG")
    return bytes(buffer.data().data())


NAMES = ("wide.png", "notes.md", "fake.png")


@pytest.fixture
def setup(tmp_path: Path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "wide.png").write_bytes(_png(400, 200))
    (workspace / "notes.md").write_text("# notes\n")
    (workspace / "fake.png").write_bytes(b"\x89PNG\r\n\x1a\n not really an image")
    policy = Policy(builtin_rules(), home=str(tmp_path / "home"))
    store = Store(tmp_path / "data")
    conversation = store.create_conversation("c", str(workspace))
    record = declare(
        {"files": [{"path": n, "description": n} for n in NAMES]},
        workspace=workspace,
        mode=PermissionMode.WORKSPACE_ONLY,
        policy=policy,
    )
    append_present(store, conversation.id, record.to_json())
    refs = {
        n: DeliverableRef(conversation.id, "call_1", i) for i, n in enumerate(NAMES)
    }
    yield store, policy, workspace, refs
    store.close()


def test_an_image_card_gets_a_small_thumbnail_and_other_cards_none(setup):
    store, policy, _workspace, refs = setup
    never = lambda _ref, _identity: None  # noqa: E731

    made = make_thumbnail(store, refs["wide.png"], policy, None, never)
    assert made is not None and made.image is not None
    assert (made.image.width(), made.image.height()) == (THUMBNAIL_SIZE, 48)
    assert make_thumbnail(store, refs["notes.md"], policy, None, never) is None
    broken = make_thumbnail(store, refs["fake.png"], policy, None, never)
    assert broken is not None and broken.image is None and broken.reason


def test_a_changed_or_swapped_file_gets_no_thumbnail(setup):
    store, policy, workspace, refs = setup
    never = lambda _ref, _identity: None  # noqa: E731
    (workspace / "wide.png").write_bytes(_png(400, 200, "red") + b"more")
    made = make_thumbnail(store, refs["wide.png"], policy, None, never)
    assert made is not None and made.image is None and "modified" in made.reason

    os.remove(workspace / "wide.png")
    os.symlink(workspace / "notes.md", workspace / "wide.png")
    made = make_thumbnail(store, refs["wide.png"], policy, None, never)
    assert made is not None and made.image is None


def test_a_known_file_is_not_read_again(setup):
    store, policy, _workspace, refs = setup
    kept = QImage(3, 3, QImage.Format.Format_RGB32)
    seen = []

    def known(ref, identity):
        seen.append((ref, identity.size))
        return kept

    made = make_thumbnail(store, refs["wide.png"], policy, None, known)
    assert made is not None and made.image is kept
    assert seen and seen[0][0] == refs["wide.png"]


def test_the_maker_works_off_the_gui_thread_and_caches(setup, qtbot: QtBot):
    store, policy, workspace, refs = setup
    maker = ThumbnailMaker(store, lambda _root: policy, lambda: None)
    got: dict[DeliverableRef, object] = {}
    maker.made.connect(lambda ref, image: got.__setitem__(ref, image))

    maker.request(str(workspace), list(refs.values()))
    qtbot.waitUntil(lambda: len(got) == 2, timeout=10_000)
    assert isinstance(got[refs["wide.png"]], QImage)
    assert got[refs["fake.png"]] is None
    assert refs["notes.md"] not in got
    assert maker.cached() == 1

    got.clear()
    maker.request(str(workspace), [refs["wide.png"]])
    qtbot.waitUntil(lambda: len(got) == 1, timeout=10_000)
    assert maker.cached() == 1  # the same file: the cached thumbnail


def test_the_kept_thumbnails_are_bounded_in_bytes_least_recent_out(
    tmp_path: Path, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
):
    from app.ui.chat import thumbnails

    one = THUMBNAIL_SIZE * THUMBNAIL_SIZE * 4  # a square RGBA thumbnail
    monkeypatch.setattr(thumbnails, "CACHE_BYTES", 3 * one)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    names = [f"square-{n}.png" for n in range(6)]
    for n, name in enumerate(names):
        (workspace / name).write_bytes(_png(200, 200, ("red", "teal", "navy")[n % 3]))
    policy = Policy(builtin_rules(), home=str(tmp_path / "home"))
    store = Store(tmp_path / "data")
    conversation = store.create_conversation("c", str(workspace))
    record = declare(
        {"files": [{"path": n, "description": n} for n in names]},
        workspace=workspace,
        mode=PermissionMode.WORKSPACE_ONLY,
        policy=policy,
    )
    append_present(store, conversation.id, record.to_json())
    refs = [DeliverableRef(conversation.id, "call_1", i) for i in range(len(names))]
    maker = ThumbnailMaker(store, lambda _root: policy, lambda: None)
    got: dict[DeliverableRef, object] = {}
    maker.made.connect(lambda ref, image: got.__setitem__(ref, image))

    maker.request(str(workspace), refs)
    qtbot.waitUntil(lambda: len(got) == len(refs), timeout=10_000)
    assert all(isinstance(image, QImage) for image in got.values())
    assert maker.cached() == 3
    assert maker.cached_bytes() == 3 * one

    # The three made last are kept: asking for them reads no file again.
    got.clear()
    read: list[DeliverableRef] = []
    real = thumbnails.make_thumbnail

    def counting(store, ref, policy, mode, known):  # type: ignore[no-untyped-def]
        made = real(store, ref, policy, mode, known)
        if (
            made is not None
            and made.image is not None
            and not known(ref, made.identity)
        ):
            read.append(ref)
        return made

    monkeypatch.setattr(thumbnails, "make_thumbnail", counting)
    maker.request(str(workspace), refs)
    qtbot.waitUntil(lambda: len(got) == len(refs), timeout=10_000)
    assert read == refs[:3]
    assert maker.cached_bytes() <= 3 * one
    store.close()
