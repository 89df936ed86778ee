"""Opening with the desktop's apps and showing files in the file manager."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtDBus import (
    QDBusConnection,
    QDBusError,
    QDBusMessage,
    QDBusPendingCall,
)
from pytestqt.qtbot import QtBot

from app.ui.cards.system_open import FILE_MANAGER_SERVICE, SystemOpener


class Desktop:
    """Records the URLs QDesktopServices would have been asked to open."""

    def __init__(self, answer: bool = True) -> None:
        self.urls: list[QUrl] = []
        self.answer = answer

    def open_url(self, url: QUrl) -> bool:
        self.urls.append(url)
        return self.answer

    def paths(self) -> list[str]:
        return [url.toLocalFile() for url in self.urls]


class Processes:
    def __init__(self) -> None:
        self.started: list[tuple[str, list[str]]] = []

    def start_detached(self, program: str, arguments: list[str]) -> bool:
        self.started.append((program, arguments))
        return True


class FakeBus:
    """A connected session bus that answers every call with ``answer``."""

    def __init__(self, answer: QDBusPendingCall) -> None:
        self.answer = answer
        self.sent: list[QDBusMessage] = []

    def isConnected(self) -> bool:
        return True

    def asyncCall(self, message: QDBusMessage, _timeout: int) -> QDBusPendingCall:
        self.sent.append(message)
        return self.answer


FILE = "/home/someone/work/report <1>.md"


def test_open_file_hands_the_file_url_to_the_desktop():
    desktop = Desktop()
    opener = SystemOpener(open_url=desktop.open_url)
    assert opener.open_file(FILE)
    assert desktop.paths() == [FILE]
    assert desktop.urls[0].scheme() == "file"


def test_open_file_reports_when_no_app_opened_it():
    opener = SystemOpener(open_url=Desktop(answer=False).open_url)
    assert not opener.open_file(FILE)


def test_macos_reveals_with_open_dash_r():
    processes = Processes()
    opener = SystemOpener(platform="darwin", start_detached=processes.start_detached)
    assert opener.show_in_file_manager(FILE)
    assert processes.started == [("open", ["-R", FILE])]


def test_windows_selects_the_file_in_explorer():
    processes = Processes()
    opener = SystemOpener(platform="win32", start_detached=processes.start_detached)
    assert opener.show_in_file_manager("C:/Users/someone/report.md")
    [(program, arguments)] = processes.started
    assert program == "explorer"
    assert len(arguments) == 1
    assert arguments[0].startswith("/select,")
    assert arguments[0].endswith("report.md")


def test_linux_without_a_session_bus_opens_the_parent_folder(
    qtbot: QtBot, tmp_path: Path
):
    # A bus address with nothing behind it, as on a CI machine: the real
    # QtDBus connection fails, whatever bus the developer's desktop has.
    bus = QDBusConnection.connectToBus(
        f"unix:path={tmp_path / 'no-bus'}", "deliverables-test-no-bus"
    )
    assert not bus.isConnected()
    desktop = Desktop()
    opener = SystemOpener(
        platform="linux", open_url=desktop.open_url, session_bus=lambda: bus
    )
    try:
        assert opener.show_in_file_manager(FILE)
    finally:
        QDBusConnection.disconnectFromBus("deliverables-test-no-bus")
    assert desktop.paths() == ["/home/someone/work"]


def test_linux_asks_the_file_manager_to_show_the_item():
    call = QDBusMessage.createMethodCall("a.b", "/a", "a.b", "ShowItems")
    bus = FakeBus(QDBusPendingCall.fromCompletedCall(call.createReply([])))
    desktop = Desktop()
    opener = SystemOpener(
        platform="linux", open_url=desktop.open_url, session_bus=lambda: bus
    )
    assert opener.show_in_file_manager(FILE)
    [message] = bus.sent
    assert message.service() == FILE_MANAGER_SERVICE
    assert message.interface() == FILE_MANAGER_SERVICE
    assert message.path() == "/org/freedesktop/FileManager1"
    assert message.member() == "ShowItems"
    uris, startup_id = message.arguments()
    assert uris == [QUrl.fromLocalFile(FILE).toString()]
    assert startup_id == ""
    assert desktop.urls == []  # no fallback when the file manager answered


def test_linux_file_manager_error_falls_back_to_the_parent_folder():
    error = QDBusError(QDBusError.ErrorType.ServiceUnknown, "no file manager")
    bus = FakeBus(QDBusPendingCall.fromError(error))
    desktop = Desktop()
    opener = SystemOpener(
        platform="linux", open_url=desktop.open_url, session_bus=lambda: bus
    )
    assert opener.show_in_file_manager(FILE)
    assert desktop.paths() == ["/home/someone/work"]


def test_linux_fallback_that_fails_too_says_so():
    bus = FakeBus(QDBusPendingCall.fromError(QDBusError()))
    opener = SystemOpener(
        platform="linux",
        open_url=Desktop(answer=False).open_url,
        session_bus=lambda: bus,
    )
    assert not opener.show_in_file_manager(FILE)


@pytest.fixture
def private_bus(qtbot: QtBot, tmp_path: Path) -> Iterator[str]:
    """A throwaway session bus with no file manager on it."""
    daemon = shutil.which("dbus-daemon")
    if daemon is None:
        pytest.skip("dbus-daemon is not installed")
    address = f"unix:path={tmp_path / 'bus'}"
    process = subprocess.Popen(
        [daemon, "--session", "--nofork", "--nopidfile", f"--address={address}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        qtbot.waitUntil(lambda: (tmp_path / "bus").exists(), timeout=5000)
        yield address
    finally:
        process.terminate()
        process.wait(10)


def test_linux_bus_without_a_file_manager_falls_back_asynchronously(
    qtbot: QtBot, private_bus: str
):
    name = "deliverables-test-private-bus"
    bus = QDBusConnection.connectToBus(private_bus, name)
    assert bus.isConnected(), bus.lastError().message()
    desktop = Desktop()
    opener = SystemOpener(
        platform="linux", open_url=desktop.open_url, session_bus=lambda: bus
    )
    try:
        assert opener.show_in_file_manager(FILE)
        qtbot.waitUntil(lambda: desktop.urls != [], timeout=10_000)
    finally:
        QDBusConnection.disconnectFromBus(name)
    assert desktop.paths() == ["/home/someone/work"]
