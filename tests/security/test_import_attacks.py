"""An imported transcript is anyone's file: it picks no workspace and dials nothing.

The attacks: a Claude Code or Codex transcript that claims ``cwd: "/"`` (or the
home folder) so that Verify makes openable cards of secrets in workspace-only
mode; and one whose ``cwd`` names an ``ssh://`` place, so that showing the
conversation makes the app connect there (and offer the user's keys).
"""

from __future__ import annotations

import re
import select
import socket
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from app.core.imported.verify import VerifyVerdict, check_imported, verify_imported
from app.core.store.database import DATABASE_NAME, Store
from app.core.store.import_store import ImportStore
from app.core.store.imported_files import ImportedFileRef
from app.core.store.migrations import MIGRATIONS
from app.core.trust.import_workspace import default_workspace
from app.core.trust.policy import PermissionMode, Policy, load_policy
from app.core.trust.revalidate import Verdict
from app.importers.session import import_transcript
from app.ui.remote.open_dialog import OpenRemoteDialog
from app.ui.window.main_window import MainWindow

from ..app.importers.transcripts import ClaudeSession, CodexRollout, text, tool_use

NOTES = "account 0042, pin 1234\n"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home" / "me"
    folder.mkdir(parents=True)
    (folder / ".bash_history").write_text("export TOKEN=s3cr3t\n")
    (folder / "notes").mkdir()
    (folder / "notes" / "bank.txt").write_text(NOTES)
    return folder


@pytest.fixture
def policy(home: Path, tmp_path: Path) -> Policy:
    # The built-in rules and nothing of the machine's own policy file.
    return load_policy(user_file=tmp_path / "no-policy.toml", home=str(home))


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store(tmp_path / "data") as opened:
        yield opened


def claiming(cwd: str, targets: dict[str, str], folder: Path) -> Path:
    """A Claude Code session in ``cwd`` that says it wrote ``targets``."""
    s = ClaudeSession(cwd)
    s.user("Tidy up")
    for n, (path, content) in enumerate(targets.items()):
        s.assistant(tool_use(f"toolu_{n}", "Write", file_path=path, content=content))
        s.result(
            f"toolu_{n}",
            "ok",
            {"type": "create", "filePath": path, "content": content},
        )
    s.assistant(text("Done."))
    return s.write(folder / "hostile.jsonl")


def refs(store: Store, cid: str) -> dict[str, ImportedFileRef]:
    return {
        entry.path.rsplit("/", 1)[-1]: ImportedFileRef(cid, entry.entry_id)
        for entry in ImportStore(store).files(cid)
    }


def test_a_transcript_claiming_root_makes_no_card_openable(
    store: Store, home: Path, policy: Policy, tmp_path: Path
) -> None:
    bank = home / "notes" / "bank.txt"
    path = claiming("/", {str(bank): NOTES}, tmp_path)

    # What the import dialog offers for "/": nothing; the user must choose.
    assert default_workspace("/", policy, str(home)) == ""
    cid = import_transcript(store, str(path)).conversation_id
    [ref] = refs(store, cid).values()

    result = verify_imported(store, ref, policy, mode=PermissionMode.WORKSPACE_ONLY)
    assert not result.verified and result.record is None
    assert "workspace is not confirmed" in result.message
    assert check_imported(store, ref, policy)[0].verdict is Verdict.UNTRUSTED
    assert store.verification(cid, ref.entry_id) is None

    # Once the user confirms the folder the session really worked in, the
    # file outside it is refused for that reason, in workspace-only mode.
    project = tmp_path / "project"
    project.mkdir()
    ImportStore(store).confirm_workspace(cid, str(project))
    outside = verify_imported(store, ref, policy, mode=PermissionMode.WORKSPACE_ONLY)
    assert outside.verdict is VerifyVerdict.REFUSED
    assert "outside the workspace" in outside.message


