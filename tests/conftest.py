"""Test-wide set-up: offscreen Qt, a throwaway home, and printed benchmark figures."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator

import pytest

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
