"""Turn stored messages into the chat's blocks: user text, tool cards, answer, cards."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from app.core.changes.index import TurnChanges, turn_changes
from app.core.chat.tool_names import PRESENT, SHOW_IMAGE
from app.core.store import StoredMessage
from app.core.store.deliverables import DeliverableRef
from app.core.store.imported_files import ImportedFile, ImportedFileRef
from app.core.store.messages import (
    AIMessage,
    HumanMessage,
    ToolCall,
    ToolResult,
    content_text,
    kind_of,
    read,
)
from app.core.trust.public_files import PUBLIC_FOLDER
from app.core.trust.records import FileEntry, Record, UnsupportedRecord, parse_record

# "ended": the call's session ended without a result for it (an imported
# call that never finished); it is not running, and never will be.
ToolState = Literal["running", "finished", "error", "ended"]


class UserBlock(NamedTuple):
    text: str


class AssistantTextBlock(NamedTuple):
    """Markdown from the agent; ``final`` marks the turn's answer."""

    text: str
    final: bool


class ToolCallBlock(NamedTuple):
    """One tool call; ``file_count`` is how many files its record presents.

    The count comes from the record beside a ``present`` result (None for any
    other call, or a record of a version this app cannot read).
    """

    tool_call_id: str
    name: str
    args_json_text: str
    state: ToolState
    result_text: str
    file_count: int | None = None


class ImageBlock(NamedTuple):
    """A successful ``show_image``; ``public_path`` is where the view may read it."""

    tool_call_id: str
    filename: str
    alt_text: str
    caption: str
    mime: str
    public_path: str


class DeliverableBlock(NamedTuple):
    """One presented file, or one unsupported record (then ``entry`` is None)."""

    ref: DeliverableRef
    entry: FileEntry | None
    unsupported: UnsupportedRecord | None
    folder: str = ""
    """The end of its folder, when another card of its declaration has its name."""


def telling_folders(paths: Sequence[str]) -> list[str]:
    """For each path, the fewest last folders that tell same-named files apart.

    ``""`` for a name no other path shares. Three ``index.ts`` in ``src/a``,
    ``src/b`` and ``lib`` get ``a``, ``b`` and ``lib``; ``x/a`` and ``y/a``
    (both ``index.ts``) get ``x/a`` and ``y/a``.
    """
    parts = [os.path.normpath(path).split(os.sep) for path in paths]
    names = [split[-1] for split in parts]
    folders = [""] * len(paths)
    for name in set(names):
        group = [i for i, other in enumerate(names) if other == name]
        if len(group) < 2:
            continue
        deepest = max(len(parts[i]) - 1 for i in group)
        for depth in range(1, deepest + 1):
            tails = {i: "/".join(parts[i][-1 - depth : -1]) for i in group}
            if len(set(tails.values())) == len(group) or depth == deepest:
                for i, tail in tails.items():
                    folders[i] = tail
                break
    return folders


class ChangesBlock(NamedTuple):
    """A finished turn's "Changed files (N)": its change index, looked up once.

    It holds no verdicts: opening a file or a diff from it looks the change up
    in the store again and revalidates, as a card does.
    """

    changes: TurnChanges


class ImportedFileBlock(NamedTuple):
    """A file an imported session created or edited: a card, not trusted.

    ``file`` is what the transcript says; the card's state (verified or not)
    and every action come from the store again, never from here.
    """

    ref: ImportedFileRef
    file: ImportedFile


class TurnActionsBlock(NamedTuple):
    turn_index: int
    answer_text: str
    fork_position: int


class RunErrorBlock(NamedTuple):
    """A run that failed; never built from the store, added by a live view."""

    text: str


Block = (
    UserBlock
    | AssistantTextBlock
    | ToolCallBlock
    | ImageBlock
    | DeliverableBlock
    | ChangesBlock
    | ImportedFileBlock
    | TurnActionsBlock
    | RunErrorBlock
)


