"""Verify: the present check on imported files, then their content."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from app.core.changes.change_diff import change_diff
from app.core.changes.diffs import Diff
from app.core.changes.index import check_change, turn_changes
from app.core.chat.blocks import split_turns
from app.core.imported.verify import (
    VerifyVerdict,
    check_imported,
    verification_state,
    verify_imported,
)
from app.core.store.database import DATABASE_NAME, Store
from app.core.store.import_store import ImportStore
from app.core.store.imported_files import ImportedFileRef
from app.core.trust.policy import PermissionMode, Policy
from app.core.trust.records import Record, parse_record
from app.core.trust.revalidate import Verdict
from app.importers.session import import_transcript

from ..app.importers.transcripts import ClaudeSession, CodexRollout, text, tool_use

ORIGINAL = "a = 1\n"
EDITED = "a = 2\n"


def claude_session(repo: Path) -> Path:
    s = ClaudeSession(str(repo))
    s.user("Make three files and fix one")
    for n, name in enumerate(("kept.txt", "changed.txt", "gone.txt")):
        target = str(repo / name)
        s.assistant(
            tool_use(f"toolu_{n}", "Write", file_path=target, content=f"{name}\n")
        )
        s.result(
            f"toolu_{n}",
            "ok",
            {"type": "create", "filePath": target, "content": f"{name}\n"},
        )
    target = str(repo / "config.py")
    s.assistant(
        tool_use("toolu_e", "Edit", file_path=target, old_string="1", new_string="2")
    )
    s.result(
        "toolu_e",
        "updated",
        {
            "filePath": target,
            "oldString": "1",
            "newString": "2",
            "originalFile": ORIGINAL,
        },
    )
    for n, target in enumerate(
        ("../../etc/passwd", str(repo / "link.txt"), str(repo / ".env"))
    ):
        s.assistant(tool_use(f"toolu_h{n}", "Write", file_path=target, content="x"))
        s.result(
            f"toolu_h{n}", "ok", {"type": "update", "filePath": target, "content": "x"}
        )
    s.assistant(text("All done."))
    return s.write(repo.parent / "s.jsonl")


def on_disk(repo: Path, tmp_path: Path) -> None:
    (repo / "kept.txt").write_text("kept.txt\n")
    (repo / "changed.txt").write_text("changed by hand\n")
    (repo / "config.py").write_text(EDITED)
    (tmp_path / "target.txt").write_text("x")
    os.symlink(tmp_path / "target.txt", repo / "link.txt")
    (repo / ".env").write_text("x")


def refs(store: Store, cid: str) -> dict[str, ImportedFileRef]:
    return {
        entry.path.rsplit("/", 1)[-1]: ImportedFileRef(cid, entry.entry_id)
        for entry in ImportStore(store).files(cid)
    }


def test_verify_gives_unchanged_modified_missing_and_refuses_hostile_paths(
    store: Store, repo: Path, policy: Policy, tmp_path: Path
) -> None:
    on_disk(repo, tmp_path)
    cid = import_transcript(
        store, str(claude_session(repo)), workspace=str(repo)
    ).conversation_id
    found = refs(store, cid)

    def verdict(name: str) -> VerifyVerdict:
        return verify_imported(store, found[name], policy).verdict

    assert verdict("kept.txt") is VerifyVerdict.UNCHANGED
    assert verdict("changed.txt") is VerifyVerdict.MODIFIED
    assert verdict("gone.txt") is VerifyVerdict.MISSING
    assert verdict("config.py") is VerifyVerdict.UNCHANGED
    passwd = verify_imported(store, found["passwd"], policy)
    assert passwd.verdict is VerifyVerdict.REFUSED and "forbidden" in passwd.message
    link = verify_imported(store, found["link.txt"], policy)
    assert link.verdict is VerifyVerdict.REFUSED and "symlink" in link.message
    secret = verify_imported(store, found[".env"], policy)
    assert secret.verdict is VerifyVerdict.REFUSED and "denied" in secret.message
    # Refusals store nothing: those entries stay unverified.
    for name in ("gone.txt", "passwd", "link.txt", ".env"):
        assert store.verification(cid, found[name].entry_id) is None
    assert (
        verification_state(store, found["link.txt"]).message
        == "imported — not verified"
    )


def test_a_path_outside_the_session_passes_only_when_the_mode_allows_it(
    store: Store, repo: Path, policy: Policy, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere.txt"
    outside.write_text("outside\n")
    s = ClaudeSession(str(repo))
    s.user("Write outside")
    s.assistant(
        tool_use("toolu_1", "Write", file_path=str(outside), content="outside\n")
    )
    s.result(
        "toolu_1",
        "ok",
        {"type": "create", "filePath": str(outside), "content": "outside\n"},
    )
    cid = import_transcript(
        store, str(s.write(repo.parent / "s.jsonl")), workspace=str(repo)
    ).conversation_id
    [ref] = refs(store, cid).values()

    assert verify_imported(store, ref, policy).verdict is VerifyVerdict.REFUSED
    allowed = verify_imported(store, ref, policy, mode=PermissionMode.ALLOW_EXTERNAL)
    assert allowed.verdict is VerifyVerdict.UNCHANGED
    assert allowed.record is not None and allowed.record.files[0].scope == "external"


def test_only_a_verified_entry_gets_file_actions_and_they_revalidate(
    store: Store, repo: Path, policy: Policy, tmp_path: Path
) -> None:
    on_disk(repo, tmp_path)
    cid = import_transcript(
        store, str(claude_session(repo)), workspace=str(repo)
    ).conversation_id
    kept = refs(store, cid)["kept.txt"]

    before = check_imported(store, kept, policy)
    assert before[0].verdict is Verdict.UNTRUSTED
    assert before[0].reason == "imported — not verified"
    result = verify_imported(store, kept, policy)
    stored = store.verification(cid, kept.entry_id)
    assert stored is not None and stored.trusted
    assert isinstance(parse_record(stored.raw), Record)
    assert result.verified and verification_state(store, kept).verified
    assert check_imported(store, kept, policy)[0].verdict is Verdict.OK
    (repo / "kept.txt").write_text("edited after verifying\n")
    after = check_imported(store, kept, policy)[0]
    assert after.verdict is Verdict.CHANGED
    (repo / "kept.txt").unlink()
    assert check_imported(store, kept, policy)[0].verdict is Verdict.MISSING


def test_a_verification_edited_behind_the_store_is_untrusted(
    store: Store, repo: Path, policy: Policy, tmp_path: Path
) -> None:
    on_disk(repo, tmp_path)
    data = tmp_path / "data"
    cid = import_transcript(
        store, str(claude_session(repo)), workspace=str(repo)
    ).conversation_id
    found = refs(store, cid)
    verify_imported(store, found["kept.txt"], policy)
    with sqlite3.connect(data / DATABASE_NAME) as conn:
        conn.execute(
            "UPDATE verifications SET raw = replace(raw, 'kept.txt', 'gone.txt')"
        )
    conn.close()
    assert (
        check_imported(store, found["kept.txt"], policy)[0].verdict is Verdict.UNTRUSTED
    )


def test_an_imported_change_opens_and_diffs_only_after_verify(
    store: Store, repo: Path, policy: Policy, tmp_path: Path
) -> None:
    on_disk(repo, tmp_path)
    cid = import_transcript(
        store, str(claude_session(repo)), workspace=str(repo)
    ).conversation_id
    [turn] = split_turns(store.messages(cid))
    index = turn_changes(cid, turn)
    config = next(f for f in index.files if f.path.endswith("config.py"))

    assert (
        check_change(store, index.ref(config.index), policy)[0].verdict
        is Verdict.UNTRUSTED
    )
    assert not isinstance(change_diff(store, index.ref(config.index), policy), Diff)
    verify_imported(store, refs(store, cid)["config.py"], policy)
    assert check_change(store, index.ref(config.index), policy)[0].verdict is Verdict.OK
    diff = change_diff(store, index.ref(config.index), policy)
    assert isinstance(diff, Diff) and (diff.added, diff.removed) == (1, 1)


def test_a_codex_session_verifies_its_added_file(
    store: Store, repo: Path, policy: Policy
) -> None:
    (repo / "src").mkdir()
    (repo / "src" / "util.py").write_text("def util():\n    return 1\n")
    r = CodexRollout(str(repo))
    r.user("Add util")
    r.patch(
        "call_1",
        "*** Begin Patch\n*** Add File: src/util.py\n"
        "+def util():\n+    return 1\n*** End Patch",
        None,
    )
    r.assistant("Added.")
    cid = import_transcript(
        store, str(r.write(repo.parent / "r.jsonl")), workspace=str(repo)
    ).conversation_id
    [ref] = refs(store, cid).values()
    assert verify_imported(store, ref, policy).verdict is VerifyVerdict.UNCHANGED


@pytest.mark.parametrize("operation", ["update"])
def test_a_file_the_session_holds_no_content_for_is_checked_but_not_compared(
    store: Store, repo: Path, policy: Policy, operation: str
) -> None:
    (repo / "app.py").write_text("print('x')\n")
    r = CodexRollout(str(repo))
    r.user("Edit app.py")
    r.patch(
        "call_1",
        "*** Begin Patch\n*** Update File: app.py\n"
        "@@\n-print(1)\n+print('x')\n*** End Patch",
        {
            str(repo / "app.py"): {
                "type": operation,
                "unified_diff": "-print(1)\n+print('x')\n",
            }
        },
    )
    cid = import_transcript(
        store, str(r.write(repo.parent / "r.jsonl")), workspace=str(repo)
    ).conversation_id
    [ref] = refs(store, cid).values()
    result = verify_imported(store, ref, policy)
    assert result.verdict is VerifyVerdict.UNRECORDED and result.verified
