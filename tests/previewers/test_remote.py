"""Every previewer on a file of a remote workspace, against real sshd."""

from __future__ import annotations

import io
import json
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from app.core.trust.policy import PermissionMode
from app.core.trust.records import FileEntry
from app.core.trust.safeio import SafeOpenError
from app.formats.text_pages import PAGE_SIZE, FenceBrokenError
from app.remote.workspace import RemoteWorkspace
from app.workspace.choose import ssh_workspace
from app.workspace.memory_file import SnapshotFile
from previewers.image import ImagePreviewer
from previewers.remote import RemotePreview, open_remote_preview
from previewers.widget import PreviewWidget
from tests.remote.fixtures import SshHome
from tests.remote.fixtures import manager as manager
from tests.remote.fixtures import remote_root as remote_root
from tests.remote.fixtures import ssh_home as ssh_home
from tests.remote.fixtures import sshd as sshd
from tests.remote.fixtures import workspace as workspace
from tests.remote.watch import bytes_read

GIB = 1 << 30
ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
LINE = b"2026-01-01T00:00:00Z INFO request handled in 12 ms\n"

Show = Callable[..., PreviewWidget]


@pytest.fixture
def show(qtbot: QtBot, workspace: RemoteWorkspace) -> Iterator[Show]:
    """Prepare a remote file's preview off the GUI thread, then build its widget."""
    made: list[PreviewWidget] = []

    def make(path: Path, *, settle: bool = True) -> Any:
        prepared = _prepare(workspace, path)
        widget = prepared.create(None)
        made.append(widget)
        widget.resize(640, 420)
        widget.show()
        if settle:
            qtbot.waitUntil(widget.is_settled, timeout=20_000)
        return widget

    yield make
    for widget in made:
        widget.release()
        widget.deleteLater()
    if "previewers.web.sandbox" in sys.modules:
        retiring = sys.modules["previewers.web.sandbox"].retiring_count
        qtbot.waitUntil(lambda: retiring() == 0)


def _prepare(workspace: RemoteWorkspace, path: Path, record: Any = None) -> Any:
    """The preview of ``path``, or of the file ``record`` vouches for."""
    file = str(path) if record is None else record
    return open_remote_preview(ssh_workspace(workspace), file).result(60)


def _presented(workspace: RemoteWorkspace, path: Path) -> FileEntry:
    """The entry of a record presenting ``path`` now, as the agent would."""
    arguments = {"files": [{"path": path.name, "description": "a file"}]}
    mode = PermissionMode.WORKSPACE_ONLY
    [entry] = workspace.present(arguments, mode=mode).result(30).files
    return entry


def _png(width: int = 3, height: int = 2) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 40)).save(buffer, "PNG")
    return buffer.getvalue()


# -- each kind, from the remote host ---------------------------------------------


@pytest.mark.parametrize("name", ["tool.py", "notes.txt"])
def test_code_and_text_are_shown_from_a_snapshot(
    show: Show, workspace: RemoteWorkspace, remote_root: Path, name: str
) -> None:
    path = remote_root / name
    path.write_text("def main():\n    return 42\n")
    prepared = _prepare(workspace, path)
    assert prepared.previewer.name == "code" and not prepared.paged
    assert isinstance(prepared.file, SnapshotFile)
    assert prepared.file.real_path is None  # nothing local stands for it
    prepared.close()
    widget = show(path)
    assert widget.is_loaded()
    assert widget.text() == "def main():\n    return 42\n"


def test_a_markdown_document_renders_and_its_images_are_refused_with_a_notice(
    show: Show, remote_root: Path, tmp_path: Path
) -> None:
    (remote_root / "chart.png").write_bytes(_png())
    path = remote_root / "readme.md"
    path.write_text("# Results\n\nSee ![chart](chart.png).\n")
    widget = show(path)
    assert widget.is_loaded()
    assert widget.headings() == ["Results"]
    assert "remote host are not loaded" in widget.notice_text()


def test_json_is_shown_as_a_tree(show: Show, remote_root: Path) -> None:
    path = remote_root / "data.json"
    path.write_text(json.dumps({"name": "run", "scores": [1, 2, 3]}))
    widget = show(path)
    assert type(widget).__name__ == "JsonPreviewWidget"
    assert widget.is_loaded()


