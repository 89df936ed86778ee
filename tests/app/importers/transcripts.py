"""Transcript lines in the real shapes of Claude Code sessions and Codex rollouts."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

CLAUDE_SESSION = "0b7f3c1e-58a4-4c7b-9d0e-3f2a1b6c8d90"
CODEX_SESSION = "5973b6c0-94b8-487b-a530-2aeb6098ae0e"


def _stamp(hour: str, second: int) -> str:
    return f"{hour}:{second // 60 % 60:02d}:{second % 60:02d}.000Z"


class ClaudeSession:
    """Builds ``~/.claude/projects/<folder>/<session>.jsonl`` lines."""

    def __init__(self, cwd: str, session_id: str = CLAUDE_SESSION) -> None:
        self.cwd = cwd
        self.session_id = session_id
        self.lines: list[str] = []
        self._parent: str | None = None
        self._second = 0

    def _common(self, kind: str, sidechain: bool) -> dict[str, Any]:
        self._second += 1
        uid = str(uuid.uuid4())
        line = {
            "parentUuid": self._parent,
            "isSidechain": sidechain,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": "2.1.144",
            "gitBranch": "main",
            "type": kind,
            "uuid": uid,
            "timestamp": _stamp("2026-03-01T10", self._second),
        }
        self._parent = uid
        return line

    def add(self, line: dict[str, Any]) -> None:
        self.lines.append(json.dumps(line))

    def user(self, text: str, *, sidechain: bool = False, **extra: Any) -> None:
        line = self._common("user", sidechain)
        line["message"] = {"role": "user", "content": text}
        self.add({**line, **extra})

    def assistant(
        self,
        *blocks: dict[str, Any],
        message_id: str | None = None,
        sidechain: bool = False,
    ) -> None:
        line = self._common("assistant", sidechain)
        line["message"] = {
            "id": message_id or f"msg_{uuid.uuid4().hex[:20]}",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-6",
            "content": list(blocks),
            "stop_reason": None,
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }
        line["requestId"] = "req_011"
        self.add(line)

    def result(
        self,
        call_id: str,
        content: str,
        tool_use_result: object = None,
        *,
        is_error: bool = False,
        sidechain: bool = False,
    ) -> None:
        line = self._common("user", sidechain)
        block: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": call_id,
            "content": content,
        }
        if is_error:
            block["is_error"] = True
        line["message"] = {"role": "user", "content": [block]}
        if tool_use_result is not None:
            line["toolUseResult"] = tool_use_result
        line["sourceToolUseID"] = call_id
        self.add(line)

    def write(self, path: Path, tail: str = "") -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(self.lines) + "\n" + tail)
        return path


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def tool_use(call_id: str, name: str, **args: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": args}


class CodexRollout:
    """Builds ``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`` lines."""

    def __init__(self, cwd: str, session_id: str = CODEX_SESSION) -> None:
        self.cwd = cwd
        self.session_id = session_id
        self.lines: list[str] = []
        self._second = 0
        self.line(
            "session_meta",
            {
                "id": session_id,
                "timestamp": "2026-03-02T09:00:00.000Z",
                "cwd": cwd,
                "originator": "codex_cli_rs",
                "cli_version": "0.150.0",
                "instructions": None,
                "git": {"branch": "main"},
            },
        )

    def line(self, kind: str, payload: dict[str, Any]) -> None:
        self._second += 1
        stamp = _stamp("2026-03-02T09", self._second)
        self.lines.append(
            json.dumps({"timestamp": stamp, "type": kind, "payload": payload})
        )

    def context(self) -> None:
        self.line(
            "turn_context",
            {"cwd": self.cwd, "approval_policy": "on-request", "model": "gpt-5"},
        )

    def user(self, value: str) -> None:
        content = [{"type": "input_text", "text": value}]
        self.line(
            "response_item", {"type": "message", "role": "user", "content": content}
        )
        self.line("event_msg", {"type": "user_message", "message": value, "images": []})

    def environment(self) -> None:
        body = f"<environment_context>\n  <cwd>{self.cwd}</cwd>\n</environment_context>"
        content = [{"type": "input_text", "text": body}]
        self.line(
            "response_item", {"type": "message", "role": "user", "content": content}
        )

    def assistant(self, value: str) -> None:
        content = [{"type": "output_text", "text": value}]
        self.line(
            "response_item",
            {"type": "message", "role": "assistant", "content": content},
        )
        self.line("event_msg", {"type": "agent_message", "message": value})

    def reasoning(self) -> None:
        self.line(
            "response_item",
            {"type": "reasoning", "summary": [], "encrypted_content": "gAAAA"},
        )

    def shell(self, call_id: str, command: str, output: str) -> None:
        arguments = json.dumps({"cmd": command, "workdir": self.cwd})
        self.line(
            "response_item",
            {
                "type": "function_call",
                "name": "exec_command",
                "arguments": arguments,
                "call_id": call_id,
            },
        )
        self.line(
            "event_msg",
            {
                "type": "exec_command_end",
                "call_id": call_id,
                "exit_code": 0,
                "aggregated_output": output,
            },
        )
        self.line(
            "response_item",
            {"type": "function_call_output", "call_id": call_id, "output": output},
        )

    def patch(
        self,
        call_id: str,
        patch: str,
        changes: dict[str, Any] | None,
        *,
        success: bool = True,
    ) -> None:
        self.line(
            "response_item",
            {
                "type": "custom_tool_call",
                "status": "completed",
                "call_id": call_id,
                "name": "apply_patch",
                "input": patch,
            },
        )
        output = json.dumps(
            {
                "output": "Success. Updated the following files:\n"
                if success
                else "error",
                "metadata": {"exit_code": 0 if success else 1, "duration_seconds": 0.1},
            }
        )
        self.line(
            "response_item",
            {"type": "custom_tool_call_output", "call_id": call_id, "output": output},
        )
        if changes is not None:
            self.line(
                "event_msg",
                {
                    "type": "patch_apply_end",
                    "call_id": call_id,
                    "turn_id": "t1",
                    "stdout": "Success.\n",
                    "stderr": "",
                    "success": success,
                    "changes": changes,
                },
            )

    def write(self, path: Path, tail: str = "") -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(self.lines) + "\n" + tail)
        return path


def big_claude_session(path: Path, cwd: str, size: int) -> int:
    """Write a session of about ``size`` bytes, turn after turn; return its turns.

    Each turn writes one file, so the index grows with the transcript.
    """
    s = ClaudeSession(cwd)
    body = "".join(
        f"line {n} of a generated module with some text\n" for n in range(60)
    )
    s.user("Write module NUMBER")
    s.assistant(
        text("Writing module NUMBER."),
        tool_use("toolu_NUMBER", "Write", file_path=f"{cwd}/m/NUMBER.py", content=body),
        message_id="msg_NUMBER",
    )
    s.result(
        "toolu_NUMBER",
        f"File created successfully at: {cwd}/m/NUMBER.py",
        {"type": "create", "filePath": f"{cwd}/m/NUMBER.py", "content": body},
    )
    s.assistant(text("Module NUMBER is written."))
    template = "\n".join(s.lines) + "\n"
    turns = 0
    written = 0
    with path.open("w") as out:
        while written < size:
            chunk = template.replace("NUMBER", str(turns))
            out.write(chunk)
            written += len(chunk)
            turns += 1
    return turns