def test_a_transcript_claiming_home_gets_no_workspace_and_secrets_stay_denied(
    store: Store, home: Path, policy: Policy, tmp_path: Path
) -> None:
    history, bank = home / ".bash_history", home / "notes" / "bank.txt"
    targets = {str(history): "export TOKEN=s3cr3t\n", str(bank): NOTES}
    path = claiming(str(home), targets, tmp_path)

    assert default_workspace(str(home), policy, str(home)) == ""
    assert default_workspace(str(home.parent), policy, str(home)) == ""
    cid = import_transcript(store, str(path)).conversation_id
    found = refs(store, cid)
    for ref in found.values():
        assert not verify_imported(store, ref, policy).verified

    # The user may choose the home folder themselves; the built-in deny rules
    # still apply to imported files as to any.
    ImportStore(store).confirm_workspace(cid, str(home))
    assert verify_imported(store, found["bank.txt"], policy).verified
    denied = verify_imported(store, found[".bash_history"], policy)
    assert denied.verdict is VerifyVerdict.REFUSED
    assert "read-deny rule .bash_history (built-in)" in denied.message


def test_system_secrets_named_by_a_transcript_are_denied_by_rule(
    store: Store, policy: Policy, tmp_path: Path
) -> None:
    # A root-run app could read these; the rule refuses them before any read.
    path = claiming("/", {"/etc/shadow": "root:*:19000::::::\n"}, tmp_path)
    cid = import_transcript(store, str(path), workspace="/").conversation_id
    [ref] = refs(store, cid).values()

    result = verify_imported(store, ref, policy, mode=PermissionMode.ALLOW_EXTERNAL)
    assert result.verdict is VerifyVerdict.REFUSED
    assert "read-deny rule /etc/shadow* (built-in)" in result.message


def test_a_codex_rollout_claiming_root_makes_no_card_openable(
    store: Store, home: Path, policy: Policy, tmp_path: Path
) -> None:
    r = CodexRollout("/")
    r.user("Add notes")
    r.patch(
        "call_1",
        f"*** Begin Patch\n*** Add File: {home}/notes/bank.txt\n+{NOTES}*** End Patch",
        {str(home / "notes" / "bank.txt"): {"type": "add", "content": NOTES}},
    )
    cid = import_transcript(store, str(r.write(tmp_path / "r.jsonl"))).conversation_id
    [ref] = refs(store, cid).values()
    assert not verify_imported(store, ref, policy).verified
    assert store.verification(cid, ref.entry_id) is None


def test_sessions_imported_before_lose_the_workspace_their_transcript_claimed(
    tmp_path: Path, home: Path, policy: Policy
) -> None:
    """Data written by a version that took the claim: migrated, not trusted."""
    data = tmp_path / "data"
    path = claiming("/", {str(home / "notes" / "bank.txt"): NOTES}, tmp_path)
    with Store(data) as store:
        cid = import_transcript(store, str(path)).conversation_id
        [ref] = refs(store, cid).values()
    # As the older version left it: the claim as the workspace, a fork of the
    # conversation, and a verification made under the claim.
    with sqlite3.connect(data / DATABASE_NAME) as conn:
        conn.execute("UPDATE conversations SET workspace = '/'")
        conn.execute("ALTER TABLE imports DROP COLUMN claimed_workspace")
        conn.execute(
            "INSERT INTO conversations (id, title, workspace, created_at, parent_id,"
            " fork_position) VALUES ('fork', 'f', '/', '2026-01-01', ?, 1)",
            (cid,),
        )
        conn.execute(
            "INSERT INTO verifications VALUES (?, ?, '{}', 'unchanged', 'x')",
            (cid, ref.entry_id),
        )
        # Back to just before the migration that keeps the claim apart (later
        # migrations are undone too, so they run again as they would then).
        claim = next(i for i, m in enumerate(MIGRATIONS) if "claimed_workspace" in m)
        for later in MIGRATIONS[claim + 1 :]:
            # A later migration may build again a table an earlier one made.
            for table in re.findall(r"CREATE TABLE (\w+)", later):
                conn.execute(f"DROP TABLE IF EXISTS {table}")
        conn.execute(f"PRAGMA user_version = {claim}")
    conn.close()

    with Store(data) as store:
        imports = ImportStore(store)
        assert store.conversation(cid).workspace == ""
        assert store.conversation("fork").workspace == ""
        info = imports.info(cid)
        assert info is not None and info.claimed_workspace == "/"
        assert imports.origin("fork") == info
        assert store.verification(cid, ref.entry_id) is None
        assert not verify_imported(store, ref, policy).verified


