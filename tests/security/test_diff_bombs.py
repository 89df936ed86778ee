"""A huge rewrite's diff is bounded in work, cancelled by closing, and starves nothing.

The attack: an agent's turn rewrites a 1 MiB file so that the two versions
share only a few dozen distinct lines in another order. One click on its
"Diff" ran difflib, O(n·m) on such lines, for minutes on a worker of the
previews' pool, and nothing could stop it: two clicks and no preview loaded.
Here the turn is run by the real agent runner and the diff is opened from the
real window: the comparison must give up at its budget with a clear message,
a preview opened meanwhile must load, closing the diff must cancel the work,
and a rewrite with no common line must still be diffed (in one linear pass).
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, QThreadPool
from pytestqt.qtbot import QtBot

import app.core.changes.change_diff as change_diff_module
from app.agent.models import RecordingChatModel
from app.agent.runner import AgentRunner
from app.agent.tools import AgentSession
from app.core.changes.change import MAX_TEXT_BEFORE
from app.core.changes.diffs import Diff, NoDiff, NoDiffReason
from app.core.store import Store
from app.ui.changes.diff_view import DiffDialog
from app.ui.chat.paint_changes import diff_button_rect
from app.ui.window.main_window import MainWindow
from tests.app.agent import conftest as agent_fixtures
from tests.app.agent.scripts import answer
from tests.changes.test_change_index import write
from tests.changes.test_changes_window import (
    changes_row,
    click,
    file_point,
    row_rect,
    shown,
)

HANG = 60_000  # a hang guard, not a speed figure

# The agent's workspace, session and store, as the change-index tests have them.
workspace = agent_fixtures.workspace
session = agent_fixtures.session
store = agent_fixtures.store


def rows_of(seed: int, make: Callable[[random.Random], str]) -> str:
    """Lines from ``make`` up to just under the 1 MiB a turn keeps a copy of."""
    chooser = random.Random(seed)
    lines: list[str] = []
    size = 0
    while True:
        line = make(chooser) + "\n"
        if size + len(line) > MAX_TEXT_BEFORE - 4096:
            return "".join(lines)
        lines.append(line)
        size += len(line)


REGIONS = [
    f"{region},{product},{n}"
    for region in "NSEW"
    for product in "abcdef"
    for n in range(3)
]


def few_distinct(chooser: random.Random) -> str:
    return chooser.choice(REGIONS)


def unique(chooser: random.Random) -> str:
    return f"{chooser.getrandbits(64):016x},{chooser.getrandbits(32):08x}"


FILES = ("sales.csv", "ids.txt", "notes.md")


@pytest.fixture
def turn(store: Store, session: AgentSession, workspace: Path) -> str:
    """A real turn that rewrites two 1 MiB files and edits a small one."""
    (workspace / "sales.csv").write_text(rows_of(1, few_distinct))
    (workspace / "ids.txt").write_text(rows_of(2, unique))
    (workspace / "notes.md").write_text("# Notes\nbefore\n")
    model = RecordingChatModel(
        replies=[
            write("w1", "sales.csv", rows_of(3, few_distinct)),
            write("w2", "ids.txt", rows_of(4, unique)),
            write("w3", "notes.md", "# Notes\nafter\n"),
            answer("Rewrote the data."),
        ]
    )
    conversation = store.create_conversation("rewrite", str(workspace))
    AgentRunner(store, conversation.id, model, session).run("Rewrite the data")
    return conversation.id


@pytest.fixture
def window(
    qtbot: QtBot, store: Store, tmp_path: Path, turn: str
) -> Iterator[MainWindow]:
    win = MainWindow(store, tmp_path / "data")
    qtbot.addWidget(win)
    win.resize(1280, 860)
    shown(qtbot, win, turn)
    row = changes_row(win)
    click(qtbot, win, row_rect(win, row).topLeft() + QPoint(60, 15))  # expand
    yield win
    win.close()


def open_diff(qtbot: QtBot, win: MainWindow, name: str) -> DiffDialog:
    row = changes_row(win)
    before = getattr(win, "diff_dialog", None)
    click(qtbot, win, diff_button_rect(row_rect(win, row), FILES.index(name)).center())
    dialog: DiffDialog = win.diff_dialog
    assert dialog is not before and dialog.isVisible()
    return dialog


def done(dialog: DiffDialog) -> bool:
    return not dialog.view.summary.text().startswith("Working out")


class Spy:
    """The real ``change_diff``, recording what each call saw and answered.

    With ``gate`` it waits, once called, until the test opens the gate: a
    worker busy with a diff, for as long as the test needs it busy.
    """

    def __init__(self, real: Callable[..., Diff | NoDiff], gate: bool) -> None:
        self.real = real
        self.gate = threading.Event()
        if not gate:
            self.gate.set()
        self.started = threading.Semaphore(0)
        self.calls = 0
        self.results: list[tuple[Diff | NoDiff, bool]] = []
        self._lock = threading.Lock()

    def __call__(self, *args: Any, **kwargs: Any) -> Diff | NoDiff:
        with self._lock:
            self.calls += 1
        self.started.release()
        self.gate.wait(HANG / 1000)
        result = self.real(*args, **kwargs)
        cancelled = kwargs.get("cancelled")
        with self._lock:
            self.results.append((result, cancelled is not None and cancelled.is_set()))
        return result


@pytest.fixture
def spy(
    monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> Iterator[Spy]:
    # The window imports change_diff when a diff is first asked for, so the
    # spy stands in the module it is imported from.
    watching = Spy(change_diff_module.change_diff, gate=request.param)
    monkeypatch.setattr(change_diff_module, "change_diff", watching)
    yield watching
    watching.gate.set()  # never leave a worker waiting


@pytest.mark.parametrize("spy", [True], indirect=True)
def test_a_diff_bomb_gives_up_at_its_budget_and_never_starves_the_previews(
    qtbot: QtBot, window: MainWindow, spy: Spy
) -> None:
    from previewers.widget import PreviewWidget

    # More diffs at once than the previews' pool has threads.
    many = QThreadPool.globalInstance().maxThreadCount() + 1
    dialogs = [open_diff(qtbot, window, "sales.csv") for _ in range(many)]
    assert spy.started.acquire(timeout=HANG / 1000)  # a worker is busy diffing

    # A preview opened meanwhile loads: the diffs hold none of its threads.
    click(
        qtbot, window, file_point(window, changes_row(window), FILES.index("notes.md"))
    )
    qtbot.waitUntil(
        lambda: (
            isinstance(window.workspace.current_preview(), PreviewWidget)
            and window.workspace.is_loaded()
        ),
        timeout=20_000,
    )
    assert spy.calls == 1  # the diffs wait for their own one thread
    spy.gate.set()

    qtbot.waitUntil(lambda: all(done(dialog) for dialog in dialogs), timeout=HANG)
    for dialog in dialogs:
        assert dialog.view.summary.text() == (
            "No diff is shown: it is too large to compare "
            "(the versions differ in too many places to work out)."
        )
        assert dialog.view.layout_shown is None
    assert [result.reason for result, _ in spy.results] == [
        NoDiffReason.TOO_LARGE
    ] * many
    for dialog in dialogs:
        dialog.close()


@pytest.mark.parametrize("spy", [False], indirect=True)
def test_closing_the_diff_cancels_the_comparison_under_way(
    qtbot: QtBot, window: MainWindow, spy: Spy
) -> None:
    dialog = open_diff(qtbot, window, "sales.csv")
    assert spy.started.acquire(timeout=HANG / 1000)
    dialog.close()

    qtbot.waitUntil(lambda: len(spy.results) == 1, timeout=HANG)
    [(result, cancelled)] = spy.results
    assert cancelled
    assert isinstance(result, NoDiff) and result.reason is NoDiffReason.CANCELLED


@pytest.mark.parametrize("spy", [False], indirect=True)
def test_a_rewrite_with_no_common_line_is_still_diffed(
    qtbot: QtBot, window: MainWindow, spy: Spy, workspace: Path
) -> None:
    dialog = open_diff(qtbot, window, "ids.txt")
    qtbot.waitUntil(lambda: done(dialog), timeout=HANG)
    layout = dialog.view.layout_shown
    assert layout is not None
    diff = layout.diff
    lines_now = (workspace / "ids.txt").read_text().count("\n")
    assert diff.added == lines_now and diff.removed > 0
    assert len(diff.hunks) == 1
    dialog.close()
