"""Codex rollouts: prompts, function calls, apply_patch adds, moves and deletes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from langchain_core.messages import messages_from_dict

from app.core.changes.change import Operation
from app.core.changes.index import turn_changes
from app.core.chat.blocks import ToolCallBlock, UserBlock, build_blocks, split_turns
from app.core.store import Store
from app.core.store.import_store import ImportStore
from app.importers.session import import_transcript

from .transcripts import CODEX_SESSION, CodexRollout

ADD = (
    "*** Begin Patch\n*** Add File: src/util.py\n"
    "+def util():\n+    return 1\n*** End Patch"
)
MOVE = (
    "*** Begin Patch\n*** Update File: src/app.py\n*** Move to: src/main.py\n"
    "@@\n-print('old')\n+print('new')\n*** Delete File: old.txt\n*** End Patch"
)


def rollout(repo: Path) -> CodexRollout:
    r = CodexRollout(str(repo))
    r.context()
    r.environment()
    r.user("Add a util module")
    r.reasoning()
    r.shell("call_ls", "ls", "src\n")
    r.patch(
        "call_add",
        ADD,
        {
            str(repo / "src/util.py"): {
                "type": "add",
                "content": "def util():\n    return 1\n",
            }
        },
    )
    r.assistant("Added src/util.py.")
    r.user("Rename app.py to main.py and drop old.txt")
    r.patch(
        "call_move",
        MOVE,
        {
            str(repo / "src/app.py"): {
                "update": {
                    "unified_diff": "@@ -1 +1 @@\n-print('old')\n+print('new')\n",
                    "move_path": str(repo / "src/main.py"),
                }
            },
            str(repo / "old.txt"): {"delete": {}},
        },
    )
    r.patch("call_bad", ADD.replace("util", "broken"), {}, success=False)
    r.line("world_state", {"something": "new"})
    r.assistant("Renamed and deleted.")
    return r


def test_a_rollout_becomes_turns_with_tool_cards(store: Store, repo: Path) -> None:
    path = rollout(repo).write(
        repo.parent / f"rollout-2026-03-02T09-00-00-{CODEX_SESSION}.jsonl"
    )
    summary = import_transcript(store, str(path))
    blocks = build_blocks(
        summary.conversation_id, str(repo), store.messages(summary.conversation_id)
    )

    assert (summary.source, summary.session_id, summary.turns) == (
        "codex",
        CODEX_SESSION,
        2,
    )
    # The folder the transcript names is recorded as its claim, never taken
    # as the workspace: that is the user's to confirm.
    assert store.conversation(summary.conversation_id).workspace == ""
    info = ImportStore(store).info(summary.conversation_id)
    assert info is not None and info.claimed_workspace == str(repo)
    assert summary.claimed_workspace == str(repo) and summary.workspace == ""
    assert [b.text for b in blocks if isinstance(b, UserBlock)] == [
        "Add a util module",
        "Rename app.py to main.py and drop old.txt",
    ]
    assert [(b.name, b.state) for b in blocks if isinstance(b, ToolCallBlock)] == [
        ("exec_command", "finished"),
        ("apply_patch", "finished"),
        ("apply_patch", "finished"),
        ("apply_patch", "error"),
    ]
    assert summary.skipped_lines == 1


def test_patches_add_move_and_delete_files_in_the_change_index(
    store: Store, repo: Path
) -> None:
    summary = import_transcript(
        store, str(rollout(repo).write(repo.parent / "r.jsonl"))
    )
    first, second = (
        turn_changes(summary.conversation_id, turn)
        for turn in split_turns(store.messages(summary.conversation_id))
    )

    [util] = first.files
    assert (util.path, util.operation) == (str(repo / "src/util.py"), Operation.CREATED)
    expected = hashlib.sha256(b"def util():\n    return 1\n").hexdigest()
    assert util.sha256_after == expected
    assert [(f.path, f.operation) for f in second.files] == [
        (str(repo / "src/app.py"), Operation.DELETED),
        (str(repo / "src/main.py"), Operation.CREATED),
        (str(repo / "old.txt"), Operation.DELETED),
    ]
    moved = second.files[1]
    assert moved.last.moved_from == str(repo / "src/app.py")
    assert (moved.lines_added, moved.lines_removed) == (1, 1)
    assert summary.files == 4  # the failed patch changed nothing
    cards = [e.path for e in ImportStore(store).files(summary.conversation_id)]
    assert cards == [str(repo / "src/main.py"), str(repo / "src/util.py")]


def test_a_patch_without_its_event_counts_once_its_output_succeeded(
    store: Store, repo: Path
) -> None:
    r = CodexRollout(str(repo))
    r.user("Add it")
    r.patch("call_add", ADD, None)
    r.patch("call_failed", ADD.replace("util", "other"), None, success=False)
    r.assistant("Added.")
    summary = import_transcript(store, str(r.write(repo.parent / "r.jsonl")))
    [turn] = split_turns(store.messages(summary.conversation_id))

    [util] = turn_changes(summary.conversation_id, turn).files
    assert util.path == "src/util.py"
    assert util.resolved == str(repo / "src/util.py")
    assert (
        util.sha256_after == hashlib.sha256(b"def util():\n    return 1\n").hexdigest()
    )


def prompts_and_calls(
    store: Store, path: Path
) -> tuple[list[str], list[tuple[str, str, str]]]:
    summary = import_transcript(store, str(path))
    blocks = build_blocks(
        summary.conversation_id, "", store.messages(summary.conversation_id)
    )
    users = [b.text for b in blocks if isinstance(b, UserBlock)]
    calls = [
        (b.name, b.state, b.result_text) for b in blocks if isinstance(b, ToolCallBlock)
    ]
    return users, calls


def test_a_prompt_kept_twice_is_one_turn_in_either_order_and_a_repeat_is_two(
    store: Store, repo: Path
) -> None:
    r = CodexRollout(str(repo))
    r.user("Run the tests")
    r.assistant("They pass.")
    # The event first this time, then the item wrapping it in context.
    r.line("event_msg", {"type": "user_message", "message": "Run the tests"})
    wrapped = "# Context from my IDE setup:\n\n## My request:\nRun the tests"
    content = [{"type": "input_text", "text": wrapped}]
    r.line("response_item", {"type": "message", "role": "user", "content": content})
    r.assistant("Still passing.")
    r.line("event_msg", {"type": "user_message", "message": "Thanks", "kind": "plain"})
    injected = {"message": "Follow AGENTS.md", "kind": "user_instructions"}
    r.line("event_msg", {"type": "user_message", **injected})

    users, _ = prompts_and_calls(store, r.write(repo.parent / "r.jsonl"))

    assert users == ["Run the tests", "Run the tests", "Thanks"]


def test_a_call_without_output_ends_with_its_commands_end_event_or_with_none(
    store: Store, repo: Path
) -> None:
    r = CodexRollout(str(repo))
    r.user("Build it")
    for call_id, command in (("call_a", "make"), ("call_b", "make check")):
        r.line(
            "response_item",
            {
                "type": "function_call",
                "name": "exec_command",
                "arguments": json.dumps({"cmd": command}),
                "call_id": call_id,
            },
        )
    r.line(
        "event_msg",
        {
            "type": "exec_command_end",
            "call_id": "call_a",
            "exit_code": 2,
            "aggregated_output": "make: *** [all] Error 2\n",
        },
    )
    r.line("event_msg", {"type": "turn_aborted", "reason": "interrupted"})
    path = r.write(repo.parent / "r.jsonl")

    _, calls = prompts_and_calls(store, path)

    assert calls == [
        ("exec_command", "error", "make: *** [all] Error 2\n"),
        ("exec_command", "ended", "The session ended without a result for this call."),
    ]
    messages = store.messages(import_transcript(store, str(path)).conversation_id)
    assert len(messages_from_dict([m.message for m in messages])) == len(messages)
