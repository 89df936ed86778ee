"""The conversations pane: new, rename, delete (asked first), filter, readable rows."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QStyleOptionViewItem

from app.core.store import Store
from app.ui.conversations.list_view import short_date
from app.ui.conversations.rows import DATE_ROLE
from app.ui.window.main_window import MainWindow


def present_turn(store: Store, cid: str, call_id: str) -> None:
    store.append_message(cid, {"type": "human", "data": {"content": "hi"}})
    call = {"name": "present", "args": {}, "id": call_id}
    store.append_message(
        cid, {"type": "ai", "data": {"content": "", "tool_calls": [call]}}
    )
    record = json.dumps({"version": 1, "files": []})
    store.append_message(
        cid,
        {"type": "tool", "data": {"content": "ok", "tool_call_id": call_id}},
        record=record,
        tool_call_id=call_id,
    )


@pytest.fixture
def window(qtbot, tmp_path: Path):
    store = Store(tmp_path / "data")
    win = MainWindow(store, tmp_path / "data")
    qtbot.addWidget(win)
    win.resize(1440, 900)
    win.refresh_conversations()
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.close()
    store.close()


def test_a_new_conversation_asks_for_its_folder_and_is_shown(
    window: MainWindow, tmp_path: Path
) -> None:
    folder = tmp_path / "project"
    folder.mkdir()
    asked: list[str] = []

    def ask(_parent, start):  # type: ignore[no-untyped-def]
        asked.append(start)
        return folder

    window.commands.ask_folder = ask
    cid = window.commands.new_conversation()

    assert cid is not None and asked
    assert window.current_conversation_id() == cid
    assert window.conversations.current_conversation_id() == cid
    assert window.workspace.tree.tree_model.root == str(folder.resolve())
    assert window.windowTitle().startswith("Chat in project")


def test_cancelling_the_folder_choice_creates_nothing(window: MainWindow) -> None:
    window.commands.ask_folder = lambda _parent, _start: None
    assert window.commands.new_conversation() is None
    assert window._store.conversations() == []


def test_rename_changes_the_title_everywhere(window: MainWindow) -> None:
    cid = window._store.create_conversation("Old", "/tmp").id
    window.show_conversation(cid)
    window.commands.ask_title = lambda _parent, current: f"{current} and new"

    window.menu_actions.rename.trigger()

    assert window._store.conversation(cid).title == "Old and new"
    assert window.windowTitle().startswith("Old and new")
    index = window.conversations.model().index(0, 0)
    assert "Old and new" in index.data(Qt.ItemDataRole.AccessibleTextRole)


def test_delete_asks_first_and_a_no_keeps_everything(window: MainWindow) -> None:
    cid = window._store.create_conversation("Keep me", "/tmp").id
    window.show_conversation(cid)
    questions: list[str] = []

    def refuse(_parent, title, _forks):  # type: ignore[no-untyped-def]
        questions.append(title)
        return False

    window.commands.confirm_delete = refuse
    window.menu_actions.delete.trigger()

    assert questions == ["Keep me"]
    assert [c.id for c in window._store.conversations()] == [cid]


def test_delete_removes_records_and_shows_the_next_conversation(
    window: MainWindow, tmp_path: Path
) -> None:
    store = window._store
    older = store.create_conversation("Older", str(tmp_path)).id
    newer = store.create_conversation("Newer", str(tmp_path)).id
    present_turn(store, newer, "c1")
    window.refresh_conversations()
    window.show_conversation(newer)
    window.commands.confirm_delete = lambda _parent, _title, _forks: True

    assert window.commands.delete(newer)

    assert [c.id for c in store.conversations()] == [older]
    assert window.current_conversation_id() == older
    with pytest.raises(KeyError):
        store.record(newer, "c1")
    assert "Deleted" in window.notice_bar.text()


def test_deleting_the_last_conversation_shows_the_empty_state(
    window: MainWindow,
) -> None:
    cid = window._store.create_conversation("Only", "/tmp").id
    window.show_conversation(cid)
    window.commands.confirm_delete = lambda _parent, _title, _forks: True

    window.commands.delete(cid)

    assert window.current_conversation_id() is None
    assert window.chat.model().rowCount() == 0
    assert not window.menu_actions.delete.isEnabled()


def test_the_filter_box_narrows_the_list(window: MainWindow) -> None:
    store = window._store
    store.create_conversation("Quarterly report", "/work/sales")
    store.create_conversation("Holiday photos", "/home/pics")
    window.refresh_conversations()
    assert len(window.conversations.visible_ids()) == 2

    window.conversations_panel.filter.setText("sales")

    shown = window.conversations.visible_ids()
    assert [store.conversation(cid).title for cid in shown] == ["Quarterly report"]
    window.conversations_panel.filter.clear()
    assert len(window.conversations.visible_ids()) == 2


def test_rows_show_title_folder_and_a_whole_date_in_a_narrow_list(
    window: MainWindow,
) -> None:
    store = window._store
    store.create_conversation(
        "A very long conversation title that cannot fit in the list",
        "/home/someone/projects/an-extremely-long-workspace-folder-name",
    )
    window.refresh_conversations()
    view = window.conversations
    index = view.model().index(0, 0)
    option = QStyleOptionViewItem()
    option.initFrom(view)
    option.rect = view.visualRect(index).adjusted(0, 0, 0, 0)
    option.rect.setWidth(180)
    shown = view.itemDelegate().shown_texts(option, index)  # type: ignore[attr-defined]

    assert shown.date == short_date(store.conversations()[0].created_at)
    assert shown.title.endswith("…")
    assert "…" in shown.folder
    assert shown.folder.startswith("an-")


def test_a_continued_conversation_shows_when_it_was_last_active(
    window: MainWindow,
) -> None:
    store = window._store
    conversation = store.create_conversation("inspector-cli — /tmp/x", "/tmp/x")
    started = datetime.now(UTC) - timedelta(days=40)
    with store._write() as conn:
        conn.execute(
            "UPDATE conversations SET created_at = ? WHERE id = ?",
            (started.isoformat(), conversation.id),
        )
    assert store.last_activity() == {}
    present_turn(store, conversation.id, "mcp-1")
    (last,) = store.last_activity().values()
    assert last > started + timedelta(days=39)

    window.refresh_conversations()
    index = window.conversations.model().index(0, 0)
    assert index.data(DATE_ROLE) == short_date(last)
    tooltip = index.data(Qt.ItemDataRole.ToolTipRole)
    assert "last active " + last.astimezone().strftime("%Y-%m-%d") in tooltip
    assert "started " + started.astimezone().strftime("%Y-%m-%d") in tooltip


def test_short_dates_fit_a_narrow_column() -> None:
    now = datetime(2026, 5, 4, 15, 0, tzinfo=UTC)
    assert short_date(now - timedelta(minutes=5), now) == (
        (now - timedelta(minutes=5)).astimezone().strftime("%H:%M")
    )
    assert short_date(datetime(2026, 1, 9, 12, tzinfo=UTC), now).endswith("Jan")
    assert short_date(datetime(2024, 1, 9, 12, tzinfo=UTC), now) == "2024-01-09"


def test_the_list_does_not_pick_a_conversation_when_it_gets_the_focus(
    window: MainWindow, qtbot
) -> None:
    window._store.create_conversation("Elsewhere", "/tmp")
    window.refresh_conversations()
    window.conversations.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(window.conversations.hasFocus)
    assert window.current_conversation_id() is None
