"""The main window: conversations, chat, workspace, remembered layout, commands."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from app.core.store import Store
from app.ui.window.main_window import MainWindow


@pytest.fixture(scope="module")
def demo_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from app.demo.conversation import play_demo

    data = tmp_path_factory.mktemp("demo-data")
    with Store(data) as store:
        play_demo(store, data / "demo-workspace")
    return data


@pytest.fixture
def window(qtbot, demo_data):
    store = Store(demo_data)
    win = MainWindow(store, demo_data)
    qtbot.addWidget(win)
    win.refresh_conversations()
    win.show_conversation(store.conversations()[-1].id)
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.close()
    store.close()


def test_window_shows_the_demo_conversation_in_all_three_panes(window, qtbot):
    assert window.conversations.model().rowCount() >= 1
    assert window.chat.model().rowCount() > 10
    assert window.windowTitle().startswith("Quarterly sales analysis")
    qtbot.waitUntil(window.is_loaded, timeout=10_000)


def test_without_a_model_the_input_says_how_to_configure_one(window):
    assert "deliverables chat --model" in window.chat_input._edit.placeholderText()
    assert window.chat_input._edit.isReadOnly()


def test_splitter_sizes_are_remembered(qtbot, demo_data):
    store = Store(demo_data)
    first = MainWindow(store, demo_data)
    qtbot.addWidget(first)
    first.show()
    qtbot.waitExposed(first)
    first.splitter.setSizes([150, 500, 700])
    sizes = first.splitter.sizes()
    first.close()
    second = MainWindow(store, demo_data)
    qtbot.addWidget(second)
    second.show()
    qtbot.waitExposed(second)
    assert second.splitter.sizes() == sizes
    second.close()
    store.close()


def test_a_broken_policy_file_denies_everything_and_says_why(
    window, tmp_path, monkeypatch
):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    (tmp_path / "deliverables").mkdir()
    (tmp_path / "deliverables" / "policy.toml").write_text("[deny\n")

    policy = window.current_policy()

    assert policy.denying_rule("/home/someone/report.html") is not None
    assert window.notice_bar.kind == "error"
    assert "policy.toml" in window.notice_bar.text()


def test_every_interactive_element_has_an_accessible_name(window):
    from PySide6.QtWidgets import QAbstractButton, QAbstractItemView, QLineEdit

    missing = [
        widget
        for kind in (QAbstractButton, QAbstractItemView, QLineEdit)
        for widget in window.findChildren(kind)
        if widget.isVisible()
        and not widget.accessibleName()
        and not (isinstance(widget, QAbstractButton) and widget.text())
    ]
    assert missing == []


def _run_cli(*args: str, timeout: int = 180) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        check=False,
    )


def test_demo_command_saves_a_screenshot_and_exits_zero(tmp_path):
    png = tmp_path / "demo.png"
    result = _run_cli(
        "demo", "--data-dir", str(tmp_path / "data"), "--screenshot", str(png)
    )
    assert result.returncode == 0, result.stderr
    image = QImage(str(png))
    assert image.width() >= 800
    assert image.height() >= 500


def test_open_command_starts_without_heavy_modules(tmp_path, demo_data):
    code = (
        "import sys\n"
        "from app.cli import main\n"
        "code = main(sys.argv[1:])\n"
        "heavy = [m for m in ('PySide6.QtWebEngineWidgets', 'PySide6.QtMultimedia',"
        " 'pymupdf', 'langchain', 'langchain_core', 'asyncssh', 'app.importers')"
        " if m in sys.modules]\n"
        "print('HEAVY', heavy)\n"
        "sys.exit(code)\n"
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    png = tmp_path / "open.png"
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            code,
            "open",
            "--data-dir",
            str(demo_data),
            "--screenshot",
            str(png),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "HEAVY []" in result.stdout
    assert png.exists()


def test_view_command_opens_files_into_the_workspace(tmp_path):
    folder = tmp_path / "files"
    folder.mkdir()
    (folder / "a.txt").write_text("alpha\n")
    (folder / "b.txt").write_text("beta\n")
    png = tmp_path / "view.png"
    result = _run_cli(
        "view",
        str(folder / "a.txt"),
        str(folder / "b.txt"),
        "--data-dir",
        str(tmp_path / "data"),
        "--screenshot",
        str(png),
    )
    assert result.returncode == 0, result.stderr
    assert png.exists()


def _deliverable_refs(window):
    from app.core.chat.blocks import DeliverableBlock

    model = window.chat.chat_model()
    return {
        block.entry.name: block.ref
        for block in (model.block(row) for row in range(model.rowCount()))
        if isinstance(block, DeliverableBlock) and block.entry is not None
    }


def test_clicking_a_card_opens_it_and_show_source_opens_its_text(window, qtbot):
    from previewers.markdown.widget import MarkdownPreviewWidget
    from previewers.text.widget import CodePreviewWidget

    refs = _deliverable_refs(window)
    assert {"summary.md", "clean_data.py", "report.pdf", "tone.wav"} <= set(refs)
    window.chat.deliverableActivated.emit(refs["summary.md"])
    qtbot.waitUntil(window.workspace.is_loaded, timeout=10_000)
    assert isinstance(window.workspace.current_preview(), MarkdownPreviewWidget)
    assert window.file_actions.perform("show_source", refs["summary.md"])
    qtbot.waitUntil(window.workspace.is_loaded, timeout=10_000)
    assert isinstance(window.workspace.current_preview(), CodePreviewWidget)
    assert window.workspace.tab_count() == 2


def test_a_viewer_is_loaded_once_its_file_is_shown(qtbot, tmp_path):
    folder = tmp_path / "files"
    folder.mkdir()
    (folder / "a.txt").write_text("alpha\n")
    store = Store(tmp_path / "data")
    win = MainWindow(store, tmp_path / "data")
    qtbot.addWidget(win)
    win.show()
    win.view_files([str(folder / "a.txt")], folder)
    qtbot.waitUntil(win.is_loaded, timeout=10_000)
    assert win.workspace.current_preview() is not None
    win.close()
    store.close()


def test_a_new_conversation_says_what_to_do_and_names_its_model(qtbot, tmp_path):
    from app.ui.chat.empty_state import empty_state_lines

    store = Store(tmp_path / "data")
    folder = tmp_path / "proj"
    folder.mkdir()
    cid = store.create_conversation("New", str(folder)).id
    win = MainWindow(store, tmp_path / "data", model_spec="ollama:llama3.2")
    qtbot.addWidget(win)
    win.show_conversation(cid)
    win.show()
    qtbot.waitUntil(lambda: win.chat.is_loaded(), timeout=5000)
    heading, text, facts = empty_state_lines(
        conversation=True, workspace=str(folder), model="ollama:llama3.2"
    )
    assert heading == "Ask the agent for something"
    assert "cards" in text
    assert facts[-1] == "Model: ollama:llama3.2"
    assert any("proj" in fact for fact in facts)
    assert win.chat.model().rowCount() == 0
    win.close()
    store.close()


def test_view_shows_the_viewed_folder_never_a_stored_conversation(
    qtbot, demo_data, tmp_path
):
    folder = tmp_path / "viewed"
    folder.mkdir()
    (folder / "a.txt").write_text("alpha\n")
    store = Store(demo_data)
    win = MainWindow(store, demo_data)
    qtbot.addWidget(win)
    win.refresh_conversations()
    refusals = win.view_files([str(folder / "a.txt")], folder)
    win.show()
    qtbot.waitExposed(win)
    win.conversations.setFocus()
    qtbot.waitUntil(win.is_loaded, timeout=10_000)
    assert refusals == []
    assert win.workspace.tree.tree_model.root == str(folder.resolve())
    assert not win.chat_column.isVisible()
    assert win.current_conversation_id() is None
    win.close()
    store.close()


def test_a_refused_file_is_shown_in_the_viewer_itself(qtbot, tmp_path):
    folder = tmp_path / "viewed"
    folder.mkdir()
    (folder / ".env").write_text("SECRET=1\n")
    store = Store(tmp_path / "data")
    win = MainWindow(store, tmp_path / "data")
    qtbot.addWidget(win)
    refusals = win.view_files([str(folder / ".env")], folder)
    win.show()
    qtbot.waitExposed(win)
    assert len(refusals) == 1 and "denied by read-deny rule" in refusals[0]
    assert win.notice_bar.isVisible()
    assert win.notice_bar.text() == refusals[0]
    assert win.workspace.tabs._empty_message == refusals[0]
    win.close()
    store.close()


def test_the_first_window_shows_the_start_of_the_last_turn(window, qtbot):
    from app.core.chat.blocks import UserBlock

    qtbot.waitUntil(window.chat.is_loaded, timeout=10_000)
    model = window.chat.chat_model()
    last_user = max(
        r for r in range(model.rowCount()) if isinstance(model.block(r), UserBlock)
    )
    top = window.chat.indexAt(window.chat.viewport().rect().topLeft())
    assert top.row() == last_user


def test_dragging_a_card_out_hands_over_a_private_copy(window, monkeypatch):
    dragged = []
    monkeypatch.setattr(window, "start_drag", lambda data: dragged.append(data.urls()))
    refs = _deliverable_refs(window)

    window.chat.deliverableDragged.emit(refs["summary.md"])

    [[url]] = dragged
    copy = Path(url.toLocalFile())
    assert copy.name == "summary.md"
    workspace = Path(
        window._store.conversation(refs["summary.md"].conversation_id).workspace
    )
    assert not copy.is_relative_to(workspace)
    [original] = workspace.rglob("summary.md")
    assert copy.read_bytes() == original.read_bytes()


@pytest.fixture(params=["light", "dark"])
def scheme_window(request, qtbot, demo_data, qapp):
    from app.ui.window.application import dark_palette
    from app.ui.window.style import AppStyle

    before, style = qapp.palette(), qapp.style().name()
    qapp.setStyle(AppStyle())  # the app's own style, as create_application sets it
    if request.param == "dark":
        qapp.setPalette(dark_palette())
    store = Store(demo_data)
    win = MainWindow(store, demo_data)
    qtbot.addWidget(win)
    win.resize(1440, 900)
    win.refresh_conversations()
    win.show_conversation(store.conversations()[-1].id)
    win.show()
    qtbot.waitExposed(win)
    qtbot.waitUntil(win.is_loaded, timeout=10_000)
    yield win, request.param
    win.close()
    store.close()
    qapp.setStyle(style)
    qapp.setPalette(before)


def _image_widths(document) -> list[float]:
    widths = []
    block = document.begin()
    while block.isValid():
        fragments = block.begin()
        while not fragments.atEnd():
            look = fragments.fragment().charFormat()
            if look.isImageFormat():
                widths.append(look.toImageFormat().width())
            fragments += 1
        block = block.next()
    return widths


def _shot(window, tmp_path: Path, name: str) -> Path:
    """Save the window as PNG; to ``DELIVERABLES_SCREENSHOT_DIR`` when set."""
    from PySide6.QtWidgets import QApplication

    folder = Path(os.environ.get("DELIVERABLES_SCREENSHOT_DIR") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    QApplication.processEvents()
    path = folder / f"{name}.png"
    image = window.grab().toImage()
    assert image.save(str(path), "PNG")
    assert QImage(str(path)).size().width() == 1440
    return path


def test_a_new_user_at_1440_by_900_reads_a_pdf_and_a_report_and_folds_panes(
    scheme_window, qtbot, tmp_path
):
    from previewers.markdown.widget import MarkdownPreviewWidget
    from previewers.pdf.widget import PdfPreviewWidget

    window, scheme = scheme_window
    assert window.width() == 1440 and window.height() == 900
    refs = _deliverable_refs(window)

    window.chat.deliverableActivated.emit(refs["report.pdf"])
    qtbot.waitUntil(window.workspace.is_loaded, timeout=10_000)
    pdf = window.workspace.current_preview()
    assert isinstance(pdf, PdfPreviewWidget)
    qtbot.waitUntil(lambda: pdf.pages.zoom >= 0.8, timeout=5_000)  # readable
    assert pdf.fit_width_button.isChecked()
    _shot(window, tmp_path, f"pdf-{scheme}")

    window.chat.deliverableActivated.emit(refs["summary.md"])
    qtbot.waitUntil(window.workspace.is_loaded, timeout=10_000)
    report = window.workspace.current_preview()
    assert isinstance(report, MarkdownPreviewWidget)
    qtbot.waitUntil(lambda: report.view.document().size().width() > 0)
    widths = _image_widths(report.view.document())
    assert widths and max(widths) <= report.view.viewport().width()  # chart fits
    _shot(window, tmp_path, f"report-{scheme}")

    window.menu_actions.conversations.trigger()
    window.menu_actions.tree.trigger()
    assert not window.conversations_panel.isVisible()
    assert not window.workspace.tree.isVisible()
    _shot(window, tmp_path, f"folded-{scheme}")
    window.menu_actions.conversations.trigger()
    window.menu_actions.tree.trigger()
    assert window.conversations_panel.isVisible()
    assert window.workspace.tree.isVisible()


def test_a_new_user_selects_text_in_the_chat(scheme_window, qtbot, tmp_path):
    from app.core.chat.blocks import AssistantTextBlock

    window, scheme = scheme_window
    model = window.chat.chat_model()
    row = next(
        r
        for r in range(model.rowCount())
        if isinstance(model.block(r), AssistantTextBlock) and model.block(r).final
    )
    document = window.chat.document_for_row(row)
    assert document is not None
    plain = document.toPlainText()
    start = plain.index("Revenue")
    end = plain.index("%).", start) + 3
    window.chat.scrollTo(model.index(row))
    window.chat.select_text((row, start), (row, end))
    assert window.chat.selected_text() == plain[start:end]
    _shot(window, tmp_path, f"chat-selection-{scheme}")


def test_image_cards_show_a_thumbnail_and_others_their_icon(window, qtbot, tmp_path):
    from app.core.chat.blocks import DeliverableBlock
    from app.ui.chat.model import ThumbnailRole

    model = window.chat.chat_model()
    rows = {
        model.block(row).entry.name: row
        for row in range(model.rowCount())
        if isinstance(model.block(row), DeliverableBlock) and model.block(row).entry
    }

    def thumbnail(name: str) -> object:
        return model.index(rows[name]).data(ThumbnailRole)

    qtbot.waitUntil(lambda: thumbnail("chart.png") is not None, timeout=10_000)
    image = thumbnail("chart.png")
    assert isinstance(image, QImage) and max(image.width(), image.height()) <= 96
    assert thumbnail("summary.md") is None
    assert thumbnail("diagram.svg") is None  # no decoder runs on SVG
    window.chat.scrollTo(model.index(rows["chart.png"]))
    _shot(window, tmp_path, "thumbnails")


def test_the_window_loads_the_encoding_detector_on_a_worker_once_it_is_up(
    qtbot, demo_data, monkeypatch
):
    import threading

    import app.ui.window.main_window as main_window

    threads: list[bool] = []
    monkeypatch.setattr(
        main_window,
        "prepare_legacy_detection",
        lambda: threads.append(threading.current_thread() is threading.main_thread()),
    )
    store = Store(demo_data)
    win = MainWindow(store, demo_data)
    qtbot.addWidget(win)
    win.show()
    assert threads == []  # not on the way to the first paint
    qtbot.waitUntil(lambda: threads != [], timeout=5000)
    assert threads == [False]
    win.close()
    store.close()


def _window_on(qtbot, store, data, conversation_id):
    win = MainWindow(store, data)
    qtbot.addWidget(win)
    win.refresh_conversations()
    win.show_conversation(conversation_id)
    win.show()
    return win


def test_a_page_in_sight_starts_the_web_engine_once_the_window_is_idle(
    qtbot, demo_data, tmp_path, monkeypatch
):
    import app.ui.window.main_window as main_window

    started: list[int] = []
    monkeypatch.setattr(
        main_window, "prepare_web_engine", lambda: started.append(1) or True
    )
    store = Store(demo_data)
    # The demo presents an HTML report.
    win = _window_on(qtbot, store, demo_data, store.conversations()[-1].id)
    assert started == []  # not before the window is up and idle
    qtbot.waitUntil(lambda: started != [], timeout=5000)
    win.close()
    store.close()
    # No page or SVG among the cards or in the workspace: nothing starts.
    data = tmp_path / "empty"
    empty = Store(data)
    folder = tmp_path / "workspace"
    folder.mkdir()
    (folder / "notes.txt").write_text("notes\n")
    conversation = empty.create_conversation("plain", str(folder))
    started.clear()
    other = _window_on(qtbot, empty, data, conversation.id)
    qtbot.wait(2000)
    assert started == []
    other.close()
    # A listing that shows one does.
    (folder / "page.html").write_text("<p>a page</p>")
    third = _window_on(qtbot, empty, data, conversation.id)
    qtbot.waitUntil(lambda: started == [1], timeout=5000)
    third.close()
    empty.close()


def test_the_colour_scheme_chosen_in_settings_applies_at_once_and_is_kept(
    qtbot, tmp_path, qapp, monkeypatch
):
    from PySide6.QtGui import QPalette

    from app.core.store.client_conversations import conversation_rule
    from app.ui.window.application import color_scheme
    from app.ui.window.settings_dialog import SettingsDialog

    monkeypatch.delenv("DELIVERABLES_COLOR_SCHEME", raising=False)
    before = qapp.palette()

    def choose_dark(dialog: SettingsDialog) -> int:
        dialog._scheme.setCurrentIndex(dialog._scheme.findData("dark"))
        dialog._per_session.setChecked(True)
        return 1

    monkeypatch.setattr(SettingsDialog, "exec", choose_dark)
    store = Store(tmp_path / "data")
    try:
        win = MainWindow(store, tmp_path / "data")
        qtbot.addWidget(win)
        assert qapp.palette().color(QPalette.ColorRole.Window).lightness() > 180
        win._open_settings()
        # No restart: the running app is dark now.
        assert qapp.palette().color(QPalette.ColorRole.Window).lightness() < 60
        color_scheme(qapp).choose("light")
        later = MainWindow(store, tmp_path / "data")
        qtbot.addWidget(later)
        # The next window (the next start) reads the choice back.
        assert color_scheme(qapp).chosen() == "dark"
        # The MCP server reads its part from the store.
        assert conversation_rule(store).new_per_session
        assert qapp.palette().color(QPalette.ColorRole.Window).lightness() < 60
    finally:
        color_scheme(qapp).choose("system")
        qapp.setPalette(before)
        store.close()


def test_the_tree_menu_has_the_card_actions_and_saves_a_checked_copy(
    qtbot, tmp_path, monkeypatch
):
    from PySide6.QtWidgets import QMenu

    from app.ui.cards.save_copy import SaveCopyDialogs
    from tests.app.ui.workspace.test_tree import right_click

    folder = tmp_path / "viewed"
    folder.mkdir()
    (folder / "report.md").write_text("# Report\n")
    store = Store(tmp_path / "data")
    win = MainWindow(store, tmp_path / "data")
    qtbot.addWidget(win)
    win.view_files([str(folder / "report.md")], folder)
    win.show()
    qtbot.waitExposed(win)
    shown: list[QMenu] = []
    monkeypatch.setattr(win, "show_menu", lambda menu, _at: shown.append(menu))
    target = tmp_path / "kept" / "report.md"
    target.parent.mkdir()
    answers = SaveCopyDialogs(
        choose_target=lambda *_args: str(target), confirm_changed=lambda *_: True
    )
    monkeypatch.setattr(win.file_actions._saver, "_dialogs", answers)
    tree = win.workspace.tree
    item = tree.tree_model.find_item(str(folder.resolve() / "report.md"))
    assert item is not None

    right_click(tree, tree.visualRect(item.index()).center())

    assert len(shown) == 1
    actions = {str(a.data()): a for a in shown[0].actions() if a.data()}
    for wanted in ("open", "show_source", "copy_path", "save_copy"):
        assert wanted in actions
    assert "reveal" not in actions  # the row is in the tree already
    assert "open_native" in actions  # the workspace is on this computer
    # Checked again when chosen: a file swapped since the menu opened is refused.
    (folder / "report.md").unlink()
    (folder / "report.md").symlink_to(tmp_path / "data")
    refusals: list[str] = []
    win.file_actions.refused.connect(refusals.append)
    actions["save_copy"].trigger()
    assert refusals and "symbolic link" in refusals[0]
    assert not target.exists()

    (folder / "report.md").unlink()
    (folder / "report.md").write_text("# Report, again\n")
    with qtbot.waitSignal(win.file_actions.notice, timeout=10_000):
        actions["save_copy"].trigger()
    assert target.read_text() == "# Report, again\n"
    win.close()
    store.close()


def test_a_tab_opened_from_a_card_acts_through_the_cards_check(
    window, qtbot, monkeypatch
):
    from app.ui.workspace.tabs import tab_menu

    refs = _deliverable_refs(window)
    window.chat.deliverableActivated.emit(refs["summary.md"])
    qtbot.waitUntil(window.workspace.is_loaded, timeout=10_000)
    page = window.workspace.tabs.current_page()
    assert page is not None
    actions = [action for action, _text in tab_menu(page)]
    assert "show_source" in actions and "save_copy" in actions
    by_card, by_path = [], []
    monkeypatch.setattr(
        window.file_actions, "perform", lambda *args: by_card.append(args)
    )
    monkeypatch.setattr(
        window.file_actions, "perform_path", lambda *args: by_path.append(args)
    )

    window.workspace.tabs.menuActionRequested.emit("save_copy", page)

    # Checked against its record (trusted, same file), not as a bare path.
    assert by_card == [("save_copy", refs["summary.md"])]
    assert by_path == []
