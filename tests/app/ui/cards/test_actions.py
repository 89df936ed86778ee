"""Card actions revalidate before acting and refuse with the exact reason."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import pytest
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from app.core.filetype import Kind
from app.core.store.database import DATABASE_NAME, Store
from app.core.store.deliverables import DeliverableRef
from app.core.trust.declare import declare
from app.core.trust.policy import PermissionMode, Policy, Rule, builtin_rules
from app.core.trust.revalidate import Verdict
from app.ui import notice as notice_module
from app.ui.cards.actions import FileActions, workspace_at, workspace_policy
from app.ui.cards.save_copy import SaveCopier, SaveCopyDialogs
from app.ui.notice import NoticeBarWidget
from app.workspace.choose import local_workspace
from app.workspace.protocol import Workspace

FILES = {
    "report.md": b"# report\n\nThe findings.\n",
    "page.html": b"<!doctype html><title>page</title><p>hello</p>\n",
    "photo.png": b"\x89PNG\r\n\x1a\n not really an image",
    "notes.pdf": b"%PDF-1.4 not really a pdf",
}
ALL_FILE_ACTIONS = [
    "open",
    "reveal",
    "show_source",
    "copy_path",
    "open_native",
    "show_in_file_manager",
    "save_copy",
]


class RecordingOpener(QObject):
    """Stands in for the desktop; records what it was asked to open."""

    failed = Signal(str)

    def __init__(self, answer: bool = True) -> None:
        super().__init__()
        self.calls: list[tuple[str, str]] = []
        self.answer = answer

    def open_file(self, path: str) -> bool:
        self.calls.append(("open_file", path))
        return self.answer

    def show_in_file_manager(self, path: str) -> bool:
        self.calls.append(("show_in_file_manager", path))
        return self.answer


class ScriptedDialogs:
    """Answers the save questions and remembers which were asked."""

    def __init__(self, target: Path, confirm: bool = True) -> None:
        self.target = target
        self.confirm = confirm
        self.asked: list[str] = []

    def dialogs(self) -> SaveCopyDialogs:
        return SaveCopyDialogs(
            choose_target=self._choose_target, confirm_changed=self._confirm_changed
        )

    def _choose_target(self, _parent: QWidget | None, proposed: str) -> str:
        self.asked.append(f"target:{os.path.basename(proposed)}")
        return str(self.target)

    def _confirm_changed(self, _parent: QWidget | None, name: str) -> bool:
        self.asked.append(f"changed:{name}")
        return self.confirm


class Harness:
    """A store with one presented declaration and the controller acting on it."""

    def __init__(
        self,
        tmp_path: Path,
        workspaces: Callable[[str], Workspace | None] = workspace_at,
    ) -> None:
        self.tmp_path = tmp_path
        self.workspace = tmp_path / "ws"
        self.workspace.mkdir()
        for name, data in FILES.items():
            (self.workspace / name).write_bytes(data)
        self.home = str(tmp_path / "home")
        self.policy = Policy(builtin_rules(), home=self.home)
        self.mode: PermissionMode | None = PermissionMode.ALLOW_EXTERNAL
        self.store = Store(tmp_path / "data")
        self.conversation = self.store.create_conversation("c", str(self.workspace))
        record = declare(
            {"files": [{"path": n, "description": f"the {n}"} for n in FILES]},
            workspace=self.workspace,
            mode=PermissionMode.ALLOW_EXTERNAL,
            policy=self.policy,
        )
        append_present(self.store, self.conversation.id, record.to_json())
        self.opener = RecordingOpener()
        self.save_target = tmp_path / "saved" / "copy.md"
        self.save_target.parent.mkdir()
        self.answers = ScriptedDialogs(self.save_target)
        self.saver = SaveCopier(self.answers.dialogs())
        self.policy_roots: list[str] = []
        self.actions = FileActions(
            self.store,
            self._policy_for,
            lambda: self.mode,
            self.opener,  # type: ignore[arg-type]
            saver=self.saver,
            workspaces=workspaces,
        )
        self.refusals: list[str] = []
        self.notices: list[str] = []
        self.verdicts: list[tuple[DeliverableRef, str]] = []
        self.opens: list[tuple[str, object, bool, object, object]] = []
        self.reveals: list[str] = []
        self.browsers: list[tuple[str, object, object, object]] = []
        self.actions.browserRequested.connect(lambda *a: self.browsers.append(a))
        self.actions.refused.connect(self.refusals.append)
        self.actions.notice.connect(self.notices.append)
        self.actions.verdictChanged.connect(lambda r, v: self.verdicts.append((r, v)))
        self.actions.openRequested.connect(lambda *args: self.opens.append(args))
        self.actions.revealRequested.connect(self.reveals.append)

    def _policy_for(self, root: str) -> Policy:
        self.policy_roots.append(root)
        return self.policy

    def ref(self, name: str = "report.md") -> DeliverableRef:
        return DeliverableRef(self.conversation.id, "call_1", list(FILES).index(name))

    def path(self, name: str = "report.md") -> Path:
        return self.workspace / name

    def close(self) -> None:
        for _path, opened, _source, _ref, _kind in self.opens:
            opened.close()  # type: ignore[attr-defined]
        for _path, opened, _ref, _kind in self.browsers:
            opened.close()  # type: ignore[attr-defined]
        self.store.close()


def append_present(store: Store, conversation_id: str, raw: str) -> None:
    store.append_message(conversation_id, {"type": "human", "data": {"content": "go"}})
    store.append_message(
        conversation_id,
        {
            "type": "ai",
            "data": {
                "content": "",
                "tool_calls": [{"id": "call_1", "name": "present", "args": {}}],
            },
        },
    )
    store.append_message(
        conversation_id,
        {
            "type": "tool",
            "data": {
                "content": "Presented 4 files.",
                "tool_call_id": "call_1",
                "name": "present",
                "status": "success",
                "type": "tool",
            },
        },
        record=raw,
        tool_call_id="call_1",
    )


@pytest.fixture
def h(qtbot: QtBot, tmp_path: Path):
    harness = Harness(tmp_path)
    QGuiApplication.clipboard().setText("clipboard before")
    yield harness
    harness.close()


def menu_items(menu) -> list[tuple[str, str | None, bool]]:
    return [
        (action.text().replace("&", ""), action.data(), action.isEnabled())
        for action in menu.actions()
    ]


# -- every action on a good file ------------------------------------------------


def test_copy_path_puts_the_resolved_path_on_the_clipboard(h):
    assert h.actions.perform("copy_path", h.ref())
    assert QGuiApplication.clipboard().text() == str(h.path())
    assert h.notices == ["Path copied"]
    assert h.verdicts == [(h.ref(), "ok")]


def test_open_hands_over_a_verified_file_that_reads_the_bytes(h):
    assert h.actions.perform("open", h.ref())
    assert len(h.opens) == 1
    path, opened, as_source, ref, kind = h.opens[0]
    assert path == str(h.path())
    assert not as_source
    assert ref == h.ref()
    assert kind is Kind.MARKDOWN  # the record's kind travels with the file
    assert os.pread(opened.fd, 100, 0) == FILES["report.md"]


def test_show_source_opens_as_source(h):
    assert h.actions.perform("show_source", h.ref("page.html"))
    path, opened, as_source, _ref, _kind = h.opens[0]
    assert path == str(h.path("page.html"))
    assert as_source
    assert opened.read() == FILES["page.html"]


def test_reveal_asks_the_tree_to_select_the_file(h):
    assert h.actions.perform("reveal", h.ref())
    assert h.reveals == [str(h.path())]


def test_show_in_file_manager_reaches_the_system_opener(h):
    assert h.actions.perform("show_in_file_manager", h.ref())
    assert h.opener.calls == [("show_in_file_manager", str(h.path()))]


def test_open_with_system_app_hands_over_a_private_copy(h):
    assert h.actions.perform("open_native", h.ref())

    [(method, handed)] = h.opener.calls
    assert method == "open_file"
    assert handed != str(h.path())
    assert os.path.basename(handed) == "report.md"
    assert Path(handed).read_bytes() == FILES["report.md"]
    assert h.notices[-1].startswith("Opened a private copy of report.md")


def test_desktop_that_cannot_open_the_file_says_so(h):
    h.opener.answer = False
    assert not h.actions.perform("open_native", h.ref())
    assert h.refusals == [
        "Can't open report.md with its app: no app is set up to open it"
    ]


def test_policy_is_loaded_for_the_conversations_workspace_on_every_action(h):
    h.actions.perform("copy_path", h.ref())
    h.actions.perform("reveal", h.ref())
    assert h.policy_roots == [str(h.workspace), str(h.workspace)]


# -- refusals -------------------------------------------------------------------


def assert_nothing_happened(h: Harness) -> None:
    assert h.opener.calls == []
    assert h.opens == []
    assert h.reveals == []
    assert h.notices == []
    assert QGuiApplication.clipboard().text() == "clipboard before"
    assert not h.save_target.exists()
    assert h.answers.asked == []


@pytest.mark.parametrize("action", ALL_FILE_ACTIONS)
def test_file_replaced_by_a_symlink_is_refused(h, action):
    other = h.tmp_path / "elsewhere.md"
    other.write_bytes(FILES["report.md"])
    h.path().unlink()
    h.path().symlink_to(other)
    assert not h.actions.perform(action, h.ref())
    assert len(h.refusals) == 1
    assert h.refusals[0].startswith("Can't ")
    assert "report.md" in h.refusals[0]
    assert "symbolic link" in h.refusals[0]
    assert h.verdicts == [(h.ref(), Verdict.SYMLINK.value)]
    assert_nothing_happened(h)


@pytest.mark.parametrize("action", ALL_FILE_ACTIONS)
def test_new_deny_rule_refuses_and_names_the_rule(h, action):
    assert h.actions.perform("copy_path", h.ref())
    QGuiApplication.clipboard().setText("clipboard before")
    h.notices.clear()
    h.policy = Policy([*builtin_rules(), Rule("report.*", "user policy")], home=h.home)
    assert not h.actions.perform(action, h.ref())
    assert h.refusals == [
        h.refusals[0].split(":", 1)[0]
        + ": denied by read-deny rule report.* (user policy)"
    ]
    assert h.verdicts[-1] == (h.ref(), "denied")
    assert_nothing_happened(h)


def test_missing_file_is_refused(h):
    h.path().unlink()
    assert not h.actions.perform("open", h.ref())
    assert h.refusals == ["Can't open report.md: the file no longer exists"]
    assert h.verdicts == [(h.ref(), "missing")]
    assert_nothing_happened(h)


def test_workspace_only_mode_refuses_an_external_file(h, tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("outside\n")
    record = declare(
        {"files": [{"path": str(outside), "description": "d"}]},
        workspace=h.workspace,
        mode=PermissionMode.ALLOW_EXTERNAL,
        policy=h.policy,
    )
    other = h.store.create_conversation("external", str(h.workspace))
    append_present(h.store, other.id, record.to_json())
    ref = DeliverableRef(other.id, "call_1", 0)
    assert h.actions.perform("copy_path", ref)
    h.mode = PermissionMode.WORKSPACE_ONLY
    assert not h.actions.perform("copy_path", ref)
    assert "workspace-only" in h.refusals[-1]


def tamper(h: Harness) -> None:
    with sqlite3.connect(h.tmp_path / "data" / DATABASE_NAME) as conn:
        conn.execute("UPDATE records SET raw = replace(raw, 'the report', 'a report')")


@pytest.mark.parametrize("action", ALL_FILE_ACTIONS)
def test_tampered_record_is_refused(h, action):
    tamper(h)
    assert not h.actions.perform(action, h.ref())
    assert h.verdicts == [(h.ref(), "untrusted")]
    assert "not written by this app" in h.refusals[0]
    assert_nothing_happened(h)


def test_tampered_record_menu_offers_no_file_actions(h, qtbot):
    tamper(h)
    parent = QWidget()
    qtbot.addWidget(parent)
    menu = h.actions.menu_for(h.ref(), parent)
    assert menu_items(menu) == [("Untrusted record: no file actions", None, False)]


def test_ref_from_another_conversation_is_refused(h, qtbot):
    other = h.store.create_conversation("other", str(h.workspace))
    foreign = DeliverableRef(other.id, "call_1", 0)
    assert not h.actions.perform("copy_path", foreign)
    assert h.refusals == [
        "Can't copy the path of this file: no trusted record of this file exists "
        "in this conversation"
    ]
    assert_nothing_happened(h)
    parent = QWidget()
    qtbot.addWidget(parent)
    items = menu_items(h.actions.menu_for(foreign, parent))
    assert items == [("No record of this file in this conversation", None, False)]


def test_unsupported_record_version_has_no_file_actions(h, qtbot):
    other = h.store.create_conversation("future", str(h.workspace))
    append_present(h.store, other.id, '{"version": 2, "files": "elsewhere"}')
    ref = DeliverableRef(other.id, "call_1", 0)
    parent = QWidget()
    qtbot.addWidget(parent)
    items = menu_items(h.actions.menu_for(ref, parent))
    assert items == [("Unsupported record version: no file actions", None, False)]
    assert not h.actions.perform("open", ref)
    assert "not supported" in h.refusals[0]
    assert_nothing_happened(h)


def test_nothing_is_cached_between_actions(h):
    assert h.actions.perform("copy_path", h.ref())
    h.path().unlink()
    assert not h.actions.perform("copy_path", h.ref())
    assert [verdict for _ref, verdict in h.verdicts] == ["ok", "missing"]


# -- changed files --------------------------------------------------------------


def test_changed_file_opens_with_the_changed_verdict(h):
    h.path().write_bytes(b"# report, rewritten\n")
    assert h.actions.perform("open", h.ref())
    assert h.verdicts == [(h.ref(), "changed")]
    _path, opened, _source, _ref, _kind = h.opens[0]
    assert opened.read() == b"# report, rewritten\n"


def test_changed_file_save_copy_asks_first_and_no_writes_nothing(h):
    h.path().write_bytes(b"# report, rewritten\n")
    h.answers.confirm = False
    assert not h.actions.perform("save_copy", h.ref())
    assert h.answers.asked == ["changed:report.md"]
    assert not h.save_target.exists()
    assert h.saver.active_jobs() == 0


def test_changed_file_save_copy_yes_saves_the_current_version(h, qtbot):
    h.path().write_bytes(b"# report, rewritten\n")
    with qtbot.waitSignal(h.actions.notice, timeout=5000) as blocker:
        assert h.actions.perform("save_copy", h.ref())
    assert h.answers.asked == ["changed:report.md", "target:report.md"]
    assert blocker.args == [f"Saved a copy to {h.save_target}"]
    assert h.save_target.read_bytes() == b"# report, rewritten\n"


def test_unchanged_file_save_copy_does_not_ask_about_changes(h, qtbot):
    with qtbot.waitSignal(h.saver.saved, timeout=5000):
        assert h.actions.perform("save_copy", h.ref())
    assert h.answers.asked == ["target:report.md"]
    assert h.save_target.read_bytes() == FILES["report.md"]


def test_save_copy_over_the_source_itself_is_refused(h):
    h.answers.target = h.path()
    assert not h.actions.perform("save_copy", h.ref())
    assert h.refusals == [
        "Can't save a copy of report.md: a copy cannot be saved over the file itself"
    ]
    assert h.path().read_bytes() == FILES["report.md"]


# -- the menu -------------------------------------------------------------------


def test_menu_lists_the_actions_in_order_all_enabled(h, qtbot):
    parent = QWidget()
    qtbot.addWidget(parent)
    menu = h.actions.menu_for(h.ref("page.html"), parent)
    assert menu_items(menu) == [
        ("Open", "open", True),
        ("Open in built-in browser", "open_browser", True),
        ("Reveal in file tree", "reveal", True),
        ("Show source", "show_source", True),
        ("Copy path", "copy_path", True),
        ("Open with system app", "open_native", True),
        ("Show in file manager", "show_in_file_manager", True),
        ("Save a copy…", "save_copy", True),
    ]
    assert menu.toolTipsVisible()


@pytest.mark.parametrize(
    ("name", "browser", "source"),
    [
        ("report.md", False, True),
        ("photo.png", True, False),
        ("notes.pdf", False, False),
    ],
)
def test_menu_offers_browser_and_source_by_kind(h, qtbot, name, browser, source):
    parent = QWidget()
    qtbot.addWidget(parent)
    ids = [item[1] for item in menu_items(h.actions.menu_for(h.ref(name), parent))]
    assert ("open_browser" in ids) is browser
    assert ("show_source" in ids) is source
    assert ids[0] == "open"
    assert ids[-1] == "save_copy"


def test_menu_entry_runs_its_action(h, qtbot):
    parent = QWidget()
    qtbot.addWidget(parent)
    menu = h.actions.menu_for(h.ref(), parent)
    copy = next(a for a in menu.actions() if a.data() == "copy_path")
    copy.trigger()
    assert QGuiApplication.clipboard().text() == str(h.path())


def test_open_in_browser_hands_over_the_verified_file(h):
    assert h.actions.perform("open_browser", h.ref("page.html"))
    assert h.refusals == []
    assert len(h.browsers) == 1
    path, opened, ref, _kind = h.browsers[0]
    assert path == str(h.path("page.html"))
    assert ref == h.ref("page.html")
    assert opened.read(64, 0) == FILES["page.html"][:64]  # type: ignore[attr-defined]
    assert h.opens == []


def test_open_in_browser_is_refused_when_the_file_changed_kind(h):
    h.path("page.html").unlink()
    h.path("page.html").mkdir()
    assert not h.actions.perform("open_browser", h.ref("page.html"))
    assert h.browsers == []
    assert h.refusals[0].startswith("Can't open page.html in the built-in browser: ")


def test_open_in_browser_from_the_tree_revalidates_the_path(h):
    assert h.actions.perform_path(
        "open_browser", str(h.path("photo.png")), str(h.workspace)
    )
    path, opened, ref, _kind = h.browsers[0]
    assert path == str(h.path("photo.png"))
    assert ref is None
    assert opened.read(8, 0) == FILES["photo.png"][:8]  # type: ignore[attr-defined]


def test_unknown_action_is_a_programming_error(h):
    with pytest.raises(ValueError, match="unknown file action"):
        h.actions.perform("delete", h.ref())


# -- plain paths (file tree, fallback card) --------------------------------------


def test_path_action_opens_a_workspace_file(h):
    assert h.actions.perform_path("open", str(h.path()), str(h.workspace))
    path, opened, as_source, ref, kind = h.opens[0]
    assert (path, as_source, ref, kind) == (str(h.path()), False, None, None)
    assert opened.read() == FILES["report.md"]


def test_path_action_refuses_a_denied_file(h):
    secret = h.workspace / ".env"
    secret.write_text("TOKEN=1\n")
    assert not h.actions.perform_path("copy_path", str(secret), str(h.workspace))
    assert h.refusals == [
        "Can't copy the path of .env: denied by read-deny rule .env (built-in)"
    ]
    assert QGuiApplication.clipboard().text() == "clipboard before"


def test_path_action_refuses_a_symlink(h):
    link = h.workspace / "link.md"
    link.symlink_to(h.path())
    assert not h.actions.perform_path("open", str(link), str(h.workspace))
    assert "symbolic link" in h.refusals[0]
    assert h.opens == []


def test_path_action_refuses_a_missing_file(h):
    assert not h.actions.perform_path(
        "reveal", str(h.workspace / "gone.md"), str(h.workspace)
    )
    assert h.refusals == [
        "Can't reveal gone.md in the file tree: the file no longer exists"
    ]


# -- the notice bar -------------------------------------------------------------


@pytest.fixture
def bar(qtbot: QtBot):
    # Inside a window that is never shown: a shown top-level widget makes the
    # offscreen platform warn about size hints.
    window = QWidget()
    qtbot.addWidget(window)
    yield NoticeBarWidget(window)


def test_notice_bar_shows_markup_as_plain_text(bar, qtbot):
    text = "Can't open <img src='/etc/passwd'><b>x</b>.md: missing"
    bar.show_message(text, "error")
    label = bar.findChild(notice_module.QLabel, "noticeText")
    assert label.textFormat() == notice_module.Qt.TextFormat.PlainText
    assert label.text() == text
    assert not bar.isHidden()
    assert bar.accessibleName() == "Notice"
    assert text in bar.accessibleDescription()


def test_notice_bar_action_runs_once_and_closes(bar, qtbot):
    ran: list[int] = []
    bar.show_message(
        "report.md changed on disk", "warning", "Reload", lambda: ran.append(1)
    )
    assert bar.action_button().isVisibleTo(bar)
    with qtbot.waitSignal(bar.closed):
        bar.action_button().click()
    assert ran == [1]
    assert bar.isHidden()


def test_notice_bar_info_hides_by_itself(bar, qtbot, monkeypatch):
    monkeypatch.setattr(notice_module, "INFO_TIMEOUT_MS", 50)
    bar.show_message("Path copied")
    assert not bar.isHidden()
    qtbot.waitUntil(bar.isHidden, timeout=2000)


def test_notice_bar_error_stays_until_closed(bar, qtbot, monkeypatch):
    monkeypatch.setattr(notice_module, "INFO_TIMEOUT_MS", 10)
    bar.show_message("Can't open x: missing", "error")
    assert not bar.findChild(notice_module.QTimer).isActive()
    close = bar.findChild(notice_module.QToolButton, "noticeClose")
    assert close.accessibleName() == "Close notice"
    close.click()
    assert bar.isHidden()


def test_path_menu_offers_the_same_actions_and_runs_them_on_the_path(h, qtbot):
    parent = QWidget()
    qtbot.addWidget(parent)
    menu = h.actions.menu_for_path(str(h.path("page.html")), str(h.workspace), parent)
    ids = [item[1] for item in menu_items(menu)]
    assert ids == [
        "open",
        "open_browser",
        "reveal",
        "show_source",
        "copy_path",
        "open_native",
        "show_in_file_manager",
        "save_copy",
    ]
    next(a for a in menu.actions() if a.data() == "copy_path").trigger()
    assert QGuiApplication.clipboard().text() == str(h.path("page.html"))
    assert h.verdicts == []  # no card to badge


def test_path_action_without_a_workspace_uses_the_other_rules(h):
    assert h.actions.perform_path("copy_path", str(h.path()), None)
    assert QGuiApplication.clipboard().text() == str(h.path())
    assert h.policy_roots == [""]


def test_workspace_policy_adds_the_workspaces_own_rules(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    (root / ".deliverables-policy.toml").write_text('[deny]\nadd = ["draft-*"]\n')
    rule = workspace_policy(str(root)).denying_rule(str(root / "draft-1.md"))
    assert rule is not None
    assert rule.pattern == "draft-*"
    assert workspace_policy("").denying_rule(str(root / "draft-1.md")) is None


def test_a_missing_file_greys_out_its_actions_with_the_reason(h, qtbot):
    parent = QWidget()
    qtbot.addWidget(parent)
    h.path("report.md").unlink()

    menu = h.actions.menu_for(h.ref("report.md"), parent)

    items = [a for a in menu.actions() if a.data() in ALL_FILE_ACTIONS]
    assert items and not any(a.isEnabled() for a in items)
    assert "no longer exists" in items[0].toolTip()
    assert "Can&#x27;t open report.md" in items[0].toolTip()  # escaped: plain text
    note = menu.actions()[0]
    assert note.objectName() == "action_none" and not note.isEnabled()
    assert (h.ref("report.md"), "missing") in h.verdicts


def test_an_executable_file_cannot_be_handed_to_another_app(h, qtbot):
    parent = QWidget()
    qtbot.addWidget(parent)
    os.chmod(h.path("notes.pdf"), 0o755)

    menu = h.actions.menu_for(h.ref("notes.pdf"), parent)

    by_id = {a.data(): a for a in menu.actions() if a.data()}
    assert not by_id["open_native"].isEnabled()
    assert "marked executable" in by_id["open_native"].toolTip()
    assert by_id["open"].isEnabled() and by_id["save_copy"].isEnabled()


def test_a_drag_carries_a_private_copy_never_the_agents_path(h):
    copy = h.actions.drag_copy(h.ref("report.md"))

    assert copy is not None
    assert copy != h.path("report.md") and copy.name == "report.md"
    assert copy.read_bytes() == FILES["report.md"]
    assert not os.stat(copy).st_mode & 0o111
    assert h.refusals == []


def test_a_drag_of_a_changed_or_executable_file_is_refused(h):
    h.path("report.md").unlink()
    os.chmod(h.path("notes.pdf"), 0o755)

    assert h.actions.drag_copy(h.ref("report.md")) is None
    assert h.actions.drag_copy(h.ref("notes.pdf")) is None

    assert h.refusals[0] == "Can't drag report.md out: the file no longer exists"
    assert h.refusals[1].startswith("Can't drag notes.pdf out:")
    assert "executable" in h.refusals[1]


class WithoutNative:
    """A local folder that offers no desktop side, as a host's folder does not."""

    native = None

    def __init__(self, root: str) -> None:
        self._folder = local_workspace(root)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._folder, name)


