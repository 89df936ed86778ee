"""Text in answers and user messages is selected with the mouse and copied."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QGuiApplication, QKeySequence, QMouseEvent
from PySide6.QtWidgets import QApplication

from app.core.chat.blocks import AssistantTextBlock, DeliverableBlock, UserBlock
from app.ui.chat import ChatView
from app.ui.chat.selection import TextSelection

CID = "conv-1"


def make_view(qtbot: Any, workspace: Path, messages: Any, policy: Any) -> ChatView:
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


def point_at(view: ChatView, row: int, position: int) -> QPoint:
    """Where character ``position`` of ``row``'s text is drawn, in the viewport."""
    index = view.chat_model().index(row)
    view.scrollTo(index)
    view.viewport().repaint()
    found = view.chat_delegate().text_document(
        index, view.visualRect(index), view.font(), view.palette()
    )
    assert found is not None
    document, origin = found
    block = document.findBlock(position)
    line = block.layout().lineForTextPosition(position - block.position())
    x = line.cursorToX(position - block.position())[0]
    top = document.documentLayout().blockBoundingRect(block).top()
    return (origin + QPointF(x, top + line.y() + line.height() / 2)).toPoint()


def send(view: ChatView, kind: QEvent.Type, point: QPoint, held: bool) -> None:
    buttons = Qt.MouseButton.LeftButton if held else Qt.MouseButton.NoButton
    event = QMouseEvent(
        kind,
        QPointF(point),
        QPointF(view.viewport().mapToGlobal(point)),
        Qt.MouseButton.LeftButton
        if kind != QEvent.Type.MouseMove
        else Qt.MouseButton.NoButton,
        buttons,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(view.viewport(), event)


def drag(view: ChatView, start: QPoint, end: QPoint) -> None:
    send(view, QEvent.Type.MouseButtonPress, start, True)
    send(view, QEvent.Type.MouseMove, (start + end) / 2, True)
    send(view, QEvent.Type.MouseMove, end, True)
    send(view, QEvent.Type.MouseButtonRelease, end, False)


def copy(qtbot: Any, view: ChatView) -> str:
    QGuiApplication.clipboard().clear()
    view.setFocus()
    qtbot.keySequence(view, QKeySequence(QKeySequence.StandardKey.Copy))
    return QGuiApplication.clipboard().text()


def test_dragging_over_an_answer_selects_part_of_it_and_ctrl_c_copies_it(
    qtbot: Any, workspace: Path, demo_messages: Any, policy: Any
) -> None:
    view = make_view(qtbot, workspace, demo_messages, policy)
    row = row_of(view, lambda b: isinstance(b, AssistantTextBlock) and b.final)
    document = view.document_for_row(row)
    assert document is not None
    plain = document.toPlainText()
    start = plain.index("Revenue")
    end = plain.index("grew") + len("grew")

    drag(view, point_at(view, row, start), point_at(view, row, end))

    assert view.selected_text() == "Revenue grew"
    assert copy(qtbot, view) == "Revenue grew"


def test_a_double_click_selects_a_word(
    qtbot: Any, workspace: Path, demo_messages: Any, policy: Any
) -> None:
    view = make_view(qtbot, workspace, demo_messages, policy)
    row = row_of(view, lambda b: isinstance(b, UserBlock))
    document = view.document_for_row(row)
    assert document is not None
    at = document.toPlainText().index("analyse") + 2

    qtbot.mouseDClick(
        view.viewport(), Qt.MouseButton.LeftButton, pos=point_at(view, row, at)
    )

    assert view.selected_text() == "analyse"


def test_a_selection_can_run_from_one_message_into_the_next(
    qtbot: Any, workspace: Path, new_messages: Any, policy: Any
) -> None:
    messages = new_messages()
    messages.human("First question about the quarterly numbers")
    messages.answer("The first answer, with some detail.")
    view = make_view(qtbot, workspace, messages, policy)
    user = row_of(view, lambda b: isinstance(b, UserBlock))
    answer = row_of(view, lambda b: isinstance(b, AssistantTextBlock))
    question = view.document_for_row(user)
    assert question is not None
    start = question.toPlainText().index("quarterly")

    drag(
        view,
        point_at(view, user, start),
        point_at(view, answer, len("The first answer")),
    )

    assert view.selected_text() == "quarterly numbers\n\nThe first answer"


def test_clicking_elsewhere_clears_the_selection_and_cards_still_open(
    qtbot: Any, workspace: Path, demo_messages: Any, policy: Any
) -> None:
    view = make_view(qtbot, workspace, demo_messages, policy)
    row = row_of(view, lambda b: isinstance(b, AssistantTextBlock) and b.final)
    drag(view, point_at(view, row, 0), point_at(view, row, 6))
    assert view.selected_text()
    card = row_of(view, lambda b: isinstance(b, DeliverableBlock))
    view.scrollTo(view.chat_model().index(card))
    rect = view.visualRect(view.chat_model().index(card))

    with qtbot.waitSignal(view.deliverableActivated):
        qtbot.mouseClick(
            view.viewport(),
            Qt.MouseButton.LeftButton,
            pos=QPoint(rect.center().x() - 100, rect.center().y()),
        )

    assert view.selected_text() == ""


def test_select_all_takes_every_message(
    qtbot: Any, workspace: Path, demo_messages: Any, policy: Any
) -> None:
    view = make_view(qtbot, workspace, demo_messages, policy)
    view.setFocus()
    qtbot.keySequence(view, QKeySequence(QKeySequence.StandardKey.SelectAll))
    text = view.selected_text()
    assert text.startswith("Please analyse the sales data.")
    assert text.endswith("Here is the logo.")
    assert "Revenue grew" in text


def test_a_selection_follows_rows_inserted_above_it() -> None:
    selection = TextSelection()
    selection.select((5, 2), (7, 3))
    selection.rows_inserted(0, 10)
    assert selection.ordered() == ((15, 2), (17, 3))
    selection.rows_removed(0, 1)
    assert selection.ordered() == ((13, 2), (15, 3))
    selection.rows_removed(14, 14)
    assert selection.ordered() is None
