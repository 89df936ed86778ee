"""Test-wide set-up: offscreen Qt, a throwaway home, markers, benchmark figures."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from PySide6.QtWidgets import QApplication

# Before anything imports Qt: render offscreen, and never run with the Chromium
# sandbox off or a debugging port open, whatever the calling shell had set.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
for _name in (
    "QTWEBENGINE_DISABLE_SANDBOX",
    "QTWEBENGINE_CHROMIUM_FLAGS",
    "QTWEBENGINE_REMOTE_DEBUGGING",
):
    os.environ.pop(_name, None)

# Tests write only to temporary folders: point home and the platform folders at one.
_HOME = tempfile.mkdtemp(prefix="deliverables-test-home-")
os.environ["HOME"] = _HOME
for _var, _sub in (
    ("XDG_CONFIG_HOME", ".config"),
    ("XDG_DATA_HOME", ".local/share"),
    ("XDG_CACHE_HOME", ".cache"),
    ("XDG_STATE_HOME", ".local/state"),
):
    os.environ[_var] = os.path.join(_HOME, _sub)
_RUNTIME = os.path.join(_HOME, ".run")
os.makedirs(_RUNTIME, mode=0o700, exist_ok=True)
os.environ["XDG_RUNTIME_DIR"] = _RUNTIME

# Tests that ask for these fixtures, or whose module reaches Qt, are marked
# "qt"; ``-m "not qt"`` runs the rest, which need no Qt application at all.
QT_FIXTURES = frozenset({"qtbot", "qapp"})
QT_WORDS = ("PySide6", "previewers", "app.ui", "qtbot")
_QT_MODULES: dict[str, bool] = {}


def _uses_qt(item: pytest.Item) -> bool:
    if QT_FIXTURES.intersection(getattr(item, "fixturenames", ())):
        return True
    path = str(item.path)
    if path not in _QT_MODULES:
        text = item.path.read_text(encoding="utf-8")
        _QT_MODULES[path] = any(word in text for word in QT_WORDS)
    return _QT_MODULES[path]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if _uses_qt(item):
            item.add_marker(pytest.mark.qt)
        if item.get_closest_marker("webengine") is not None:
            item.add_marker(pytest.mark.qt)


@pytest.fixture(scope="session")
def qapp(qapp: QApplication) -> QApplication:
    """pytest-qt's application, collecting cyclic garbage on its thread only,
    as the app's own does (``app.ui.window.garbage``)."""
    from app.ui.window.garbage import collect_on_gui_thread

    collect_on_gui_thread(qapp)
    return qapp


_FIGURES: list[str] = []


@pytest.fixture
def report() -> Iterator[list[str]]:
    """Benchmarks append lines here; they are printed in the run's summary."""
    lines: list[str] = []
    yield lines
    _FIGURES.extend(lines)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _FIGURES:
        terminalreporter.section("benchmark figures")
        for line in _FIGURES:
            terminalreporter.write_line(line)