@pytest.fixture
def elsewhere(qtbot: QtBot, tmp_path: Path):
    harness = Harness(
        tmp_path, workspaces=lambda root: cast(Workspace, WithoutNative(root))
    )
    yield harness
    harness.close()


def test_a_workspace_with_no_native_side_is_offered_no_desktop_action(elsewhere, qtbot):
    parent = QWidget()
    qtbot.addWidget(parent)
    path = str(elsewhere.path("page.html"))

    card = elsewhere.actions.menu_for(elsewhere.ref("page.html"), parent)
    tree = elsewhere.actions.menu_for_path(path, str(elsewhere.workspace), parent)

    for menu in (card, tree):
        ids = [item[1] for item in menu_items(menu)]
        assert "open_native" not in ids and "show_in_file_manager" not in ids
        assert "open" in ids and "save_copy" in ids


@pytest.mark.parametrize("action", ["open_native", "show_in_file_manager"])
def test_a_desktop_action_is_refused_where_the_workspace_has_no_native_side(
    elsewhere, action
):
    assert not elsewhere.actions.perform(action, elsewhere.ref())
    assert not elsewhere.actions.perform_path(
        action, str(elsewhere.path()), str(elsewhere.workspace)
    )
    assert elsewhere.actions.drag_copy(elsewhere.ref()) is None

    assert elsewhere.opener.calls == []
    assert all("not on this computer" in reason for reason in elsewhere.refusals)
    assert len(elsewhere.refusals) == 3


