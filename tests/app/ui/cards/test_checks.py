"""Card badges are current before a click: checked in the background, from metadata."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QThreadPool

from app.core.store import Store
from app.core.store.deliverables import DeliverableRef
from app.core.trust import revalidate
from app.core.trust.policy import load_policy
from app.core.trust.records import FileEntry
from app.core.trust.revalidate import Verdict, peek
from app.ui.cards.checks import CardChecker
from app.ui.window.main_window import MainWindow


def entry_for(path: Path, scope: str = "workspace") -> FileEntry:
    status = path.stat()
    return FileEntry(
        path.name, str(path), "a file", scope, status.st_size,
        status.st_mtime_ns, status.st_dev, status.st_ino, "text",
    )  # fmt: skip


def presented(store: Store, cid: str, call_id: str, *paths: Path) -> None:
    store.append_message(cid, {"type": "human", "data": {"content": "hi"}})
    call = {"name": "present", "args": {}, "id": call_id}
    store.append_message(
        cid, {"type": "ai", "data": {"content": "", "tool_calls": [call]}}
    )
    files = [
        {
            "path": p.name,
            "resolved": str(p),
            "description": "d",
            "scope": "workspace",
            "size": p.stat().st_size,
            "mtime_ns": p.stat().st_mtime_ns,
            "device": p.stat().st_dev,
            "inode": p.stat().st_ino,
            "kind": "text",
        }
        for p in paths
    ]
    record = json.dumps(
        {"version": 1, "declared_at": "x", "workspace": "/", "files": files}
    )
    store.append_message(
        cid,
        {"type": "tool", "data": {"content": "ok", "tool_call_id": call_id}},
        record=record,
        tool_call_id=call_id,
    )
    store.append_message(cid, {"type": "ai", "data": {"content": "Done."}})


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("alpha\n")
    (root / "b.txt").write_text("beta\n")
    return root


def test_peek_judges_from_metadata_alone(folder: Path, tmp_path: Path) -> None:
    policy = load_policy(workspace=folder, user_file=tmp_path / "none.toml")
    entry = entry_for(folder / "a.txt")
    assert peek(entry, policy, trusted=True).verdict is Verdict.OK
    (folder / "a.txt").write_text("alpha, longer now\n")
    assert peek(entry, policy, trusted=True).verdict is Verdict.CHANGED
    os.unlink(folder / "a.txt")
    assert peek(entry, policy, trusted=True).verdict is Verdict.MISSING
    os.symlink(folder / "b.txt", folder / "a.txt")
    assert peek(entry, policy, trusted=True).verdict is Verdict.SYMLINK
    assert peek(entry, policy, trusted=False).verdict is Verdict.UNTRUSTED


def test_peek_opens_nothing(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("peek opened the file")

    monkeypatch.setattr(revalidate, "open_verified", refuse)
    monkeypatch.setattr("builtins.open", refuse)
    policy = load_policy(workspace=folder, user_file=tmp_path / "none.toml")
    assert peek(entry_for(folder / "a.txt"), policy, trusted=True).verdict is (
        Verdict.OK
    )


def test_showing_a_conversation_badges_a_deleted_file_before_any_click(
    qtbot, folder: Path, tmp_path: Path
) -> None:
    store = Store(tmp_path / "data")
    cid = store.create_conversation("Work", str(folder)).id
    presented(store, cid, "c1", folder / "a.txt", folder / "b.txt")
    os.unlink(folder / "b.txt")
    window = MainWindow(store, tmp_path / "data")
    qtbot.addWidget(window)

    window.show_conversation(cid)

    model = window.chat.chat_model()
    qtbot.waitUntil(
        lambda: model.verdict(DeliverableRef(cid, "c1", 1)) == "missing", timeout=5000
    )
    assert model.verdict(DeliverableRef(cid, "c1", 0)) is None
    window.close()
    store.close()


def test_coming_back_to_the_window_checks_again(
    qtbot, folder: Path, tmp_path: Path
) -> None:
    store = Store(tmp_path / "data")
    cid = store.create_conversation("Work", str(folder)).id
    presented(store, cid, "c1", folder / "a.txt")
    window = MainWindow(store, tmp_path / "data")
    qtbot.addWidget(window)
    window.show_conversation(cid)
    with qtbot.waitSignal(window.card_checker.checked, timeout=5000):
        pass
    (folder / "a.txt").write_text("edited behind the app's back\n")

    window.recheck_cards()  # what an ActivationChange to active does

    model = window.chat.chat_model()
    qtbot.waitUntil(
        lambda: model.verdict(DeliverableRef(cid, "c1", 0)) == "changed", timeout=5000
    )
    window.close()
    store.close()


def test_an_answer_for_an_earlier_request_is_dropped(
    qtbot, folder: Path, tmp_path: Path
) -> None:
    store = Store(tmp_path / "data")
    cid = store.create_conversation("Work", str(folder)).id
    presented(store, cid, "c1", folder / "a.txt")
    os.unlink(folder / "a.txt")
    policy = load_policy(workspace=folder, user_file=tmp_path / "none.toml")
    checker = CardChecker(store, lambda _w: policy, lambda: None)
    answers: list[tuple[str, object]] = []
    checker.checked.connect(lambda c, v: answers.append((c, v)))

    checker.check(cid, str(folder), [DeliverableRef(cid, "c1", 0)])
    checker.cancel()  # the user moved on before the answer came
    checker.check("other", str(folder), [])
    # The job has finished and its queued answer is delivered, or dropped.
    assert QThreadPool.globalInstance().waitForDone(5000)
    QCoreApplication.processEvents()

    assert answers == []
    store.close()
