"""Codex CLI rollouts (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Final

from app.core.changes.change import FileChange
from app.importers.codex_changes import event_changes, patch_changes
from app.importers.evidence import ChangeItem, Item, MessageItem
from app.importers.lines import LineStats
from app.importers.messages import (
    ai,
    clip_args,
    human,
    text_parts,
    tool,
    unanswered,
)
from app.importers.patch import extract_patch

SOURCE: Final = "codex"
_IGNORED: Final = frozenset({"turn_context", "compacted", "event_msg"})
_ITEMS: Final = frozenset(
    {
        "message",
        "function_call",
        "custom_tool_call",
        "local_shell_call",
        "function_call_output",
        "custom_tool_call_output",
    }
)
_IGNORED_ITEMS: Final = frozenset(
    {"reasoning", "web_search_call", "image_generation_call", "compaction"}
)
# Context Codex sends as user messages; they are not the user's prompts.
_INJECTED: Final = (
    "<environment_context>",
    "<user_instructions>",
    "<permissions instructions>",
    "# AGENTS.md instructions",
)


@dataclass
class _Patch:
    """An apply_patch call whose outcome is still to come."""

    changes: list[FileChange]
    succeeded: bool = False


@dataclass
class _Reply:
    texts: list[str] = field(default_factory=list)
    calls: list[tuple[str, str, Any]] = field(default_factory=list)


@dataclass
class _Echo:
    """The last text of one kind, and which of Codex's two records it came from.

    A rollout keeps a prompt (and an answer) twice: as a ``response_item``
    message and as an ``event_msg``, in either order, and some rollouts keep
    only the event. The second copy of the same text is the first one's echo.
    """

    source: str = ""
    key: str = ""

    def is_echo(self, source: str, text: str) -> bool:
        key = " ".join(text.replace("[image]", " ").split())
        # One record may wrap the text the other holds (context put before a
        # prompt): the same ending is the same message.
        same = bool(key and self.key) and (
            key.endswith(self.key) or self.key.endswith(key)
        )
        if same and source != self.source:
            self.source = self.key = ""
            return True
        self.source, self.key = source, key
        return False

    def forget(self) -> None:
        self.source = self.key = ""


class CodexParser:
    """Turns rollout lines into stored messages and file evidence.

    A patch's files come from the ``patch_apply_end`` event when the rollout
    has one (it says what was applied), else from the call's own patch text
    once its output reported success.
    """

    source = SOURCE

    def __init__(self, stats: LineStats) -> None:
        self.stats = stats
        self.session_id: str | None = None
        self.cwd: str | None = None
        self.started_at: str | None = None
        self._turn_cwd = ""
        self._reply: _Reply | None = None
        self._patches: dict[str, _Patch] = {}
        self._names: dict[str, str] = {}
        self._prompt = _Echo()
        self._answer = _Echo()
        # Calls with no output yet: id -> name; and what their commands'
        # end events said, should the output itself never come.
        self._open: dict[str, str] = {}
        self._ran: dict[str, tuple[str, bool]] = {}

    def feed(self, number: int, line: dict[str, Any]) -> Iterator[Item]:
        kind, payload = line.get("type"), line.get("payload")
        at = line.get("timestamp")
        stamp = at if isinstance(at, str) else ""
        if not isinstance(payload, dict):
            kind, payload = self._legacy(line)
        if kind == "session_meta":
            self._meta(payload, stamp)
        elif kind == "turn_context":
            cwd = payload.get("cwd")
            if isinstance(cwd, str) and cwd:
                self._turn_cwd = cwd
        elif kind == "event_msg":
            yield from self._event(number, payload, stamp)
        elif kind == "response_item":
            yield from self._item(number, payload, stamp)
        elif kind not in _IGNORED:
            self.stats.skipped += 1

    def finish(self) -> Iterator[Item]:
        yield from self._flush()
        yield from self._unanswered()
        yield from self._settle()

    def _event(
        self, number: int, payload: dict[str, Any], stamp: str
    ) -> Iterator[Item]:
        event = payload.get("type")
        message = payload.get("message")
        text = message if isinstance(message, str) else ""
        if event == "patch_apply_end":
            yield from self._applied(number, payload, stamp)
        elif event == "user_message" and payload.get("kind") in (None, "plain"):
            yield from self._prompted("event", text)
        elif event == "agent_message" and not self._answer.is_echo("event", text):
            self._reply = self._reply or _Reply()
            self._reply.texts.append(text)
        elif event == "exec_command_end":
            call = payload.get("call_id")
            output = payload.get("aggregated_output", payload.get("stdout"))
            code = payload.get("exit_code")
            if isinstance(call, str) and isinstance(output, str):
                failed = isinstance(code, int) and code != 0
                self._ran[call] = (output, failed)

    def _unanswered(self) -> Iterator[Item]:
        """Results for the calls the turn ended without: they are not running.

        A command whose end event the rollout kept gets that event's output.
        """
        open_calls, self._open = self._open, {}
        ran, self._ran = self._ran, {}
        for call_id, name in open_calls.items():
            if call_id in ran:
                text, failed = ran[call_id]
                yield MessageItem(tool(call_id, name, text, error=failed))
            else:
                yield MessageItem(unanswered(call_id, name))

    def _legacy(self, line: dict[str, Any]) -> tuple[object, dict[str, Any]]:
        """Early rollouts: a bare meta line, then bare response items."""
        if "record_type" in line:
            return "compacted", line
        if line.get("type") in _ITEMS | _IGNORED_ITEMS:
            return "response_item", line
        if "id" in line and "timestamp" in line and "type" not in line:
            return "session_meta", line
        return line.get("type"), line

    def _meta(self, payload: dict[str, Any], stamp: str) -> None:
        meta = payload.get("meta") if isinstance(payload.get("meta"), dict) else payload
        assert isinstance(meta, dict)
        session, cwd, at = meta.get("id"), meta.get("cwd"), meta.get("timestamp")
        if self.session_id is None and isinstance(session, str) and session:
            self.session_id = session
        if self.cwd is None and isinstance(cwd, str) and cwd:
            self.cwd = self._turn_cwd = cwd
        if self.started_at is None:
            self.started_at = at if isinstance(at, str) else stamp or None

    @property
    def _where(self) -> str:
        return self._turn_cwd or self.cwd or ""

    def _item(self, number: int, item: dict[str, Any], stamp: str) -> Iterator[Item]:
        kind = item.get("type")
        call_id = item.get("call_id")
        call = call_id if isinstance(call_id, str) else ""
        if kind == "message":
            yield from self._message(item)
        elif kind in ("function_call", "custom_tool_call", "local_shell_call"):
            self._prompt.forget()
            self._call(number, kind, call, item, stamp)
        elif kind in ("function_call_output", "custom_tool_call_output"):
            yield from self._flush()
            self._prompt.forget()
            self._answer.forget()
            self._open.pop(call, None)
            self._ran.pop(call, None)
            text, error = _output(item.get("output"))
            if call in self._patches:
                self._patches[call].succeeded = not error
            yield MessageItem(tool(call, self._names.get(call, ""), text, error=error))
        elif kind not in _IGNORED_ITEMS:
            self.stats.skipped += 1

    def _message(self, item: dict[str, Any]) -> Iterator[Item]:
        role = item.get("role")
        text = text_parts(item.get("content"), ("input_text", "output_text", "text"))
        if role == "assistant" and not self._answer.is_echo("item", text):
            self._prompt.forget()
            self._reply = self._reply or _Reply()
            self._reply.texts.append(text)
        elif role == "user":
            yield from self._prompted("item", text)

    def _prompted(self, source: str, text: str) -> Iterator[Item]:
        """A prompt from either record of it; its echo from the other is dropped."""
        yield from self._flush()
        if not text.strip() or text.lstrip().startswith(_INJECTED):
            return
        if self._prompt.is_echo(source, text):
            return
        self._answer.forget()
        yield from self._unanswered()
        yield from self._settle()
        yield MessageItem(human(text), prompt=True)

    def _call(
        self, number: int, kind: object, call: str, item: dict[str, Any], stamp: str
    ) -> None:
        name = item.get("name")
        label = name if isinstance(name, str) else "local_shell"
        raw = item.get("arguments", item.get("input", item.get("action")))
        args: Any = raw
        if kind == "function_call" and isinstance(raw, str):
            try:
                args = json.loads(raw)
            except (ValueError, RecursionError):
                args = {"arguments": raw}
        self._names[call] = label
        if call:
            self._open[call] = label
        self._reply = self._reply or _Reply()
        self._reply.calls.append((call, label, clip_args(args)))
        patch = _patch_of(label, args)
        if patch is not None and call:
            found = patch_changes(patch, cwd=self._where, line=number, at=stamp)
            self._patches[call] = _Patch(found)

    def _applied(
        self, number: int, payload: dict[str, Any], stamp: str
    ) -> Iterator[Item]:
        call = payload.get("call_id")
        call_id = call if isinstance(call, str) else ""
        pending = self._patches.pop(call_id, None)
        if payload.get("success") is False:
            return
        found = event_changes(
            payload.get("changes"), cwd=self._where, line=number, at=stamp
        )
        if not found and pending is not None:
            found = pending.changes
        for change in found:
            yield ChangeItem(change, call_id or None)

    def _settle(self) -> Iterator[Item]:
        """Patches that reported success but had no event: their text stands."""
        patches, self._patches = self._patches, {}
        for call_id, patch in patches.items():
            if patch.succeeded:
                for change in patch.changes:
                    yield ChangeItem(change, call_id)
        self._names = {}

    def _flush(self) -> Iterator[Item]:
        reply, self._reply = self._reply, None
        if reply is not None:
            text = "\n".join(t for t in reply.texts if t)
            if text or reply.calls:
                yield MessageItem(ai(text, reply.calls))


def _patch_of(name: str, args: Any) -> str | None:
    """The patch an apply_patch call carries, also when run as a shell command."""
    if name == "apply_patch":
        if isinstance(args, str):
            return args
        found = args.get("input", args.get("patch")) if isinstance(args, dict) else None
        return found if isinstance(found, str) else None
    command = args.get("command", args.get("cmd")) if isinstance(args, dict) else None
    if isinstance(command, list) and all(isinstance(part, str) for part in command):
        if len(command) > 1 and command[0] == "apply_patch":
            return str(command[1])
        command = " ".join(command)
    return extract_patch(command) if isinstance(command, str) else None


def _output(output: object) -> tuple[str, bool]:
    """A call's output text and whether it reports a failure."""
    if isinstance(output, dict):
        text = output.get("content")
        return (text if isinstance(text, str) else json.dumps(output)), False
    if isinstance(output, list):
        return text_parts(output, ("input_text", "output_text", "text")), False
    if not isinstance(output, str):
        return "", False
    try:
        data = json.loads(output)
    except (ValueError, RecursionError):
        return output, False
    if isinstance(data, dict) and isinstance(data.get("output"), str):
        metadata = data.get("metadata")
        code = metadata.get("exit_code") if isinstance(metadata, dict) else None
        return data["output"], isinstance(code, int) and code != 0
    return output, False