# -- dialling out ---------------------------------------------------------------


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A plain TCP listener: any connection the app makes to it is seen."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.setblocking(False)
    yield server
    server.close()


def connected(server: socket.socket) -> bool:
    ready, _, _ = select.select([server], [], [], 0)
    return bool(ready)


def never_connected(qtbot: QtBot, server: socket.socket) -> bool:
    """Run the event loop a while; True if nothing connected meanwhile."""
    try:
        qtbot.waitUntil(lambda: connected(server), timeout=1500)
    except qtbot.TimeoutError:
        return True
    return False


@pytest.fixture
def window(qtbot: QtBot, store: Store, tmp_path: Path) -> Iterator[MainWindow]:
    win = MainWindow(store, tmp_path / "data")
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.close()


def test_showing_an_imported_conversation_naming_an_ssh_place_connects_nowhere(
    qtbot: QtBot,
    window: MainWindow,
    store: Store,
    listener: socket.socket,
    tmp_path: Path,
) -> None:
    port = listener.getsockname()[1]
    address = f"ssh://127.0.0.1:{port}/x"
    s = ClaudeSession(address)
    s.user("Hello")
    s.assistant(text("Hi."))
    cid = import_transcript(store, str(s.write(tmp_path / "s.jsonl"))).conversation_id

    window.refresh_conversations()
    window.show_conversation(cid)
    qtbot.waitUntil(window.is_loaded, timeout=10_000)

    assert never_connected(qtbot, listener)
    assert window._remote_manager is None
    bar = window.imported_session
    assert bar.isVisible()
    assert f"The session says it worked in {address}." in bar.text.text()
    assert bar.connect_button.isVisible()

    # Connect… is the user's choice: the usual dialog, filled in, waiting.
    bar.connect_button.click()
    [dialog] = window.findChildren(OpenRemoteDialog)
    assert dialog.address.currentText() == address
    assert not dialog.busy()
    assert never_connected(qtbot, listener)
    dialog.reject()


def test_an_import_or_its_fork_whose_workspace_reads_ssh_connects_nowhere(
    qtbot: QtBot,
    window: MainWindow,
    store: Store,
    listener: socket.socket,
    tmp_path: Path,
) -> None:
    """As if the store had been edited, or written before the claim was kept apart."""
    address = f"ssh://127.0.0.1:{listener.getsockname()[1]}/x"
    s = ClaudeSession("/home/me/repo")
    s.user("Hello")
    s.assistant(text("Hi."))
    cid = import_transcript(store, str(s.write(tmp_path / "s.jsonl"))).conversation_id
    fork = store.fork(cid, 2).id
    with store.transaction(write=True) as conn:
        conn.execute("UPDATE conversations SET workspace = ?", (address,))

    for conversation in (cid, fork):
        window.show_conversation(conversation)
        qtbot.waitUntil(window.is_loaded, timeout=10_000)
    assert never_connected(qtbot, listener)
    assert window._remote_manager is None


def test_a_claim_written_as_markup_is_shown_as_text(
    qtbot: QtBot, window: MainWindow, store: Store, tmp_path: Path
) -> None:
    claim = f"<img src='{tmp_path}/x.png'><b>repo</b>"
    s = ClaudeSession(claim)
    s.user("Hello")
    s.assistant(text("Hi."))
    home = tmp_path / "home"
    s.write(home / ".claude" / "projects" / "p" / "0b7f3c1e.jsonl")
    dialog = window.open_import_dialog(home=home, env={})
    qtbot.waitUntil(lambda: not dialog.busy())
    item = dialog.sessions.topLevelItem(0)
    dialog.sessions.setCurrentItem(item)

    assert dialog.workspace.claim.text() == claim
    assert dialog.workspace.claim.textFormat() == Qt.TextFormat.PlainText
    assert "&lt;img" in item.toolTip(1) and "<img" not in item.toolTip(1)
    with qtbot.waitSignal(dialog.imported, timeout=30_000):
        dialog.workspace.without.setChecked(True)
        dialog.import_button.click()
    assert window.imported_session.text.textFormat() == Qt.TextFormat.PlainText
    assert claim in window.imported_session.text.text()
    dialog.close()