def test_csv_is_shown_as_a_table(show: Show, qtbot: QtBot, remote_root: Path) -> None:
    path = remote_root / "people.csv"
    path.write_text("name,age\nada,36\nalan,41\n")
    widget = show(path)
    assert type(widget).__name__ == "CsvPreviewWidget"
    qtbot.waitUntil(widget.is_indexed, timeout=20_000)
    model = widget.view.model()
    assert model.rowCount() == 2
    assert model.index(1, 0).data() == "alan"


def test_an_image_is_decoded_from_the_snapshot(show: Show, remote_root: Path) -> None:
    path = remote_root / "chart.png"
    path.write_bytes(_png(5, 4))
    widget = show(path)
    assert type(widget).__name__ == "ImagePreviewWidget"
    assert widget.is_loaded()
    assert (widget.decoded_size().width(), widget.decoded_size().height()) == (5, 4)


def test_a_pdf_is_rendered_by_the_worker_from_the_snapshot(
    show: Show, qtbot: QtBot, remote_root: Path
) -> None:
    import pymupdf

    document = pymupdf.open()
    document.new_page().insert_text((72, 72), "Quarterly report")
    path = remote_root / "report.pdf"
    path.write_bytes(document.tobytes())
    widget = show(path)
    assert type(widget).__name__ == "PdfPreviewWidget"
    assert widget.is_loaded()
    assert widget.info is not None and len(widget.info.page_sizes) == 1


# The offscreen machines have no audio or video acceleration; Qt says so.
MEDIA_NOISE = (
    r"^Couldn't (load|resolve) (va|va-x11|va-drm|va\(in plugin\)|pipewire-0\.3) "
    r"(library|symbols)$",
    r"^PulseAudioService: pa_context_connect\(\) failed$",
    r"No RHI backend\. Using CPU conversion\.$",
)


@pytest.mark.qt_log_ignore(*MEDIA_NOISE)
@pytest.mark.parametrize("name", ["tone.wav", "clip.avi"])
def test_audio_and_video_play_from_the_sealed_snapshot(
    show: Show,
    qtbot: QtBot,
    remote_root: Path,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
) -> None:
    from app.demo import media
    from app.ui.window.application import MEDIA_PROTOCOL_WHITELIST

    monkeypatch.setenv("QT_FFMPEG_PROTOCOL_WHITELIST", MEDIA_PROTOCOL_WHITELIST)
    path = remote_root / name
    path.write_bytes(media.tone_wav() if name.endswith(".wav") else media.clip_avi())
    widget = show(path, settle=False)
    assert type(widget).__name__ == "MediaPlayerWidget"
    qtbot.waitUntil(widget.is_settled, timeout=15_000)
    assert widget.is_loaded(), widget.message_text()
    if name.endswith(".avi"):
        frame = widget.stage.image()
        assert (frame.width(), frame.height()) == (320, 240)
    else:
        qtbot.waitUntil(lambda: bool(widget.waveform.peaks()), timeout=5_000)


