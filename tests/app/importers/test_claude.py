"""Claude Code sessions: turns, tool cards, file edits, sidechains, odd lines."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from langchain_core.messages import messages_from_dict

from app.core.changes.change import Before, Operation, parse_change
from app.core.changes.index import turn_changes
from app.core.chat.blocks import (
    AssistantTextBlock,
    ToolCallBlock,
    UserBlock,
    build_blocks,
    split_turns,
)
from app.core.store import Store
from app.core.store.import_store import ImportStore
from app.importers.session import import_transcript

from .transcripts import ClaudeSession, text, tool_use

ORIGINAL = "def greet():\n    return 'hi'\n"
EDITED = "def greet():\n    return 'hello'\n"


def sha(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def session_with_edits(repo: Path) -> ClaudeSession:
    s = ClaudeSession(str(repo))
    s.add({"type": "summary", "summary": "Greeting work", "leafUuid": "x"})
    s.user("Caveat: local command output follows", isMeta=True)
    s.user("Add a README and fix the greeting")
    readme = str(repo / "README.md")
    s.assistant(text("I will write it."), message_id="msg_a")
    s.assistant(
        tool_use("toolu_01", "Write", file_path=readme, content="# Repo\n"),
        message_id="msg_a",
    )
    s.result(
        "toolu_01",
        f"File created successfully at: {readme}",
        {
            "type": "create",
            "filePath": readme,
            "content": "# Repo\n",
            "structuredPatch": [],
        },
    )
    greet = str(repo / "greet.py")
    s.assistant(
        tool_use(
            "toolu_02", "Edit", file_path=greet, old_string="'hi'", new_string="'hello'"
        )
    )
    s.result(
        "toolu_02",
        f"The file {greet} has been updated.",
        {
            "filePath": greet,
            "oldString": "'hi'",
            "newString": "'hello'",
            "originalFile": ORIGINAL,
            "structuredPatch": [
                {
                    "oldStart": 1,
                    "oldLines": 2,
                    "newStart": 1,
                    "newLines": 2,
                    "lines": [
                        " def greet():",
                        "-    return 'hi'",
                        "+    return 'hello'",
                    ],
                }
            ],
            "userModified": False,
            "replaceAll": False,
        },
    )
    s.assistant(
        tool_use("toolu_03", "Edit", file_path=greet, old_string="x", new_string="y")
    )
    s.result(
        "toolu_03",
        "String to replace not found",
        "Error: String not found",
        is_error=True,
    )
    s.assistant(text("Done: README added, greeting fixed."))
    s.add({"type": "file-history-snapshot", "messageId": "m", "snapshot": {}})
    s.add({"type": "totally-new-line-type", "data": 1})
    s.user("Now the notebook and the config")
    notebook = str(repo / "analysis.ipynb")
    s.assistant(
        tool_use(
            "toolu_04", "NotebookEdit", notebook_path=notebook, new_source="x = 1"
        ),
        tool_use(
            "toolu_05",
            "MultiEdit",
            file_path=str(repo / "config.toml"),
            edits=[{"old_string": "a = 1", "new_string": "a = 2"}],
        ),
    )
    s.result(
        "toolu_04",
        "Updated cell",
        {
            "new_source": "x = 1",
            "cell_id": "c1",
            "cell_type": "code",
            "edit_mode": "replace",
            "error": "",
        },
    )
    s.result(
        "toolu_05",
        "Applied 1 edit",
        {
            "filePath": str(repo / "config.toml"),
            "edits": [
                {"old_string": "a = 1", "new_string": "a = 2", "replace_all": False}
            ],
            "originalFileContents": "a = 1\nb = 2\n",
            "structuredPatch": [],
            "userModified": False,
        },
    )
    s.assistant(text("Both updated."))
    return s


def test_a_session_becomes_turns_with_tool_cards(store: Store, repo: Path) -> None:
    path = session_with_edits(repo).write(repo.parent / "s.jsonl")
    summary = import_transcript(store, str(path))
    messages = store.messages(summary.conversation_id)
    blocks = build_blocks(summary.conversation_id, str(repo), messages)

    assert summary.turns == 2
    assert summary.title == "Add a README and fix the greeting"
    # The folder the transcript names is recorded as its claim, never taken
    # as the workspace: that is the user's to confirm.
    assert store.conversation(summary.conversation_id).workspace == ""
    info = ImportStore(store).info(summary.conversation_id)
    assert info is not None and info.claimed_workspace == str(repo)
    assert summary.claimed_workspace == str(repo) and summary.workspace == ""
    users = [b.text for b in blocks if isinstance(b, UserBlock)]
    assert users == [
        "Add a README and fix the greeting",
        "Now the notebook and the config",
    ]
    calls = [(b.name, b.state) for b in blocks if isinstance(b, ToolCallBlock)]
    assert calls == [
        ("Write", "finished"),
        ("Edit", "finished"),
        ("Edit", "error"),
        ("NotebookEdit", "finished"),
        ("MultiEdit", "finished"),
    ]
    finals = [b.text for b in blocks if isinstance(b, AssistantTextBlock) and b.final]
    assert finals == ["Done: README added, greeting fixed.", "Both updated."]
    # The text and the tool call of one reply, written as two lines, are one
    # message: a tool call is answered right after the message that made it.
    first_reply = messages[1].message["data"]
    assert first_reply["content"] == "I will write it."
    assert [c["id"] for c in first_reply["tool_calls"]] == ["toolu_01"]
    assert len(messages_from_dict([m.message for m in messages])) == len(messages)


def test_each_edit_is_in_its_turns_change_index(store: Store, repo: Path) -> None:
    path = session_with_edits(repo).write(repo.parent / "s.jsonl")
    summary = import_transcript(store, str(path))
    turns = split_turns(store.messages(summary.conversation_id))
    first = turn_changes(summary.conversation_id, turns[0])
    second = turn_changes(summary.conversation_id, turns[1])

    assert summary.files == 4
    assert [(f.path, f.operation) for f in first.files] == [
        (str(repo / "README.md"), Operation.CREATED),
        (str(repo / "greet.py"), Operation.MODIFIED),
    ]
    assert all(f.imported and not f.trusted and not f.presented for f in first.files)
    readme, greet = first.files
    assert readme.sha256_after == sha("# Repo\n")
    assert greet.before is Before.TEXT
    assert greet.sha256_after == sha(EDITED)
    assert (greet.lines_added, greet.lines_removed) == (1, 1)
    stored = store.change(summary.conversation_id, *greet.first)
    assert stored is not None and stored.before == ORIGINAL and not stored.trusted
    change = parse_change(stored.raw)
    assert change.transcript_line is not None  # type: ignore[union-attr]
    notebook, config = second.files
    assert notebook.path.endswith("analysis.ipynb") and notebook.sha256_after is None
    assert config.sha256_after == sha("a = 2\nb = 2\n")
    entries = ImportStore(store).files(summary.conversation_id)
    assert [e.resolved for e in entries] == sorted(
        str(repo / n)
        for n in ("README.md", "analysis.ipynb", "config.toml", "greet.py")
    )
    info = ImportStore(store).info(summary.conversation_id)
    assert info is not None and info.complete and info.source == "claude-code"


def test_unknown_types_are_skipped_and_a_truncated_last_line_is_malformed(
    store: Store, repo: Path
) -> None:
    path = session_with_edits(repo).write(
        repo.parent / "s.jsonl", tail='{"type": "assistant", "message": {"con'
    )
    summary = import_transcript(store, str(path))
    assert (summary.skipped_lines, summary.malformed_lines) == (1, 1)


def test_a_subagents_sidechain_is_kept_apart_but_its_edits_count(
    store: Store, repo: Path
) -> None:
    s = ClaudeSession(str(repo))
    s.user("Research and write notes")
    s.assistant(
        tool_use("toolu_task", "Task", description="notes", prompt="Write notes")
    )
    s.user("Write notes", sidechain=True)
    notes = str(repo / "notes.md")
    s.assistant(
        tool_use("toolu_side", "Write", file_path=notes, content="notes\n"),
        sidechain=True,
    )
    s.result(
        "toolu_side",
        "File created",
        {
            "type": "create",
            "filePath": notes,
            "content": "notes\n",
            "structuredPatch": [],
        },
        sidechain=True,
    )
    s.assistant(text("Notes written."), sidechain=True)
    s.result("toolu_task", "The agent wrote notes.md")
    s.assistant(text("The notes are ready."))
    summary = import_transcript(store, str(s.write(repo.parent / "s.jsonl")))
    messages = store.messages(summary.conversation_id)

    assert summary.turns == 1
    assert summary.sidechain_lines == 4
    texts = json.dumps([m.message for m in messages])
    assert "Notes written." not in texts and "toolu_side" not in json.dumps(
        [m.message["data"].get("tool_calls") for m in messages]
    )
    [index] = [turn_changes(summary.conversation_id, t) for t in split_turns(messages)]
    assert [f.path for f in index.files] == [notes]


def test_edits_in_a_subagents_own_transcript_join_the_turn_that_ran_it(
    store: Store, repo: Path
) -> None:
    s = ClaudeSession(str(repo))
    s.user("Delegate the docs")
    s.assistant(tool_use("toolu_task", "Task", description="docs", prompt="Write docs"))
    s.result(
        "toolu_task",
        "Docs written",
        {"status": "completed", "agentId": "a1b2c3", "content": [text("Docs written")]},
    )
    s.assistant(text("The subagent wrote the docs."))
    s.user("Thanks")
    s.assistant(text("You are welcome."))
    main = s.write(repo.parent / f"{s.session_id}.jsonl")
    side = ClaudeSession(str(repo))
    docs = str(repo / "docs.md")
    side.user("Write docs", sidechain=True)
    side.assistant(
        tool_use("toolu_d", "Write", file_path=docs, content="# Docs\n"), sidechain=True
    )
    side.result(
        "toolu_d",
        "ok",
        {"type": "create", "filePath": docs, "content": "# Docs\n"},
        sidechain=True,
    )
    side.write(repo.parent / s.session_id / "subagents" / "agent-a1b2c3.jsonl")

    summary = import_transcript(store, str(main))
    first, second = split_turns(store.messages(summary.conversation_id))

    assert summary.turns == 2 and summary.sidechain_lines == 3
    assert [f.path for f in turn_changes(summary.conversation_id, first).files] == [
        docs
    ]
    assert turn_changes(summary.conversation_id, second).files == ()
