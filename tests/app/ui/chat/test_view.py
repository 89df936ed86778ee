"""The chat view paints turns and drives cards, tool cards and turn actions."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QContextMenuEvent, QGuiApplication, QImage
from PySide6.QtWidgets import QApplication

from app.agent.runner import MessageStored, RunFailed, ToolCallFinished, ToolCallStarted
from app.core.chat.blocks import (
    AssistantTextBlock,
    DeliverableBlock,
    ImageBlock,
    RunErrorBlock,
    ToolCallBlock,
    TurnActionsBlock,
)
from app.core.store.deliverables import DeliverableRef
from app.core.trust.policy import Policy
from app.ui.chat import ChatView
from app.ui.chat import paint_cards as cards
from app.ui.chat.model import BlockRole, ImageRole, VerdictRole

CID = "conv-1"


def make_view(
    qtbot: Any, workspace: Path, messages: Any, policy: Callable[[], Policy]
) -> ChatView:
    view = ChatView()
    qtbot.addWidget(view)
    view.resize(900, 1000)
    view.set_policy_provider(policy)
    view.set_conversation(CID, str(workspace), messages.items)
    with qtbot.waitSignal(view.loaded, timeout=5000):
        view.show()
    return view


def row_of(view: ChatView, test: Callable[[Any], bool]) -> int:
    model = view.chat_model()
    return next(r for r in range(model.rowCount()) if test(model.block(r)))


def rect_of(view: ChatView, row: int) -> Any:
    index = view.chat_model().index(row)
    view.scrollTo(index)
    view.viewport().repaint()
    return view.visualRect(index)


def test_rows_are_painted_with_exact_heights(
    qtbot: Any, workspace: Path, demo_messages: Any, policy: Any
) -> None:
    view = make_view(qtbot, workspace, demo_messages, policy)
    model = view.chat_model()
    assert model.rowCount() == 14
    view.grab()
    exact = [view.cached_height(r)[1] for r in range(model.rowCount())]
    assert all(exact), "every row fits on screen, so each was measured"
    assert len(view.chat_delegate().documents) >= 2


def test_clicking_a_card_activates_its_deliverable(
    qtbot: Any, workspace: Path, demo_messages: Any, policy: Any
) -> None:
    view = make_view(qtbot, workspace, demo_messages, policy)
    row = row_of(view, lambda b: isinstance(b, DeliverableBlock) and b.ref.index == 1)
    rect = rect_of(view, row)
    with qtbot.waitSignal(view.deliverableActivated) as blocker:
        qtbot.mouseClick(
            view.viewport(),
            Qt.MouseButton.LeftButton,
            pos=QPoint(rect.center().x() - 100, rect.center().y()),
        )
    assert blocker.args == [DeliverableRef(CID, "c3", 1)]


def test_menu_button_and_right_click_request_the_card_menu(
    qtbot: Any, workspace: Path, demo_messages: Any, policy: Any
) -> None:
    view = make_view(qtbot, workspace, demo_messages, policy)
    row = row_of(view, lambda b: isinstance(b, DeliverableBlock) and b.ref.index == 0)
    rect = rect_of(view, row)
    block = view.chat_model().block(row)
    menu = cards.menu_button_rect(rect, block)
    assert menu is not None
    with (
        qtbot.assertNotEmitted(view.deliverableActivated),
        qtbot.waitSignal(view.deliverableMenuRequested) as blocker,
    ):
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=menu.center())
    assert blocker.args[0] == DeliverableRef(CID, "c3", 0)
    assert isinstance(blocker.args[1], QPoint)

    point = QPoint(rect.left() + 60, rect.center().y())
    event = QContextMenuEvent(
        QContextMenuEvent.Reason.Mouse, point, view.viewport().mapToGlobal(point)
    )
    with qtbot.waitSignal(view.deliverableMenuRequested) as blocker:
        QApplication.sendEvent(view.viewport(), event)
    assert blocker.args[0] == DeliverableRef(CID, "c3", 0)


@pytest.mark.parametrize(
    ("key", "modifier", "signal"),
    [
        (Qt.Key.Key_Return, Qt.KeyboardModifier.NoModifier, "deliverableActivated"),
        (Qt.Key.Key_Enter, Qt.KeyboardModifier.NoModifier, "deliverableActivated"),
        (Qt.Key.Key_Menu, Qt.KeyboardModifier.NoModifier, "deliverableMenuRequested"),
        (Qt.Key.Key_F10, Qt.KeyboardModifier.ShiftModifier, "deliverableMenuRequested"),
    ],
)
def test_keys_on_a_selected_card(
    qtbot: Any,
    workspace: Path,
    demo_messages: Any,
    policy: Any,
    key: Qt.Key,
    modifier: Qt.KeyboardModifier,
    signal: str,
) -> None:
    view = make_view(qtbot, workspace, demo_messages, policy)
    row = row_of(view, lambda b: isinstance(b, DeliverableBlock) and b.ref.index == 2)
    view.setFocus()
    view.setCurrentIndex(view.chat_model().index(row))
    with qtbot.waitSignal(getattr(view, signal)) as blocker:
        qtbot.keyClick(view, key, modifier)
    assert blocker.args[0] == DeliverableRef(CID, "c3", 2)


def test_arrow_keys_move_between_rows(
    qtbot: Any, workspace: Path, demo_messages: Any, policy: Any
) -> None:
    view = make_view(qtbot, workspace, demo_messages, policy)
    view.setFocus()
    view.setCurrentIndex(view.chat_model().index(3))
    qtbot.keyClick(view, Qt.Key.Key_Down)
    assert view.currentIndex().row() == 4
    qtbot.keyClick(view, Qt.Key.Key_Up)
    qtbot.keyClick(view, Qt.Key.Key_Up)
    assert view.currentIndex().row() == 2


def test_clicking_a_tool_card_toggles_its_result(
    qtbot: Any, workspace: Path, demo_messages: Any, policy: Any
) -> None:
    view = make_view(qtbot, workspace, demo_messages, policy)
    row = row_of(
        view, lambda b: isinstance(b, ToolCallBlock) and b.name == "list_files"
    )
    rect = rect_of(view, row)
    collapsed = view.cached_height(row)[0]
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    view.viewport().repaint()
    expanded = view.cached_height(row)
    assert expanded[1] and expanded[0] > collapsed
    rect = rect_of(view, row)
    qtbot.mouseClick(
        view.viewport(),
        Qt.MouseButton.LeftButton,
        pos=QPoint(rect.center().x(), rect.top() + 10),
    )
    view.viewport().repaint()
    assert view.cached_height(row)[0] == collapsed


def test_error_tool_card_shows_error_text_and_its_state(
    qtbot: Any, workspace: Path, demo_messages: Any, policy: Any
) -> None:
    view = make_view(qtbot, workspace, demo_messages, policy)
    row = row_of(view, lambda b: isinstance(b, ToolCallBlock) and b.state == "error")
    index = view.chat_model().index(row)
    assert index.data(Qt.ItemDataRole.AccessibleTextRole) == "present error"
    block = index.data(BlockRole)
    assert "is missing" in cards.tool_body_text(block, expanded=False)
    assert view.cached_height(row)[0] > view.cached_height(row - 2)[0]


def test_copy_answer_puts_markdown_on_the_clipboard(
    qtbot: Any, workspace: Path, demo_messages: Any, policy: Any
) -> None:
    view = make_view(qtbot, workspace, demo_messages, policy)
    row = row_of(view, lambda b: isinstance(b, TurnActionsBlock))
    rect = rect_of(view, row)
    copy = dict(cards.action_button_rects(rect, view.font()))["copy"]
    with qtbot.waitSignal(view.notice) as blocker:
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=copy.center())
    assert blocker.args == ["Answer copied"]
    assert (
        QGuiApplication.clipboard().text() == view.chat_model().block(row).answer_text
    )
    assert "**47 %**" in QGuiApplication.clipboard().text()


def test_fork_from_here_emits_the_position(
    qtbot: Any, workspace: Path, demo_messages: Any, policy: Any
) -> None:
    view = make_view(qtbot, workspace, demo_messages, policy)
    row = row_of(view, lambda b: isinstance(b, TurnActionsBlock))
    rect = rect_of(view, row)
    fork = dict(cards.action_button_rects(rect, view.font()))["fork"]
    with qtbot.waitSignal(view.forkRequested) as blocker:
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=fork.center())
    assert blocker.args == [CID, 8]


def test_verdict_badge_is_set_and_cleared(
    qtbot: Any, workspace: Path, demo_messages: Any, policy: Any
) -> None:
    view = make_view(qtbot, workspace, demo_messages, policy)
    ref = DeliverableRef(CID, "c3", 1)
    row = row_of(view, lambda b: isinstance(b, DeliverableBlock) and b.ref == ref)
    index = view.chat_model().index(row)
    assert index.data(VerdictRole) is None
    view.set_verdict(ref, "changed")
    assert index.data(VerdictRole) == "changed"
    view.grab()
    view.set_verdict(ref, "ok")
    assert index.data(VerdictRole) is None


def test_html_in_file_names_and_answers_stays_literal(
    qtbot: Any, workspace: Path, policy: Any, new_messages: Any
) -> None:
    hostile = '<img src="passwd">x.html'
    m = new_messages()
    m.human('<img src="/etc/passwd"> hello')
    m.present("c1", [hostile])
    m.answer('Look: <img src="/etc/passwd"> and ![pw](/etc/passwd) <b>bold</b>')
    view = make_view(qtbot, workspace, m, policy)
    model = view.chat_model()
    row = row_of(view, lambda b: isinstance(b, DeliverableBlock))
    text = model.index(row).data(Qt.ItemDataRole.AccessibleTextRole)
    assert text.startswith(hostile + " — ")
    tooltip = model.index(row).data(Qt.ItemDataRole.ToolTipRole)
    assert "<img" not in tooltip and "&lt;img" in tooltip
    assert model.index(0).data(Qt.ItemDataRole.AccessibleTextRole).startswith("<img")
    view.grab()
    documents = view.chat_delegate().documents.documents()
    assert documents
    for document in documents:
        html = document.toHtml()
        assert "&lt;img" in html  # raw HTML in Markdown is shown as text
    # A Markdown image is never an image element, so nothing is loaded.
    assert all("<img" not in d.toHtml() for d in documents)
    assert any("[image: pw]" in d.toPlainText() for d in documents)
    assert all(not d.refused_urls for d in documents)
    painted = view.grab().toImage()
    assert not painted.isNull()


def test_image_block_decodes_and_shows(
    qtbot: Any, workspace: Path, demo_messages: Any, policy: Any
) -> None:
    view = make_view(qtbot, workspace, demo_messages, policy)
    row = row_of(view, lambda b: isinstance(b, ImageBlock))
    index = view.chat_model().index(row)
    image = index.data(ImageRole)
    assert isinstance(image, QImage)
    assert image.width() == 480  # scaled down from 800
    assert index.data(Qt.ItemDataRole.AccessibleDescriptionRole) == "Alt of logo.png"
    view.viewport().repaint()
    assert view.cached_height(row)[0] > 240
    assert view.is_loaded()


def test_symlinked_public_image_is_refused(
    qtbot: Any, workspace: Path, demo_messages: Any, policy: Any
) -> None:
    secret = workspace / "secret.png"
    os.replace(workspace / "public" / "logo.png", secret)
    os.symlink(secret, workspace / "public" / "logo.png")
    view = make_view(qtbot, workspace, demo_messages, policy)
    row = row_of(view, lambda b: isinstance(b, ImageBlock))
    result = view.chat_model().index(row).data(ImageRole)
    assert isinstance(result, str)
    assert "symbolic link" in result


def test_an_image_in_a_public_folder_leading_out_is_refused(
    qtbot: Any, workspace: Path, demo_messages: Any, policy: Any, tmp_path: Path
) -> None:
    # The agent makes public/ a link to a folder outside the workspace.
    elsewhere = tmp_path / "elsewhere"
    os.replace(workspace / "public", elsewhere)
    os.symlink(elsewhere, workspace / "public")
    view = make_view(qtbot, workspace, demo_messages, policy)
    row = row_of(view, lambda b: isinstance(b, ImageBlock))
    result = view.chat_model().index(row).data(ImageRole)
    assert isinstance(result, str)
    assert "outside the workspace" in result


def test_svg_image_is_never_decoded(
    qtbot: Any, workspace: Path, policy: Any, new_messages: Any
) -> None:
    (workspace / "public" / "d.svg").write_text(
        "<svg xmlns='http://www.w3.org/2000/svg'/>"
    )
    m = new_messages()
    m.human("svg")
    m.image("c1", "d.svg", mime="image/svg+xml")
    m.answer("ok")
    view = make_view(qtbot, workspace, m, policy)
    row = row_of(view, lambda b: isinstance(b, ImageBlock))
    assert view.chat_model().index(row).data(ImageRole) is None
    assert view.is_loaded()


def test_streaming_changes_only_the_live_row_height(
    qtbot: Any, workspace: Path, demo_messages: Any, policy: Any
) -> None:
    view = make_view(qtbot, workspace, demo_messages, policy)
    view.append_streaming_text("Working")
    view.viewport().repaint()
    model = view.chat_model()
    last = model.rowCount() - 1
    before = [view.cached_height(r) for r in range(last)]
    first_height = view.cached_height(last)[0]
    view.append_streaming_text(" on it.\n\n" + "More text streams in. " * 40)
    assert view.cached_height(last)[1] is False
    assert [view.cached_height(r) for r in range(last)] == before
    view.viewport().repaint()
    assert view.cached_height(last)[0] > first_height
    assert model.block(last) == AssistantTextBlock(
        "Working on it.\n\n" + "More text streams in. " * 40, False
    )


def test_live_events_show_running_then_stored_cards(
    qtbot: Any, workspace: Path, demo_messages: Any, policy: Any
) -> None:
    view = make_view(qtbot, workspace, demo_messages, policy)
    model = view.chat_model()
    rows = model.rowCount()
    view.apply_event(
        MessageStored(10, {"type": "human", "data": {"content": "More"}}, None)
    )
    view.apply_event(ToolCallStarted("c9", "read_file", {"path": "a.txt"}))
    assert model.block(rows + 1) == ToolCallBlock(
        "c9", "read_file", '{"path": "a.txt"}', "running", ""
    )
    assert model.running_rows() == [rows + 1]
    view.grab()
    view.apply_event(ToolCallFinished("c9", "read_file", "success", "hello"))
    assert model.block(rows + 1).state == "finished"
    calls = [{"id": "c9", "name": "read_file", "args": {"path": "a.txt"}}]
    view.apply_event(
        MessageStored(
            11, {"type": "ai", "data": {"content": "", "tool_calls": calls}}, None
        )
    )
    tool = {
        "content": "hello",
        "tool_call_id": "c9",
        "name": "read_file",
        "status": "success",
    }
    view.apply_event(MessageStored(12, {"type": "tool", "data": tool}, None))
    assert model.rowCount() == rows + 2
    assert model.block(rows + 1).state == "finished"
    view.apply_event(RunFailed("model timed out"))
    assert isinstance(model.block(model.rowCount() - 1), RunErrorBlock)


def test_painting_and_signals_keep_references_to_none_and_true(
    qtbot: Any, workspace: Path, demo_messages: Any, policy: Any
) -> None:
    """Some PySide6 builds drop a reference to None or True per call on 3.11.

    The interpreter then aborts ("none_dealloc") after enough painting; the
    pinned version must not, and this fails loudly if an upgrade brings it back.
    """
    import sys

    view = make_view(qtbot, workspace, demo_messages, policy)
    view.viewport().repaint()
    none_before, true_before = sys.getrefcount(None), sys.getrefcount(True)
    for _ in range(500):
        view.viewport().repaint()
        view.chat_model().index(0).data(VerdictRole)
        view.notice.emit("x")
    assert sys.getrefcount(None) >= none_before - 5
    assert sys.getrefcount(True) >= true_before - 5


def _long_chat(new_messages: Any, turns: int) -> Any:
    m = new_messages()
    for t in range(turns):
        m.human(f"Question {t}")
        m.answer(f"## Answer {t}\n\n" + "Some **bold** words here. " * 30)
    return m


def test_rows_a_page_off_screen_are_measured_while_idle_and_the_screen_stays_put(
    qtbot: Any, workspace: Path, policy: Any, new_messages: Any
) -> None:
    view = make_view(qtbot, workspace, _long_chat(new_messages, 25), policy)
    bar = view.verticalScrollBar()
    bar.setValue(bar.maximum() // 2)
    view.viewport().repaint()
    height = view.viewport().height()
    first = view.indexAt(QPoint(10, 0)).row()
    last = view.indexAt(QPoint(10, height - 1)).row()
    top = view.visualRect(view.chat_model().index(first)).top()
    below, above = last + 2, first - 2
    assert not view.cached_height(below)[1] and not view.cached_height(above)[1]
    qtbot.waitUntil(
        lambda: view.cached_height(below)[1] and view.cached_height(above)[1]
    )
    assert view.visualRect(view.chat_model().index(first)).top() == top
    assert view.indexAt(QPoint(10, 0)).row() == first


def test_older_turns_are_built_after_the_first_paint(
    qtbot: Any, workspace: Path, policy: Any, new_messages: Any
) -> None:
    view = ChatView()
    qtbot.addWidget(view)
    view.resize(900, 1000)
    view.set_policy_provider(policy)
    view.set_conversation(CID, str(workspace), _long_chat(new_messages, 40).items)
    model = view.chat_model()
    newest = model.rowCount()
    QApplication.processEvents()
    assert model.rowCount() == newest, "nothing is built before the view paints"
    with qtbot.waitSignal(view.loaded, timeout=5000):
        view.show()
    qtbot.waitUntil(model.history_complete)
    assert model.rowCount() == 40 * 3


def test_older_turns_of_a_view_never_shown_are_still_built(
    qtbot: Any, workspace: Path, policy: Any, new_messages: Any
) -> None:
    view = ChatView()
    qtbot.addWidget(view)
    view.set_policy_provider(policy)
    view.set_conversation(CID, str(workspace), _long_chat(new_messages, 40).items)
    qtbot.waitUntil(view.chat_model().history_complete)
    assert view.chat_model().rowCount() == 40 * 3


def test_a_present_card_counts_the_files_of_its_record() -> None:
    finished = ToolCallBlock("c1", "present", "{}", "finished", "Deux fichiers", 3)
    assert cards.tool_summary(finished) == "present — 3 files"
    without_record = ToolCallBlock("c2", "present", "{}", "finished", "Presented 9")
    assert cards.tool_summary(without_record) == "present"


ATTACK = "invoice\u202efdp.sh"


def test_a_tool_card_draws_a_bidi_name_neutralised_in_its_row_and_body() -> None:
    result = f"Wrote 21 bytes to {ATTACK}."
    block = ToolCallBlock("w1", "write_file", "{}", "finished", result)
    listing = f"{ATTACK} (21 bytes)\nnotes.md\t(8 bytes)"
    listed = ToolCallBlock("l1", "list_files", "{}", "finished", listing)

    summary = cards.tool_summary(block)
    body = cards.tool_body_text(listed, expanded=True)

    assert summary == "write_file — Wrote 21 bytes to invoice<U+202E>fdp.sh."
    assert body.splitlines() == [
        "invoice<U+202E>fdp.sh (21 bytes)",
        "notes.md\t(8 bytes)",
    ]
    assert "\u202e" not in summary + body


def test_a_tool_card_counts_agree_with_their_nouns() -> None:
    one_file = ToolCallBlock("c1", "present", "{}", "finished", "Presented", 1)
    assert cards.tool_summary(one_file) == "present — 1 file"
    one_line = ToolCallBlock("c2", "read_file", "{}", "finished", '{"a": 1}')
    assert cards.tool_summary(one_line) == "read_file — 1 line"


def test_a_failed_present_reads_as_an_error_card_not_json(
    qtbot: Any, workspace: Path, policy: Any, new_messages: Any
) -> None:
    import json

    messages = new_messages()
    messages.human("present it")
    messages.call("p1", "present", {"files": [{"path": "report/indx.html"}]})
    failure = {
        "error": "present failed, nothing was recorded. 1 of 1 entries failed",
        "entries": [
            {"index": 0, "path": "report/indx.html", "reason": "missing",
             "detail": "no such file"}
        ],
    }  # fmt: skip
    messages.result("p1", "present", json.dumps(failure) + "\nFix it.", status="error")
    messages.answer("Sorry.")
    view = make_view(qtbot, workspace, messages, policy)
    row = row_of(view, lambda b: isinstance(b, ToolCallBlock) and b.state == "error")
    block = view.chat_model().block(row)

    body = cards.tool_body_text(block, expanded=False)

    assert cards.tool_summary(block) == "present — failed, nothing was presented"
    assert body.splitlines() == [
        "1 file could not be presented; nothing was recorded",
        "• report/indx.html — not found (no such file)",
    ]
    assert '"entries"' not in body
    view.grab()
    assert view.cached_height(row)[1]
