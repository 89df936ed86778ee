"""Importing a session: in place when repeated, bounded, and blind to what it names."""

from __future__ import annotations

import os
import sys
import tracemalloc
from pathlib import Path

import pytest

from app.core.imported.verify import VerifyVerdict, verify_imported
from app.core.store import Store
from app.core.store.import_store import ImportConflictError, ImportStore
from app.core.store.imported_files import ImportedFileRef
from app.core.trust.policy import Policy
from app.importers.lines import MAX_LINE
from app.importers.session import NotImportableError, import_transcript

from .transcripts import ClaudeSession, big_claude_session, text, tool_use


def one_file_session(repo: Path, content: str = "v1\n") -> ClaudeSession:
    s = ClaudeSession(str(repo))
    s.user("Write the file")
    target = str(repo / "out.txt")
    s.assistant(tool_use("toolu_1", "Write", file_path=target, content=content))
    s.result(
        "toolu_1", "ok", {"type": "create", "filePath": target, "content": content}
    )
    s.assistant(text("Written."))
    return s


def test_importing_the_same_session_twice_updates_it_in_place(
    store: Store, repo: Path, policy: Policy
) -> None:
    session = one_file_session(repo)
    path = session.write(repo.parent / "s.jsonl")
    (repo / "out.txt").write_text("v1\n")
    first = import_transcript(store, str(path), workspace=str(repo))
    ref = ImportedFileRef(
        first.conversation_id,
        ImportStore(store).files(first.conversation_id)[0].entry_id,
    )
    assert verify_imported(store, ref, policy).verdict is VerifyVerdict.UNCHANGED

    again = import_transcript(store, str(path))
    assert again.conversation_id == first.conversation_id
    # Imported again without a workspace, it keeps the one confirmed before.
    assert again.workspace == first.workspace == str(repo)
    assert len(store.conversations()) == 1
    assert len(store.messages(first.conversation_id)) == first.messages
    # The transcript says the same of the file, so its verification stands.
    assert store.verification(ref.conversation_id, ref.entry_id) is not None

    session.user("And once more")
    session.assistant(
        tool_use("toolu_2", "Write", file_path=str(repo / "out.txt"), content="v2\n")
    )
    session.result(
        "toolu_2",
        "ok",
        {"type": "update", "filePath": str(repo / "out.txt"), "content": "v2\n"},
    )
    session.assistant(text("Rewritten."))
    grown = import_transcript(store, str(session.write(path)))
    assert grown.conversation_id == first.conversation_id and grown.turns == 2
    assert len(store.messages(first.conversation_id)) == grown.messages
    # Now the session ends with other content: verify again.
    assert store.verification(ref.conversation_id, ref.entry_id) is None


def test_a_session_continued_here_is_not_overwritten(store: Store, repo: Path) -> None:
    path = one_file_session(repo).write(repo.parent / "s.jsonl")
    summary = import_transcript(store, str(path))
    store.append_message(
        summary.conversation_id, {"type": "human", "data": {"content": "more"}}
    )

    with pytest.raises(ImportConflictError, match="continued"):
        import_transcript(store, str(path))
    assert len(store.messages(summary.conversation_id)) == summary.messages + 1


@pytest.mark.parametrize(
    "content",
    [
        "just some text\nnot a transcript\n",
        '{"hello": "world"}\n',
        "",
    ],
)
def test_a_file_that_is_no_transcript_is_not_imported(
    store: Store, tmp_path: Path, content: str
) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text(content)
    with pytest.raises(NotImportableError):
        import_transcript(store, str(path))
    assert store.conversations() == []


def test_a_subagents_own_file_holds_no_session_to_import(
    store: Store, repo: Path
) -> None:
    s = ClaudeSession(str(repo))
    s.user("Side task", sidechain=True)
    s.assistant(text("Side answer"), sidechain=True)
    with pytest.raises(NotImportableError, match="no messages"):
        import_transcript(store, str(s.write(repo.parent / "agent-1a2b.jsonl")))
    assert store.conversations() == []