def test_one_table_offers_each_workspace_what_it_can_do(tmp_path):
    """Local and remote menus are chosen from one table, by the workspace's means."""
    from types import SimpleNamespace

    from app.ui.cards.action_spec import capabilities, offered
    from app.ui.cards.actions import ACTIONS
    from app.ui.cards.remote_actions import REMOTE_ACTIONS
    from app.workspace.choose import local_workspace

    here = capabilities(local_workspace(str(tmp_path)))
    assert [spec.id for spec in offered(here)] == [spec.id for spec in ACTIONS]
    away = SimpleNamespace(local_root=None, native=None, host="devbox")
    remote = offered(capabilities(away))
    assert [spec.id for spec in remote] == [
        "open",
        "show_source",
        "locate",
        "copy_url",
        "copy_scp",
        "save_local",
    ]
    assert remote == REMOTE_ACTIONS
    # A folder with no desktop side is offered nothing that needs one.
    bare = SimpleNamespace(local_root=str(tmp_path), native=None, host=None)
    ids = {spec.id for spec in offered(capabilities(bare))}
    assert not ids & {"open_native", "show_in_file_manager", "locate", "save_local"}


def test_a_file_menu_is_chosen_by_its_workspace_not_by_the_caller(h, qtbot):
    """One entry point: a folder here gets the local menu, a host's its own."""
    from types import SimpleNamespace

    from app.workspace.choose import local_workspace

    parent = QWidget()
    qtbot.addWidget(parent)
    here = local_workspace(str(h.workspace))
    menu = h.actions.menu_for_file(str(h.path("page.html")), here, parent)
    ids = [item[1] for item in menu_items(menu)]
    assert ids[:3] == ["open", "open_browser", "reveal"]
    assert "copy_path" in ids
    away = SimpleNamespace(local_root=None, native=None, host="devbox", root="/srv")
    menu = h.actions.menu_for_file("/srv/page.html", away, parent)
    # Nothing of this computer is offered for a host's file, not even a path.
    assert [a.text() for a in menu.actions()] == [
        "A remote file: open its workspace to act on it"
    ]
    assert not [a for a in menu.actions() if a.isEnabled()]
