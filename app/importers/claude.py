"""Claude Code session transcripts (``~/.claude/projects/*/<session>.jsonl``)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Final

from app.importers.claude_edits import edit_evidence
from app.importers.claude_markup import typed_text
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

SOURCE: Final = "claude-code"
# Line types a session holds that carry nothing to import; any other type is
# counted as skipped.
_IGNORED: Final = frozenset(
    {
        "system",
        "summary",
        "file-history-snapshot",
        "queue-operation",
        "progress",
        "pr-link",
        "agent-name",
        "custom-title",
        "last-prompt",
        "attachment",
        "permission-mode",
        "ai-title",
        "agent-setting",
        "bridge-session",
        "worktree-state",
    }
)
_NOT_PROMPTS: Final = ("[Request interrupted by user",)
_PATH_KEYS: Final = ("file_path", "notebook_path")


@dataclass
class _Reply:
    """An assistant message arriving one content block per line."""

    message_id: object
    texts: list[str] = field(default_factory=list)
    calls: list[tuple[str, str, Any]] = field(default_factory=list)


class ClaudeParser:
    """Turns transcript lines into stored messages and file evidence.

    A subagent's lines (``isSidechain``) yield file evidence only: they are
    neither turns nor prompts of the session.
    """

    source = SOURCE

    def __init__(self, stats: LineStats) -> None:
        self.stats = stats
        self.session_id: str | None = None
        self.cwd: str | None = None
        self.started_at: str | None = None
        self._reply: _Reply | None = None
        # Reading a subagent's own transcript: every line is its sidechain.
        self.subagent = False
        # The current turn's tool calls: id -> (name, the paths of its input).
        self._calls: dict[str, tuple[str, dict[str, Any]]] = {}
        # The main thread's calls with no result yet: id -> name.
        self._open: dict[str, str] = {}

    def feed(self, number: int, line: dict[str, Any]) -> Iterator[Item]:
        kind = line.get("type")
        if kind not in ("user", "assistant"):
            if kind not in _IGNORED:
                self.stats.skipped += 1
            return
        self._note_session(line)
        message = line.get("message")
        if not isinstance(message, dict):
            self.stats.skipped += 1
            return
        if line.get("isSidechain") is True or self.subagent:
            self.stats.sidechain += 1
            yield from self._sidechain(number, line, message)
        elif kind == "assistant":
            yield from self._assistant(message)
        else:
            yield from self._user(number, line, message)

    def finish(self) -> Iterator[Item]:
        yield from self._flush()
        yield from self._unanswered()

    def _unanswered(self) -> Iterator[Item]:
        """Results for the calls the turn ended without: they are not running."""
        yield from self._flush()
        open_calls, self._open = self._open, {}
        for call_id, name in open_calls.items():
            yield MessageItem(unanswered(call_id, name))

    def _note_session(self, line: dict[str, Any]) -> None:
        session, cwd, at = line.get("sessionId"), line.get("cwd"), line.get("timestamp")
        if self.session_id is None and isinstance(session, str) and session:
            self.session_id = session
        if self.cwd is None and isinstance(cwd, str) and cwd:
            self.cwd = cwd
        if self.started_at is None and isinstance(at, str):
            self.started_at = at

    def _remember_calls(self, content: object) -> list[tuple[str, str, Any]]:
        calls: list[tuple[str, str, Any]] = []
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                call_id, name = block.get("id"), block.get("name")
                args = block.get("input")
                if isinstance(call_id, str) and isinstance(name, str):
                    given = args if isinstance(args, dict) else {}
                    # Only the paths are kept: a Write's content stays in its line.
                    paths = {
                        key: given[key]
                        for key in _PATH_KEYS
                        if isinstance(given.get(key), str)
                    }
                    self._calls[call_id] = (name, paths)
                    calls.append((call_id, name, clip_args(given)))
        return calls

    def _assistant(self, message: dict[str, Any]) -> Iterator[Item]:
        content = message.get("content")
        message_id = message.get("id")
        reply = self._reply
        if reply is None or message_id is None or reply.message_id != message_id:
            yield from self._flush()
            reply = self._reply = _Reply(message_id)
        reply.texts.append(text_parts(content))
        calls = self._remember_calls(content)
        reply.calls.extend(calls)
        self._open.update((call_id, name) for call_id, name, _args in calls)

    def _flush(self) -> Iterator[Item]:
        reply, self._reply = self._reply, None
        if reply is not None:
            text = "\n".join(t for t in reply.texts if t)
            if text or reply.calls:
                yield MessageItem(ai(text, reply.calls))

    def _user(
        self, number: int, line: dict[str, Any], message: dict[str, Any]
    ) -> Iterator[Item]:
        yield from self._flush()
        content = message.get("content")
        results = [
            block
            for block in (content if isinstance(content, list) else [])
            if isinstance(block, dict) and block.get("type") == "tool_result"
        ]
        if not results:
            text = typed_text(text_parts(content))
            meta = line.get("isMeta") is True or line.get("isCompactSummary") is True
            if meta or text is None or not text.strip():
                return
            if text.startswith(_NOT_PROMPTS):
                return
            yield from self._unanswered()
            self._calls = {}  # a new turn: earlier calls are answered
            yield MessageItem(human(text), prompt=True)
            return
        result = line.get("toolUseResult")
        agent = result.get("agentId") if isinstance(result, dict) else None
        for block in results:
            call_id = block.get("tool_use_id")
            if not isinstance(call_id, str):
                continue
            self._open.pop(call_id, None)
            name = self._calls.get(call_id, ("", {}))[0]
            error = block.get("is_error") is True
            body = text_parts(block.get("content"))
            yield MessageItem(
                tool(call_id, name, body, error=error),
                agent_id=agent if isinstance(agent, str) and agent else None,
            )
            agent = None
        first = results[0].get("tool_use_id")
        if isinstance(first, str) and results[0].get("is_error") is not True:
            yield from self._evidence(number, line, first, first)

    def _sidechain(
        self, number: int, line: dict[str, Any], message: dict[str, Any]
    ) -> Iterator[Item]:
        content = message.get("content")
        if line.get("type") == "assistant":
            self._remember_calls(content)
            return
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                call_id = block.get("tool_use_id")
                if isinstance(call_id, str) and block.get("is_error") is not True:
                    # Not a main-thread call: attached to the latest message.
                    yield from self._evidence(number, line, call_id, None)
                break

    def _evidence(
        self, number: int, line: dict[str, Any], call_id: str, attach: str | None
    ) -> Iterator[Item]:
        name, args = self._calls.get(call_id, ("", {}))
        cwd = line.get("cwd")
        at = line.get("timestamp")
        for change in edit_evidence(
            name,
            args,
            line.get("toolUseResult"),
            cwd=cwd if isinstance(cwd, str) else self.cwd or "",
            line=number,
            at=at if isinstance(at, str) else "",
        ):
            yield ChangeItem(change, attach)