def test_a_line_over_the_limit_is_counted_and_the_rest_imported(
    store: Store, repo: Path
) -> None:
    session = one_file_session(repo)
    session.lines.insert(2, '{"type": "user", "x": "' + "y" * MAX_LINE + '"}')
    summary = import_transcript(store, str(session.write(repo.parent / "s.jsonl")))
    assert (summary.malformed_lines, summary.oversized_lines) == (1, 1)
    assert summary.turns == 1 and summary.files == 1


def test_a_50_mb_transcript_imports_with_progress_in_bounded_memory(
    store: Store, repo: Path
) -> None:
    path = repo.parent / "big.jsonl"
    turns = big_claude_session(path, str(repo), 50 << 20)
    size = path.stat().st_size
    progress: list[tuple[int, int]] = []

    tracemalloc.start()
    try:
        summary = import_transcript(
            store,
            str(path),
            on_progress=lambda done, total: progress.append((done, total)),
        )
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert (summary.turns, summary.files, summary.malformed_lines) == (turns, turns, 0)
    assert len(progress) >= 50
    assert [done for done, _ in progress] == sorted(done for done, _ in progress)
    assert progress[-1] == (size, size)
    assert peak < 64 << 20


def test_nothing_a_transcript_names_is_opened_or_run(
    store: Store, repo: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret")
    os.mkfifo(repo / "pipe")
    os.symlink(secret, repo / "link.txt")
    s = ClaudeSession(str(repo))
    s.user("Touch some odd paths")
    hostile = [
        "../../etc/passwd",
        str(repo / "pipe"),
        str(repo / "link.txt"),
        str(secret),
    ]
    for n, target in enumerate(hostile):
        s.assistant(tool_use(f"toolu_{n}", "Write", file_path=target, content="x"))
        s.result(
            f"toolu_{n}",
            "ok",
            {
                "type": "update",
                "filePath": target,
                "content": "x",
                "originalFile": "old",
            },
        )
    s.assistant(text("$(rm -rf ~) `reboot`"))
    path = s.write(repo.parent / "s.jsonl")
    events: list[tuple[str, tuple[object, ...]]] = []
    watching = [True]

    def audit(event: str, args: tuple[object, ...]) -> None:
        if watching[0] and event in (
            "open",
            "os.system",
            "subprocess.Popen",
            "os.exec",
            "os.posix_spawn",
            "os.spawn",
        ):
            events.append((event, args))

    sys.addaudithook(audit)
    try:
        summary = import_transcript(store, str(path))
    finally:
        watching[0] = False

    opened = {str(args[0]) for event, args in events if event == "open" and args}
    assert opened <= {str(path)}
    assert [event for event, _ in events if event != "open"] == []
    assert summary.files == 4
    entries = ImportStore(store).files(summary.conversation_id)
    assert sorted(e.path for e in entries) == sorted(hostile)
    assert secret.read_text() == "top secret"
    relative = next(e for e in entries if e.path == "../../etc/passwd")
    assert relative.resolved == os.path.normpath(os.path.join(repo, "../../etc/passwd"))


def test_a_message_the_fast_writer_refuses_is_stored_whole(
    store: Store, repo: Path
) -> None:
    s = ClaudeSession(str(repo))
    s.user("Count the grains")
    s.assistant(
        tool_use("toolu_1", "Count", grains=2**70 + 1, note="caf\u00e9"),
        text("There are 1180591620717411303425 grains."),
    )
    path = s.write(repo.parent / "s.jsonl")

    done = import_transcript(store, str(path))

    stored = [m.message for m in store.messages(done.conversation_id)]
    calls = [
        call for m in stored for call in (m.get("data", {}).get("tool_calls") or [])
    ]
    assert calls and calls[0]["args"]["grains"] == 2**70 + 1
    assert calls[0]["args"]["note"] == "caf\u00e9"
