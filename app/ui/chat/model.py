"""The chat's list model: one row per chat block, plus live rows of a run."""

from __future__ import annotations

import html
import json
from typing import Any, Final, NamedTuple

from PySide6.QtCore import (
    QAbstractListModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QImage

from app.agent.events import (
    MessageStored,
    RunFailed,
    RunFinished,
    ToolCallFinished,
    ToolCallStarted,
)
from app.agent.failures import failure_hint
from app.core.chat.blocks import (
    AssistantTextBlock,
    Block,
    BlockBuilder,
    ChangesBlock,
    DeliverableBlock,
    ImageBlock,
    ImportedFileBlock,
    RunErrorBlock,
    Splice,
    ToolCallBlock,
    ToolState,
    TurnActionsBlock,
    UserBlock,
    presented_count,
)
from app.core.store import StoredMessage, StoredRecord
from app.core.store.change_rows import StoredChange
from app.core.store.deliverables import DeliverableRef
from app.core.store.imported_files import ImportedFile, ImportedFileRef
from app.core.store.messages import kind_of, tool_call_id
from app.core.trust.display_names import display_name

BlockRole: Final = Qt.ItemDataRole.UserRole + 1
VerdictRole: Final = Qt.ItemDataRole.UserRole + 2
ExpandedRole: Final = Qt.ItemDataRole.UserRole + 3
ImageRole: Final = Qt.ItemDataRole.UserRole + 4  # QImage, an error str, or None
ThumbnailRole: Final = Qt.ItemDataRole.UserRole + 5  # an image card's QImage, or None

NEWEST_TURNS: Final = 30  # built at once; older turns follow in the background
OLDER_CHUNK: Final = 100  # turns per event-loop pass: about 15 ms
ACCESSIBLE_LIMIT: Final = 500
_PROBLEM_VERDICTS: Final = frozenset(
    {"changed", "missing", "denied", "symlink", "not_regular", "untrusted"}
)
_Index = QModelIndex | QPersistentModelIndex
NOT_VERIFIED: Final = "imported \u2014 not verified"


class ImportedState(NamedTuple):
    """What an imported card shows: whether Verify passed, and its words."""

    verified: bool
    message: str
    problem: bool  # modified, missing or refused: shown as a warning
    busy: bool = False  # Verify is running


UNVERIFIED: Final = ImportedState(False, NOT_VERIFIED, False)


def accessible_text(block: Block) -> str:
    """What a screen reader says for a row."""
    if isinstance(block, DeliverableBlock):
        if block.entry is None:
            return f"Unsupported record (version {_version(block)})"
        return f"{block.entry.display_name} — {block.entry.description}"
    if isinstance(block, ToolCallBlock):
        return f"{block.name} {block.state}"
    if isinstance(block, ImageBlock):
        return block.caption or block.alt_text
    if isinstance(block, TurnActionsBlock):
        return "Turn actions: Copy answer, Fork from here"
    if isinstance(block, ChangesBlock):
        return f"Changed files ({block.changes.count})"
    if isinstance(block, ImportedFileBlock):
        return f"{display_name(block.file.path)} — imported"
    if isinstance(block, UserBlock | AssistantTextBlock | RunErrorBlock):
        return block.text[:ACCESSIBLE_LIMIT]
    return ""


def _version(block: DeliverableBlock) -> str:
    if block.unsupported is None:
        return "?"
    return json.dumps(block.unsupported.version)


def escaped_tooltip(text: str) -> str:
    """Rich text that shows ``text`` literally (Qt would guess at raw text)."""
    return "<qt>" + html.escape(text).replace("\n", "<br>") + "</qt>"


def _expand_key(block: Block) -> str | None:
    """What remembers a row as expanded: a tool call's id, a turn's changes."""
    if isinstance(block, ToolCallBlock):
        return block.tool_call_id
    if isinstance(block, ChangesBlock):
        return f"changes:{block.changes.turn_position}"
    return None


class ChatModel(QAbstractListModel):
    """Blocks of one conversation; rows built from the store, then live rows.

    Live rows (running tool cards, streamed text, a run error) sit after the
    stored ones and are dropped when the stored messages they stand for arrive.

    Signals:
        historyLoaded(): every older turn has been built.
        runningChanged(bool): whether any tool card is running.
    """

    historyLoaded = Signal()
    runningChanged = Signal(bool)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._builder = BlockBuilder("", "")
        self._rows: list[Block] = []
        self._live = 0  # rows at the end that are not (yet) stored
        self._streaming = False  # the last row is text being streamed
        self._expanded: set[str] = set()
        self._verdicts: dict[DeliverableRef, str] = {}
        self._thumbnails: dict[DeliverableRef, QImage] = {}
        self._images: dict[str, QImage | str] = {}
        self._imported: dict[ImportedFileRef, ImportedState] = {}
        self.model_spec = ""
        """The model in use, so a failure can say how to fix it."""
        self._older_timer = QTimer(self)
        self._older_timer.setInterval(0)
        self._older_timer.timeout.connect(self._on_older_timer_timeout)

    # -- Qt model API --------------------------------------------------------

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        return self._value(index, role)

    def _value(self, index: _Index, role: int) -> Any:
        row = index.row()
        if not 0 <= row < len(self._rows):
            return None
        block = self._rows[row]
        if role == BlockRole:
            return block
        if role in (Qt.ItemDataRole.AccessibleTextRole, Qt.ItemDataRole.DisplayRole):
            return accessible_text(block)
        if role == Qt.ItemDataRole.AccessibleDescriptionRole:
            if isinstance(block, ImageBlock):
                return block.alt_text
            if isinstance(block, DeliverableBlock) and block.entry is not None:
                verdict = self._verdicts.get(block.ref)
                return f"Last check: {verdict}" if verdict else block.entry.scope
            return None
        if role == Qt.ItemDataRole.ToolTipRole:
            if isinstance(block, DeliverableBlock) and block.entry is not None:
                entry = block.entry
                return escaped_tooltip(
                    f"{entry.display_name}\n{entry.description}\n{display_name(entry.path)}"
                )
            return None
        if role == VerdictRole:
            if isinstance(block, DeliverableBlock):
                return self._verdicts.get(block.ref)
            if isinstance(block, ImportedFileBlock):
                return self._imported.get(block.ref, UNVERIFIED)
            return None
        if role == ExpandedRole:
            key = _expand_key(block)
            return key is not None and key in self._expanded
        if role == ImageRole:
            if isinstance(block, ImageBlock):
                return self._images.get(block.tool_call_id)
            return None
        if role == ThumbnailRole:
            if isinstance(block, DeliverableBlock) and block.ref not in self._verdicts:
                return self._thumbnails.get(block.ref)
            return None
        return None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    # -- loading -------------------------------------------------------------

    @property
    def conversation_id(self) -> str:
        return self._builder.conversation_id

    @property
    def workspace(self) -> str:
        return self._builder.workspace

    def block(self, row: int) -> Block:
        return self._rows[row]

    def history_complete(self) -> bool:
        return self._builder.older_turns == 0

    def set_conversation(
        self,
        conversation_id: str,
        workspace: str,
        messages: list[StoredMessage],
        imported: list[ImportedFile] | None = None,
    ) -> None:
        """Show ``messages``: the newest turns now, older ones soon after.

        ``imported``: an imported session's files, each shown as a card.
        """
        self.beginResetModel()
        self._builder = BlockBuilder(conversation_id, workspace)
        self._builder.set_imported(imported or ())
        self._imported.clear()
        self._builder.load(messages, newest_turns=NEWEST_TURNS)
        self._rows = list(self._builder.blocks)
        self._live = 0
        self._streaming = False
        self._expanded.clear()
        self._verdicts.clear()
        self._thumbnails.clear()
        self._images.clear()
        self.endResetModel()
        if self._builder.older_turns:
            self._older_timer.start()
        else:
            self._older_timer.stop()
        self._announce_running()

    def load_all_history(self) -> None:
        """Build every older turn now (tests, benchmarks, "go to top")."""
        while self._builder.older_turns:
            self._load_older(OLDER_CHUNK * 4)

    def defer_older(self) -> None:
        """Hold back building older turns until ``resume_older``."""
        self._older_timer.stop()

    def resume_older(self) -> None:
        """Build the older turns held back by ``defer_older``, a chunk per tick."""
        if self._builder.older_turns and not self._older_timer.isActive():
            self._older_timer.start()

    def _on_older_timer_timeout(self) -> None:
        self._load_older(OLDER_CHUNK)

    def _load_older(self, turns: int) -> None:
        blocks = self._builder.build_older(turns)
        if blocks:
            self.beginInsertRows(QModelIndex(), 0, len(blocks) - 1)
            self._builder.prepend(blocks)
            self._rows[0:0] = blocks
            self.endInsertRows()
        if not self._builder.older_turns:
            self._older_timer.stop()
            self.historyLoaded.emit()

    # -- live events ---------------------------------------------------------

    def apply_event(self, event: object) -> None:
        """Show a runner event (``app.agent.runner``) as it happens."""
        if isinstance(event, MessageStored):
            self._on_message_stored(event)
        elif isinstance(event, ToolCallStarted):
            if event.tool_call_id not in self._builder.tool_call_ids:
                args = json.dumps(event.args, ensure_ascii=False)
                self._put_live_tool(
                    ToolCallBlock(event.tool_call_id, event.name, args, "running", "")
                )
        elif isinstance(event, ToolCallFinished):
            if event.tool_call_id not in self._builder.tool_call_ids:
                state: ToolState = "error" if event.status == "error" else "finished"
                row = self._live_tool_row(event.tool_call_id)
                args = "" if row is None else self._rows[row].args_json_text  # type: ignore[union-attr]
                self._put_live_tool(
                    ToolCallBlock(
                        event.tool_call_id,
                        event.name,
                        args,
                        state,
                        event.content,
                        presented_count(event.record),
                    )
                )
        elif isinstance(event, RunFailed):
            self._end_streaming()
            self._stop_live_tools("the run failed")
            hint = failure_hint(event.error, self.model_spec)
            text = f"The agent run failed: {event.error}"
            self._append_live(RunErrorBlock(f"{text}\n\n{hint}" if hint else text))
        elif isinstance(event, RunFinished):
            self._end_streaming()
            if event.cancelled:
                self._stop_live_tools("cancelled")
        self._announce_running()

    def append_streaming_text(self, text: str) -> int:
        """Append ``text`` to the live answer row; return that row."""
        if self._streaming:
            row = len(self._rows) - 1
            current = self._rows[row]
            assert isinstance(current, AssistantTextBlock)
            self._rows[row] = AssistantTextBlock(current.text + text, False)
            index = self.index(row)
            self.dataChanged.emit(index, index)
            return row
        self._append_live(AssistantTextBlock(text, False))
        self._streaming = True
        return len(self._rows) - 1

    def _on_message_stored(self, event: MessageStored) -> None:
        if kind_of(event.message) == "ai":
            self._end_streaming()
        call_id = tool_call_id(event.message)
        record = None
        if event.record is not None:
            # The runner in this process just wrote this record: it is trusted.
            record = StoredRecord(str(call_id), event.record, True)
        # Its change rows too, as the runner in this process just wrote them.
        changes = tuple(
            StoredChange(event.position, seq, str(call_id), "host", raw, True, False)
            for seq, raw in enumerate(event.changes)
        )
        stored = StoredMessage(
            event.position, self.conversation_id, event.message, record, changes
        )
        self._apply_splice(self._builder.add(stored))
        self._drop_stored_live_rows()

    def add_stored(self, messages: list[StoredMessage]) -> None:
        """Show messages another process stored, each record as the store judged it."""
        for stored in messages:
            self._apply_splice(self._builder.add(stored))
        self._drop_stored_live_rows()
        self._announce_running()

    def next_position(self) -> int:
        """The history position after the last stored message shown."""
        return self._builder.next_position

    def _apply_splice(self, splice: Splice) -> None:
        if splice.removed:
            self.beginRemoveRows(
                QModelIndex(), splice.start, splice.start + splice.removed - 1
            )
            del self._rows[splice.start : splice.start + splice.removed]
            self.endRemoveRows()
        if splice.blocks:
            last = splice.start + len(splice.blocks) - 1
            self.beginInsertRows(QModelIndex(), splice.start, last)
            self._rows[splice.start : splice.start] = splice.blocks
            self.endInsertRows()

    def _live_rows(self) -> range:
        return range(len(self._rows) - self._live, len(self._rows))

    def _live_tool_row(self, tool_call_id: str) -> int | None:
        for row in self._live_rows():
            block = self._rows[row]
            if isinstance(block, ToolCallBlock) and block.tool_call_id == tool_call_id:
                return row
        return None

    def _append_live(self, block: Block) -> None:
        row = len(self._rows)
        if self._streaming:
            # Keep streamed text last: it is the row that grows.
            row -= 1
        self.beginInsertRows(QModelIndex(), row, row)
        self._rows.insert(row, block)
        self._live += 1
        self.endInsertRows()

    def _put_live_tool(self, block: ToolCallBlock) -> None:
        row = self._live_tool_row(block.tool_call_id)
        if row is None:
            self._append_live(block)
            return
        self._rows[row] = block
        self.dataChanged.emit(self.index(row), self.index(row))

    def _remove_row(self, row: int) -> None:
        self.beginRemoveRows(QModelIndex(), row, row)
        del self._rows[row]
        self._live -= 1
        self.endRemoveRows()

    def _end_streaming(self) -> None:
        if self._streaming:
            self._streaming = False
            self._remove_row(len(self._rows) - 1)

    def _drop_stored_live_rows(self) -> None:
        known = self._builder.tool_call_ids
        for row in reversed(self._live_rows()):
            block = self._rows[row]
            if isinstance(block, ToolCallBlock) and block.tool_call_id in known:
                self._remove_row(row)

    def _stop_live_tools(self, why: str) -> None:
        for row in self._live_rows():
            block = self._rows[row]
            if isinstance(block, ToolCallBlock) and block.state == "running":
                self._rows[row] = block._replace(state="error", result_text=why)
                self.dataChanged.emit(self.index(row), self.index(row))

    # -- per-row state -------------------------------------------------------

    def running_rows(self) -> list[int]:
        """Rows of running tool cards: only the last turn and live rows can run."""
        found: list[int] = []
        for row in range(len(self._rows) - 1, -1, -1):
            block = self._rows[row]
            if isinstance(block, ToolCallBlock) and block.state == "running":
                found.append(row)
            elif isinstance(block, UserBlock):
                break
        return found

    def _announce_running(self) -> None:
        self.runningChanged.emit(bool(self.running_rows()))

    def toggle_expanded(self, row: int) -> None:
        key = _expand_key(self._rows[row])
        if key is None:
            return
        if key in self._expanded:
            self._expanded.discard(key)
        else:
            self._expanded.add(key)
        self.dataChanged.emit(self.index(row), self.index(row))

    def set_verdict(self, ref: DeliverableRef, verdict: str) -> None:
        """Show the last check's verdict on the card for ``ref`` (ok clears it)."""
        if verdict in _PROBLEM_VERDICTS:
            self._verdicts[ref] = verdict
        else:
            self._verdicts.pop(ref, None)
        for row in range(len(self._rows) - 1, -1, -1):
            block = self._rows[row]
            if isinstance(block, DeliverableBlock) and block.ref == ref:
                self.dataChanged.emit(self.index(row), self.index(row))

    def set_verdicts(self, verdicts: dict[DeliverableRef, str]) -> None:
        """``set_verdict`` for many cards at once: one pass over the rows."""
        changed = False
        for ref, verdict in verdicts.items():
            before = self._verdicts.get(ref)
            if verdict in _PROBLEM_VERDICTS:
                self._verdicts[ref] = verdict
            else:
                self._verdicts.pop(ref, None)
            changed = changed or before != self._verdicts.get(ref)
        if not changed:
            return
        for row, block in enumerate(self._rows):
            if isinstance(block, DeliverableBlock) and block.ref in verdicts:
                self.dataChanged.emit(self.index(row), self.index(row))

    def verdict(self, ref: DeliverableRef) -> str | None:
        return self._verdicts.get(ref)

    def set_thumbnail(self, ref: DeliverableRef, image: QImage | None) -> None:
        """Show ``image`` on ``ref``'s card instead of its kind icon (``None``: icon).

        A card with a problem badge shows its icon whatever it had before.
        """
        if image is None:
            if self._thumbnails.pop(ref, None) is None:
                return
        else:
            self._thumbnails[ref] = image
        for row, block in enumerate(self._rows):
            if isinstance(block, DeliverableBlock) and block.ref == ref:
                self.dataChanged.emit(self.index(row), self.index(row))

    def deliverable_refs(self) -> list[DeliverableRef]:
        return [
            block.ref
            for block in self._rows
            if isinstance(block, DeliverableBlock) and block.entry is not None
        ]

    def set_imported_state(self, ref: ImportedFileRef, state: ImportedState) -> None:
        """Show ``state`` on the imported card for ``ref``."""
        self._imported[ref] = state
        for row, block in enumerate(self._rows):
            if isinstance(block, ImportedFileBlock) and block.ref == ref:
                self.dataChanged.emit(self.index(row), self.index(row))

    def imported_state(self, ref: ImportedFileRef) -> ImportedState:
        return self._imported.get(ref, UNVERIFIED)

    def set_image(self, tool_call_id: str, image: QImage | str) -> list[int]:
        """Store a decoded image (or why not); return the rows that show it."""
        self._images[tool_call_id] = image
        rows = [
            row
            for row, block in enumerate(self._rows)
            if isinstance(block, ImageBlock) and block.tool_call_id == tool_call_id
        ]
        for row in rows:
            self.dataChanged.emit(self.index(row), self.index(row))
        return rows

    def has_image(self, tool_call_id: str) -> bool:
        return tool_call_id in self._images
