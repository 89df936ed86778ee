"""The per-turn change index through the real runner: recorded, diffed, revalidated."""

from __future__ import annotations

import difflib
import hashlib
import os
import re
from pathlib import Path

import pytest

from app.agent.models import RecordingChatModel
from app.agent.runner import AgentRunner
from app.agent.tools import AgentSession
from app.core.changes.change import Before, Operation
from app.core.changes.change_diff import change_diff
from app.core.changes.diffs import Diff, NoDiff, NoDiffReason
from app.core.changes.index import ChangeRef, TurnChanges, check_change, turn_changes
from app.core.chat.blocks import split_turns
from app.core.store import Store
from app.core.store.change_rows import NewChange
from app.core.trust.policy import Policy, load_policy
from app.core.trust.revalidate import Verdict

from ..app.agent.scripts import answer, present, tool_calls

ORIGINAL_NOTES = "# Notes\nkept-before-the-turn 7f3a\n"
NOTES_V1 = "# Notes\nfirst edit\n"
NOTES_V2 = "# Notes\nsecond edit\n"
SUMMARY = "# Summary\n\nThree files changed.\n"


def write(call_id: str, path: str, content: str) -> object:
    return tool_calls((call_id, "write_file", {"path": path, "content": content}))


def run_edit_turn(
    store: Store, session: AgentSession, workspace: Path
) -> tuple[str, RecordingChatModel]:
    (workspace / "notes.md").write_text(ORIGINAL_NOTES)
    model = RecordingChatModel(
        replies=[
            write("w1", "summary.md", SUMMARY),
            write("w2", "notes.md", NOTES_V1),
            write("w3", "charts/data.csv", "a,b\n1,2\n"),
            write("w4", "notes.md", NOTES_V2),
            present("p1", "summary.md"),
            answer("Done: three files."),
            answer("You are welcome."),
        ]
    )
    conversation = store.create_conversation("t", str(workspace))
    AgentRunner(store, conversation.id, model, session).run("Write the files")
    return conversation.id, model


def first_turn(store: Store, cid: str) -> TurnChanges:
    return turn_changes(cid, split_turns(store.messages(cid))[0])


def by_name(index: TurnChanges) -> dict[str, int]:
    return {os.path.basename(f.path): f.index for f in index.files}


def test_a_turn_that_edits_three_files_and_presents_one_has_three_changes(
    store: Store, session: AgentSession, workspace: Path
) -> None:
    cid, _ = run_edit_turn(store, session, workspace)
    index = first_turn(store, cid)

    assert index.count == 3
    assert [f.path for f in index.files] == [
        "summary.md",
        "notes.md",
        "charts/data.csv",
    ]
    ops = {f.path: f.operation for f in index.files}
    assert ops == {
        "summary.md": Operation.CREATED,
        "notes.md": Operation.MODIFIED,
        "charts/data.csv": Operation.CREATED,
    }
    assert [f.presented for f in index.files] == [True, False, False]
    assert all(f.trusted and not f.imported for f in index.files)
    notes = index.files[1]
    assert notes.edits == 2
    assert notes.before is Before.TEXT
    assert (notes.lines_before, notes.lines_after) == (2, 2)
    assert notes.size_before == len(ORIGINAL_NOTES)
    assert notes.sha256_after == hashlib.sha256(NOTES_V2.encode()).hexdigest()
    assert notes.resolved == str(workspace.resolve() / "notes.md")


def test_each_change_diffs_against_the_version_before_the_turn(
    store: Store, session: AgentSession, workspace: Path
) -> None:
    cid, _ = run_edit_turn(store, session, workspace)
    index = first_turn(store, cid)
    policy = session.policy()

    notes = change_diff(store, index.ref(by_name(index)["notes.md"]), policy)
    summary = change_diff(store, index.ref(by_name(index)["summary.md"]), policy)

    expected = difflib.unified_diff(
        ORIGINAL_NOTES.splitlines(),
        NOTES_V2.splitlines(),
        "a/notes.md",
        "b/notes.md",
        lineterm="",
    )
    assert isinstance(notes, Diff)
    assert notes.unified_text() == "\n".join(expected) + "\n"
    assert (notes.added, notes.removed) == (1, 1)
    assert isinstance(summary, Diff)
    assert (summary.added, summary.removed) == (3, 0)


def test_no_change_field_reaches_any_model_request(
    store: Store, session: AgentSession, workspace: Path
) -> None:
    cid, model = run_edit_turn(store, session, workspace)
    AgentRunner(store, cid, model, session).run("Thanks")
    index = first_turn(store, cid)

    secrets = ["kept-before-the-turn 7f3a", str(workspace.resolve()), "sha256_after"]
    secrets += [f.sha256_after or "" for f in index.files]
    numbers = [n for f in index.files for n in (f.last.inode, f.last.mtime_ns)]
    assert len(model.requests) == 7
    for request in model.requests:
        text = request.as_text()
        for secret in secrets:
            assert secret not in text
        for number in numbers:
            assert not re.search(rf"(?<![\w.-]){number}(?![\w.-])", text)
    # The write results did reach the model, only without their artifacts.
    results = [m for m in model.requests[-1].messages if m["type"] == "tool"]
    assert results[0]["data"]["content"].startswith("Wrote ")
    assert all(m["data"].get("artifact") is None for m in results)