@dataclass(frozen=True, slots=True)
class Splice:
    """Replace ``removed`` blocks from ``start`` with ``blocks`` (a list edit)."""

    start: int
    removed: int
    blocks: tuple[Block, ...]


def _args_text(args: object) -> str:
    try:
        return json.dumps(args, ensure_ascii=False, sort_keys=False)
    except (TypeError, ValueError, RecursionError):
        return repr(args)


def _image_block(call_id: str, result_text: str, workspace: str) -> ImageBlock | None:
    if not workspace:
        # No workspace (an imported session not confirmed yet): there is no
        # public folder, and a relative path would name one in the app's own.
        return None
    try:
        data = json.loads(result_text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    filename = data.get("filename")
    # The name becomes a path: only a plain name directly in public/ is accepted.
    if (
        not isinstance(filename, str)
        or not filename
        or filename in (".", "..")
        or "/" in filename
        or "\\" in filename
        or "\0" in filename
    ):
        return None

    def text(key: str, default: str = "") -> str:
        value = data.get(key)
        return value if isinstance(value, str) else default

    return ImageBlock(
        tool_call_id=call_id,
        filename=filename,
        alt_text=text("alt_text", filename),
        caption=text("caption"),
        mime=text("mime"),
        public_path=os.path.join(workspace, PUBLIC_FOLDER, filename),
    )


def presented_count(record: Record | UnsupportedRecord | str | None) -> int | None:
    """How many files a ``present`` record holds; None without a usable record."""
    if isinstance(record, str):
        record = parse_record(record)
    if record is None or isinstance(record, UnsupportedRecord):
        return None
    return len(record.files)


def split_turns(messages: Iterable[StoredMessage]) -> list[list[StoredMessage]]:
    """Group messages into turns; each human message starts a new one."""
    turns: list[list[StoredMessage]] = []
    for stored in messages:
        if kind_of(stored.message) == "human" or not turns:
            turns.append([stored])
        else:
            turns[-1].append(stored)
    return turns


def _is_human(stored: StoredMessage) -> bool:
    return kind_of(stored.message) == "human"


@dataclass
class _Turn:
    """The turn being built: where its blocks start and its parsed records."""

    index: int
    start_block: int
    messages: list[StoredMessage] = field(default_factory=list)
    records: dict[str, Record | UnsupportedRecord] = field(default_factory=dict)


class BlockBuilder:
    """Builds blocks for one conversation, in bulk or one stored message at a time.

    Only the current (last) turn can change when a message arrives, so ``add``
    rebuilds that turn's blocks and returns the edit against the previous ones.
    ``load`` builds only the newest turns; ``build_older`` builds earlier ones on
    demand and puts them in front, so a long history shows without waiting.

    Blocks are named tuples rather than frozen dataclasses: a long conversation
    holds hundreds of thousands of them, and tuples are about three times
    cheaper to create and smaller in memory.
    """

    def __init__(self, conversation_id: str, workspace: str) -> None:
        self.conversation_id = conversation_id
        self.workspace = workspace
        self.blocks: list[Block] = []
        self.tool_call_ids: set[str] = set()
        self._turn: _Turn | None = None
        self._turn_count = 0
        self._older: list[list[StoredMessage]] = []
        # The history position after the last message seen: where a view asks
        # the store for what was added since (messages from another process).
        self.next_position = 0
        # An imported session's files, by the position of the turn that last
        # changed them: each becomes a card at the end of that turn.
        self._imported: dict[int, list[ImportedFile]] = {}

    def set_imported(self, files: Iterable[ImportedFile]) -> None:
        """The imported files to show as cards; call before ``load``."""
        self._imported = {}
        for file in files:
            self._imported.setdefault(file.turn_position, []).append(file)

    def _imported_blocks(self, turn: _Turn) -> list[Block]:
        first = turn.messages[0].position if turn.messages else -1
        return [
            ImportedFileBlock(ImportedFileRef(self.conversation_id, f.entry_id), f)
            for f in self._imported.get(first, ())
        ]

    @property
    def turn_count(self) -> int:
        return self._turn_count

    @property
    def older_turns(self) -> int:
        """How many turns before the first built one are still to be built."""
        return len(self._older)

    def extend(self, messages: Iterable[StoredMessage]) -> None:
        """Build every turn of ``messages`` now."""
        self.load(messages, newest_turns=None)

    def load(
        self, messages: Iterable[StoredMessage], newest_turns: int | None = 20
    ) -> None:
        """Start over with ``messages``; build the newest ``newest_turns`` turns."""
        self.blocks = []
        self.tool_call_ids = set()
        self._turn = None
        turns = split_turns(messages)
        self.next_position = turns[-1][-1].position + 1 if turns else 0
        self._turn_count = len(turns)
        keep = len(turns) if newest_turns is None else max(1, newest_turns)
        self._older = turns[: max(0, len(turns) - keep)]
        first_index = len(self._older)
        for offset, turn in enumerate(turns[len(self._older) :]):
            index = first_index + offset
            state = _Turn(index, len(self.blocks), turn, {})
            self.blocks.extend(self._turn_blocks(state))
            self._turn = state
        if self._turn is not None and self._turn.messages:
            self._turn.start_block += _is_human(self._turn.messages[0])

    def build_older(self, max_turns: int) -> list[Block]:
        """Build up to ``max_turns`` turns before the first built one.

        The blocks are not yet in ``blocks``: pass them to ``prepend`` once the
        caller is ready, so a list model can announce the rows first.
        """
        count = min(max_turns, len(self._older))
        if count <= 0:
            return []
        first = len(self._older) - count
        chunk = self._older[first:]
        del self._older[first:]
        built: list[Block] = []
        for offset, turn in enumerate(chunk):
            built.extend(self._turn_blocks(_Turn(first + offset, 0, turn, {})))
        return built

    def prepend(self, blocks: Sequence[Block]) -> None:
        """Put blocks from ``build_older`` in front of the built ones."""
        self.blocks[0:0] = blocks
        if self._turn is not None:
            self._turn.start_block += len(blocks)

    def add(self, stored: StoredMessage) -> Splice:
        """Add one stored message; return the edit to apply to ``blocks``."""
        self.next_position = max(self.next_position, stored.position + 1)
        if _is_human(stored):
            start = len(self.blocks)
            self._turn = _Turn(self._turn_count, start + 1, [stored], {})
            self._turn_count += 1
            message = read(stored.message)
            text = (
                content_text(message.content)
                if isinstance(message, HumanMessage)
                else ""
            )
            self.blocks.append(UserBlock(text))
            return Splice(start, 0, (self.blocks[start],))
        if self._turn is None:
            # Messages before any user message (a system prompt, a replayed
            # fork) still belong somewhere: an implicit first turn.
            self._turn = _Turn(self._turn_count, len(self.blocks))
            self._turn_count += 1
        turn = self._turn
        turn.messages.append(stored)
        new = self._turn_blocks(turn)
        if turn.messages and _is_human(turn.messages[0]):
            new = new[1:]
        old = self.blocks[turn.start_block :]
        same = 0
        for before, after in zip(old, new, strict=False):
            # Named tuples of different kinds may hold equal values.
            if type(before) is not type(after) or before != after:
                break
            same += 1
        start = turn.start_block + same
        del self.blocks[start:]
        self.blocks.extend(new[same:])
        return Splice(start, len(old) - same, tuple(new[same:]))

    def _record(self, turn: _Turn, stored: StoredMessage) -> Record | UnsupportedRecord:
        assert stored.record is not None
        key = stored.record.tool_call_id
        parsed = turn.records.get(key)
        if parsed is None:
            parsed = parse_record(stored.record.raw)
            turn.records[key] = parsed
        return parsed

    def _turn_blocks(self, turn: _Turn) -> list[Block]:
        """Every block of ``turn``, its user message included."""
        blocks: list[Block] = []
        results: dict[str, tuple[ToolResult, StoredMessage]] = {}
        ais: list[AIMessage] = []
        for stored in turn.messages:
            message = read(stored.message)
            if isinstance(message, HumanMessage):
                blocks.append(UserBlock(content_text(message.content)))
            elif isinstance(message, ToolResult):
                results[message.tool_call_id] = (message, stored)
            elif isinstance(message, AIMessage):
                ais.append(message)
        final = ais[-1] if ais and not ais[-1].tool_calls else None
        presents: list[tuple[str, StoredMessage]] = []
        for ai in ais:
            text = content_text(ai.content)
            if text.strip():
                blocks.append(AssistantTextBlock(text, ai is final))
            for call in ai.tool_calls:
                presented = self._tool_blocks(turn, call, results, blocks)
                if presented is not None:
                    presents.append(presented)
        if final is None:
            blocks.extend(self._imported_blocks(turn))
            return blocks
        for call_id, result in presents:
            blocks.extend(self._deliverables(turn, call_id, result))
        if any(stored.changes for stored in turn.messages):
            changes = turn_changes(self.conversation_id, turn.messages)
            if changes.files or changes.unsupported:
                blocks.append(ChangesBlock(changes))
        blocks.extend(self._imported_blocks(turn))
        last = turn.messages[-1].position if turn.messages else 0
        answer = content_text(final.content)
        blocks.append(TurnActionsBlock(turn.index, answer, last + 1))
        return blocks

    def _tool_blocks(
        self,
        turn: _Turn,
        call: ToolCall,
        results: dict[str, tuple[ToolResult, StoredMessage]],
        blocks: list[Block],
    ) -> tuple[str, StoredMessage] | None:
        """Append a call's blocks; return it if it is a successful ``present``."""
        call_id = call.id or ""
        name = call.name
        self.tool_call_ids.add(call_id)
        answered = results.get(call_id)
        result = answered[1] if answered is not None else None
        state: ToolState = "running"
        result_text = ""
        if answered is not None:
            result_text = content_text(answered[0].content)
            state = "error" if answered[0].status == "error" else "finished"
            if answered[0].ended_without_result:
                state = "ended"
        args = _args_text(call.args)
        count = None
        if name == PRESENT and state == "finished" and result is not None:
            count = self._file_count(turn, result)
        blocks.append(ToolCallBlock(call_id, name, args, state, result_text, count))
        if state != "finished" or result is None:
            return None
        if name == SHOW_IMAGE:
            image = _image_block(call_id, result_text, self.workspace)
            if image is not None:
                blocks.append(image)
        if name == PRESENT and result.record is not None:
            return call_id, result
        return None

    def _file_count(self, turn: _Turn, result: StoredMessage) -> int | None:
        if result.record is None:
            return None
        return presented_count(self._record(turn, result))

    def _deliverables(
        self, turn: _Turn, call_id: str, result: StoredMessage
    ) -> list[Block]:
        record = self._record(turn, result)
        if isinstance(record, UnsupportedRecord):
            ref = DeliverableRef(self.conversation_id, call_id, 0)
            return [DeliverableBlock(ref, None, record)]
        conversation = self.conversation_id
        folders = telling_folders([entry.resolved for entry in record.files])
        return [
            DeliverableBlock(
                DeliverableRef(conversation, call_id, i), entry, None, folder
            )
            for i, (entry, folder) in enumerate(zip(record.files, folders, strict=True))
        ]


def build_blocks(
    conversation_id: str, workspace: str, messages: Sequence[StoredMessage]
) -> list[Block]:
    """All blocks of a conversation, in display order."""
    builder = BlockBuilder(conversation_id, workspace)
    builder.extend(messages)
    return builder.blocks