def test_a_file_over_its_previewers_limit_is_refused_before_any_read(
    show: Show,
    workspace: RemoteWorkspace,
    remote_root: Path,
    ssh_home: SshHome,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(ImagePreviewer, "fetch_limit", 64)
    path = remote_root / "big.png"
    path.write_bytes(_png(40, 40) + b"\0" * (4 << 20))
    before = bytes_read(ssh_home.server.sessions())
    widget = show(path)
    served = bytes_read(ssh_home.server.sessions()) - before
    assert not widget.is_loaded()
    assert "is not previewed here: it is " in widget.message_text()
    assert "save it to a local folder" in widget.message_text()
    assert served < 1 << 20  # the head, not the file


# -- large text, paged over SFTP -------------------------------------------------


@pytest.fixture
def big_log(workspace: RemoteWorkspace, remote_root: Path) -> Path:
    """1 GiB of log on the server: 3 MiB of lines, then a sparse tail."""
    path = remote_root / "service.log"
    path.write_bytes(LINE * (3 * 1024 * 1024 // len(LINE)))
    workspace.submit(lambda sftp: sftp.truncate(str(path), GIB), "growing").result(30)
    return path


def test_the_first_page_of_a_remote_1_gib_log_shows_without_fetching_it(
    show: Show,
    qtbot: QtBot,
    workspace: RemoteWorkspace,
    big_log: Path,
    ssh_home: SshHome,
) -> None:
    before = bytes_read(ssh_home.server.sessions())
    prepared = _prepare(workspace, big_log)
    served = bytes_read(ssh_home.server.sessions()) - before
    assert prepared.previewer.name == "code" and prepared.paged
    assert prepared.source.identity.size == GIB
    assert served < PAGE_SIZE  # choosing the previewer read the head only
    prepared.close()

    widget = show(big_log, settle=False)
    qtbot.waitUntil(lambda: widget.paged_view is not None, timeout=30_000)
    assert widget.is_loaded()
    assert widget.paged_view.shown_lines()[0] == LINE.decode().rstrip("\n")


def test_a_change_on_the_host_mid_paging_stops_the_pages(
    show: Show, qtbot: QtBot, workspace: RemoteWorkspace, remote_root: Path
) -> None:
    path = remote_root / "growing.log"
    path.write_bytes(LINE * (3 * 1024 * 1024 // len(LINE)))
    prepared = _prepare(workspace, path)
    assert prepared.paged
    first = prepared.file.read(len(LINE), 0)
    assert first == LINE
    with path.open("ab") as log:
        log.write(LINE)
    with pytest.raises(FenceBrokenError) as raised:
        prepared.file.read(len(LINE), PAGE_SIZE)
    assert raised.value.reason == "changed"
    prepared.close()

    # The widget: the next page read after the change freezes the view.
    widget = show(path, settle=False)
    qtbot.waitUntil(widget.is_indexed, timeout=30_000)
    with path.open("ab") as log:
        log.write(LINE)
    widget.go_to_line(50_000)
    qtbot.waitUntil(lambda: widget.paged_view.is_frozen(), timeout=30_000)
    assert "changed" in widget.notice_text()


# -- refusals: changed, swapped, denied ------------------------------------------


def test_a_file_changed_since_its_record_is_refused_as_changed(
    workspace: RemoteWorkspace, remote_root: Path
) -> None:
    path = remote_root / "notes.md"
    recorded = _presented(workspace, path)
    path.write_text("# Notes, rewritten on the host\n")
    with pytest.raises(SafeOpenError) as raised:
        _prepare(workspace, path, recorded)
    assert raised.value.reason == "changed"


def test_a_remote_symlink_swapped_in_is_refused(
    workspace: RemoteWorkspace, remote_root: Path, tmp_path: Path
) -> None:
    path = remote_root / "notes.md"
    recorded = _presented(workspace, path)
    secret = tmp_path / "secret.txt"
    secret.write_text("not for the preview\n")
    path.unlink()
    path.symlink_to(secret)
    with pytest.raises(SafeOpenError) as raised:
        _prepare(workspace, path, recorded)
    assert raised.value.reason == "symlink"
    with pytest.raises(SafeOpenError):
        _prepare(workspace, path)  # nor without a record


def test_a_remote_env_file_is_denied_and_not_opened(
    workspace: RemoteWorkspace, remote_root: Path
) -> None:
    from tests.remote.watch import OpenWatch

    (remote_root / ".env").write_text("API_KEY=secret\n")
    watch = OpenWatch(remote_root)
    with pytest.raises(SafeOpenError) as raised:
        _prepare(workspace, remote_root / ".env")
    assert raised.value.reason == "denied"
    assert [name for name, _mask in watch.events() if name == ".env"] == []


def test_a_path_outside_the_remote_workspace_is_refused(
    workspace: RemoteWorkspace, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere.txt"
    outside.write_text("outside\n")
    with pytest.raises(SafeOpenError) as raised:
        _prepare(workspace, outside)
    assert raised.value.reason == "outside"


def test_the_same_preparation_previews_a_file_of_a_local_workspace(
    tmp_path: Path,
) -> None:
    from app.workspace.choose import local_workspace

    root = tmp_path / "here"
    root.mkdir()
    (root / "main.py").write_text("print('here')\n")
    (root / ".env").write_text("API_KEY=secret\n")
    (root / "escape.py").symlink_to(tmp_path / "elsewhere.py")
    (tmp_path / "elsewhere.py").write_text("print('not for the preview')\n")
    here = local_workspace(root)
    prepared = open_remote_preview(here, "main.py").result(60)
    assert prepared.source.path == str(root / "main.py")
    assert prepared.file.read() == b"print('here')\n"
    prepared.close()
    for name, reason in ((".env", "denied"), ("escape.py", "symlink")):
        with pytest.raises(SafeOpenError) as raised:
            open_remote_preview(here, name).result(60)
        assert raised.value.reason == reason


def test_a_prepared_preview_that_is_never_shown_lets_go_of_its_file(
    workspace: RemoteWorkspace, remote_root: Path
) -> None:
    prepared: RemotePreview = _prepare(workspace, remote_root / "notes.md")
    fd = prepared.file.fd
    prepared.close()
    with pytest.raises(OSError):
        os.fstat(fd)
    with pytest.raises(RuntimeError):
        prepared.create(None)


# -- an HTML report, in the sandbox ----------------------------------------------


@pytest.mark.webengine
@pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
def test_an_html_report_with_css_script_and_image_from_the_remote_host(
    show: Show, qtbot: QtBot, remote_root: Path, tmp_path: Path
) -> None:
    report = remote_root / "report"
    (report / "style.css").write_text("#h { color: rgb(9, 8, 7); }\n")
    (report / "app.js").write_text("document.title = 'ran ' + 6 * 7;\n")
    (report / "chart.png").write_bytes(_png(7, 3))
    (report / ".env").write_text("API_KEY=secret\n")
    (tmp_path / "local-only.css").write_text("#h { color: red; }\n")
    (report / "index.html").write_text(
        "<!doctype html><html><head><link rel=stylesheet href=style.css>"
        "<link rel=stylesheet href=.env>"
        "<script src=app.js></script></head>"
        "<body><h1 id=h>Report</h1><img id=i src=chart.png></body></html>"
    )
    widget = show(report / "index.html")
    assert widget.is_loaded()
    lines = widget.info_bar.lines()
    assert any(line.startswith("Left out: .env") for line in lines), lines
    assert len(lines) == 1, lines

    def run(script: str) -> Any:
        box: list[Any] = []
        widget.page.runJavaScript(script, 0, box.append)
        qtbot.waitUntil(lambda: bool(box), timeout=10_000)
        return box[0]

    qtbot.waitUntil(lambda: run("document.title") == "ran 42", timeout=10_000)
    assert run("getComputedStyle(document.getElementById('h')).color") == (
        "rgb(9, 8, 7)"
    )
    qtbot.waitUntil(
        lambda: run("document.getElementById('i').naturalWidth") == 7, timeout=10_000
    )
    assert run("location.protocol") == "http:"  # the capability server, not file:
    assert widget.blocked_urls() == []


@pytest.mark.webengine
@pytest.mark.skipif(ROOT, reason="QtWebEngine cannot sandbox as root")
def test_an_svg_from_the_remote_host_is_an_image_in_a_page_without_script(
    show: Show, qtbot: QtBot, remote_root: Path
) -> None:
    path = remote_root / "diagram.svg"
    path.write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="30" height="20">'
        '<rect width="30" height="20" fill="teal"/></svg>'
    )
    widget = show(path)
    assert type(widget).__name__ == "WebPreviewWidget"
    assert widget.is_loaded()
    from PySide6.QtWebEngineCore import QWebEngineSettings

    settings = widget.page.settings()
    assert not settings.testAttribute(QWebEngineSettings.WebAttribute.JavascriptEnabled)
    box: list[Any] = []
    widget.page.toHtml(box.append)
    qtbot.waitUntil(lambda: bool(box), timeout=10_000)
    assert '<img src="diagram.svg" alt="diagram.svg">' in box[0]
    widget.source_button.click()
    assert 'fill="teal"' in widget.source_text()


def test_cancelling_a_preparation_cancels_the_fetch_it_waits_for(
    workspace: RemoteWorkspace, remote_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading
    from concurrent.futures import Future

    asked = threading.Event()
    fetch: Future[Any] = Future()

    def stuck(*_arguments: Any, **_keywords: Any) -> Future[Any]:
        asked.set()
        return fetch  # a host that never answers

    monkeypatch.setattr(workspace, "snapshot", stuck)
    preparing = open_remote_preview(
        ssh_workspace(workspace), str(remote_root / "notes.md")
    )
    assert asked.wait(30)
    assert not preparing.done()
    assert preparing.cancel()
    assert fetch.cancelled()
    assert preparing.cancelled()