def test_the_index_survives_replay_and_forks(
    store: Store, session: AgentSession, workspace: Path
) -> None:
    cid, model = run_edit_turn(store, session, workspace)
    before = first_turn(store, cid)
    AgentRunner(store, cid, model, session).run("Thanks")
    fork = store.fork(cid, len(split_turns(store.messages(cid))[0]))

    assert first_turn(store, cid) == before
    forked = first_turn(store, fork.id)
    assert [(f.path, f.trusted) for f in forked.files] == [
        (f.path, True) for f in before.files
    ]
    diff = change_diff(store, forked.ref(1), session.policy())
    assert isinstance(diff, Diff) and diff.added == 1


def test_opening_a_change_revalidates_like_a_card(
    store: Store, session: AgentSession, workspace: Path, tmp_path: Path
) -> None:
    cid, _ = run_edit_turn(store, session, workspace)
    index = first_turn(store, cid)
    names = by_name(index)
    policy = session.policy()

    def verdict(name: str, rules: Policy = policy) -> Verdict:
        return check_change(store, index.ref(names[name]), rules)[0].verdict

    assert verdict("notes.md") is Verdict.OK
    stat = (workspace / "notes.md").stat()
    os.utime(workspace / "notes.md", ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    assert verdict("notes.md") is Verdict.OK  # touched, same content
    (workspace / "notes.md").write_text("# Notes\nedited by hand\n")
    check, found, _ = check_change(store, index.ref(names["notes.md"]), policy)
    assert check.verdict is Verdict.CHANGED
    assert check.reason == "it changed after the turn"
    assert found is not None and found.path == "notes.md"
    no_diff = change_diff(store, index.ref(names["notes.md"]), policy)
    assert isinstance(no_diff, NoDiff)
    assert no_diff.reason is NoDiffReason.CHANGED_SINCE

    (workspace / "charts" / "data.csv").unlink()
    assert verdict("data.csv") is Verdict.MISSING
    (workspace / "summary.md").unlink()
    os.symlink(tmp_path / "elsewhere", workspace / "summary.md")
    assert verdict("summary.md") is Verdict.SYMLINK

    user_file = tmp_path / "policy.toml"
    user_file.write_text('[deny]\nadd = ["notes.md"]\n')
    denying = load_policy(workspace=workspace, user_file=user_file, home=str(tmp_path))
    assert verdict("notes.md", denying) is Verdict.DENIED

    other = store.create_conversation("other", str(workspace)).id
    stranger = ChangeRef(other, index.turn_position, names["notes.md"])
    assert check_change(store, stranger, policy)[0].verdict is Verdict.UNTRUSTED
    assert check_change(store, index.ref(7), policy)[0].verdict is Verdict.UNTRUSTED


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"PNG\0\1\2", NoDiffReason.BINARY),
        (b"x" * (1 << 20 | 1), NoDiffReason.TOO_LARGE),
    ],
)
def test_a_file_that_was_binary_or_large_before_says_why_there_is_no_diff(
    store: Store,
    session: AgentSession,
    workspace: Path,
    content: bytes,
    reason: NoDiffReason,
) -> None:
    (workspace / "blob.dat").write_bytes(content)
    model = RecordingChatModel(replies=[write("w1", "blob.dat", "text"), answer("ok")])
    cid = store.create_conversation("t", str(workspace)).id
    AgentRunner(store, cid, model, session).run("Replace it")
    index = first_turn(store, cid)

    assert index.files[0].size_before == len(content)
    result = change_diff(store, index.ref(0), session.policy())
    assert isinstance(result, NoDiff) and result.reason is reason


def test_a_change_of_an_unknown_version_is_kept_byte_for_byte_and_untrusted(
    store: Store, workspace: Path
) -> None:
    cid = store.create_conversation("t", str(workspace)).id
    store.append_message(cid, {"type": "human", "data": {"content": "go"}})
    store.append_message(
        cid,
        {
            "type": "ai",
            "data": {"content": "", "tool_calls": [{"id": "c1", "name": "edit"}]},
        },
    )
    raw = '{"version": 2, "path": "a.md",  "future": {"kept": true}}'
    store.append_message(
        cid,
        {"type": "tool", "data": {"content": "ok", "tool_call_id": "c1"}},
        changes=[NewChange(raw, None)],
    )
    index = first_turn(store, cid)

    assert index.count == 0
    [unsupported] = index.unsupported
    assert unsupported.raw == raw and unsupported.version == 2


def test_a_single_rewrite_counts_its_lines_and_several_say_before_and_after(
    store: Store, session: AgentSession, workspace: Path
) -> None:
    from app.ui.chat.paint_changes import change_summary

    (workspace / "plan.txt").write_text("one\ntwo\nthree\n")
    (workspace / "notes.md").write_text(ORIGINAL_NOTES)
    model = RecordingChatModel(
        replies=[
            write("w1", "plan.txt", "one\n2\nthree\nfour\n"),
            write("w2", "notes.md", NOTES_V1),
            write("w3", "notes.md", NOTES_V2),
            answer("Done."),
        ]
    )
    conversation = store.create_conversation("t", str(workspace))
    AgentRunner(store, conversation.id, model, session).run("Edit")
    index = first_turn(store, conversation.id)
    files = {os.path.basename(f.path): f for f in index.files}

    plan = files["plan.txt"]
    assert (plan.lines_added, plan.lines_removed) == (2, 1)
    assert change_summary(plan) == "modified, +2 \u22121"
    diff = change_diff(store, index.ref(plan.index), session.policy())
    assert isinstance(diff, Diff) and (diff.added, diff.removed) == (2, 1)
    # Two rewrites in one turn: their counts would not add up to the net change.
    notes = files["notes.md"]
    assert notes.lines_added is None
    assert change_summary(notes) == "modified, 2 \u2192 2 lines"
