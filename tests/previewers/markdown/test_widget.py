"""The Markdown preview: safe rendering, outline, workspace-only images, links."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QColor, QImage, QTextBlock, QTextCursor
from pytestqt.qtbot import QtBot

from app.core.trust.policy import Policy, Rule
from previewers import registry
from previewers.context import PreviewContext
from previewers.markdown import MarkdownPreviewer
from previewers.markdown.widget import MarkdownPreviewWidget
from previewers.widget import PreviewWidget
from tests.data.corpus import png_header
from tests.previewers.conftest import OpenPreview


@pytest.fixture(autouse=True)
def markdown_registered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        registry.REGISTRY, "_table", [MarkdownPreviewer(), *registry.REGISTRY._table]
    )


class Where:
    """The context previews are opened with; a test may point it elsewhere."""

    def __init__(self, context: PreviewContext) -> None:
        self.context = context


@pytest.fixture
def where(tmp_path: Path) -> Where:
    return Where(PreviewContext(root=str(tmp_path), policy_provider=lambda: Policy([])))


@pytest.fixture
def open_preview(open_preview: OpenPreview, where: Where) -> OpenPreview:
    """The shared fixture, shown in a workspace rooted at the test's folder."""

    def make(path: Path, **options: Any) -> PreviewWidget:
        return open_preview(path, context=where.context, **options)

    return make


def _png(path: Path, color: str = "red") -> None:
    image = QImage(40, 20, QImage.Format.Format_RGB32)
    image.fill(QColor(color))
    assert image.save(str(path), "PNG")


def _open(qtbot: QtBot, open_preview: OpenPreview, path: Path) -> MarkdownPreviewWidget:
    preview = open_preview(path)
    assert isinstance(preview, MarkdownPreviewWidget)
    qtbot.waitUntil(preview.is_loaded)
    return preview


def _image(preview: MarkdownPreviewWidget, number: int) -> QImage:
    resource = preview.document.loadResource(2, QUrl(f"mdimg:{number}"))
    assert isinstance(resource, QImage)
    return resource


def test_renders_text_tables_and_an_outline(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "notes.md"
    path.write_text(
        "# Title\n\nSome **bold** text.\n\n## Part\n\n|a|b|\n|-|-|\n|1|2|\n"
    )
    preview = _open(qtbot, open_preview, path)
    assert "Some bold text." in preview.text()
    assert preview.headings() == ["Title", "Part"]
    assert preview.document.toHtml().count("<table") == 1


def test_raw_html_stays_literal_text(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "evil.md"
    path.write_text('<img src="/etc/passwd"><b>bold?</b>\n')
    preview = _open(qtbot, open_preview, path)
    assert '<img src="/etc/passwd"><b>bold?</b>' in preview.text()
    assert not any("passwd" in url for url in preview.document.requested)


def test_workspace_image_is_shown(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    _png(tmp_path / "chart.png")
    path = tmp_path / "notes.md"
    path.write_text("![chart](chart.png)\n")
    preview = _open(qtbot, open_preview, path)
    image = _image(preview, 0)
    assert (image.width(), image.height()) == (40, 20)
    assert image.pixelColor(5, 5) == QColor("red")
    assert preview.notice_text() == ""


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ("https://example.org/a.png", "https images"),
        ("../outside.png", "outside the workspace"),
        ("vector.svg", "not a PNG"),
        ("link.png", "symbolic link"),
        ("denied/secret.png", "read-deny"),
        ("missing.png", "no longer exists"),
    ],
)
def test_other_images_get_a_placeholder(
    qtbot: QtBot,
    open_preview: OpenPreview,
    where: Where,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    source: str,
    reason: str,
) -> None:
    root = tmp_path / "ws"
    (root / "denied").mkdir(parents=True)
    _png(tmp_path / "outside.png")
    _png(root / "denied" / "secret.png")
    (root / "vector.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"/>')
    (root / "link.png").symlink_to(tmp_path / "outside.png")
    where.context = PreviewContext(
        root=str(root), policy_provider=lambda: Policy([Rule("denied", "test")])
    )
    path = root / "notes.md"
    path.write_text(f"![pic]({source})\n")
    preview = _open(qtbot, open_preview, path)
    image = _image(preview, 0)
    # The placeholder is a drawn box, never the 40x20 red picture.
    assert image.height() == 36 and image.pixelColor(5, 5) != QColor("red")
    loaded = preview.document._images[0]
    assert loaded.image is None and reason in loaded.reason
    assert "1 image(s) not shown" in preview.notice_text()


def test_unknown_resources_never_read_the_named_file(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.png"
    _png(secret)
    path = tmp_path / "notes.md"
    path.write_text("text\n")
    preview = _open(qtbot, open_preview, path)
    resource = preview.view.loadResource(2, QUrl.fromLocalFile(str(secret)))
    assert isinstance(resource, QImage) and resource.height() == 36


def test_anchor_links_scroll_without_asking(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "long.md"
    body = "\n\n".join(f"para {n}" for n in range(200))
    path.write_text(f"[down](#end)\n\n{body}\n\n# End\n")
    preview = _open(qtbot, open_preview, path)
    preview.resize(600, 400)
    preview.show()
    asked: list[str] = []
    preview.ask_open = lambda _parent, url: asked.append(url) or False
    preview.view.anchorClicked.emit(QUrl("#end"))
    qtbot.waitUntil(lambda: preview.view.verticalScrollBar().value() > 0)
    assert asked == []


def test_web_links_ask_and_open_only_when_confirmed(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "links.md"
    path.write_text("[site](https://example.org/)\n")
    preview = _open(qtbot, open_preview, path)
    answers = [False, True]
    opened: list[str] = []
    preview.ask_open = lambda _parent, _url: answers.pop(0)
    preview.open_url = lambda url: opened.append(url.toString()) or True
    preview.view.anchorClicked.emit(QUrl("https://example.org/"))
    assert opened == []
    preview.view.anchorClicked.emit(QUrl("https://example.org/"))
    assert opened == ["https://example.org/"]


@pytest.mark.parametrize("url", ["../report/index.html", "file:///etc/hosts"])
def test_other_links_are_never_opened(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path, url: str
) -> None:
    path = tmp_path / "links.md"
    path.write_text(f"[x]({url})\n")
    preview = _open(qtbot, open_preview, path)
    told: list[str] = []
    opened: list[QUrl] = []
    preview.tell = lambda _parent, message: told.append(message)
    preview.ask_open = lambda _parent, _url: True
    preview.open_url = lambda link: opened.append(link) or True
    preview.view.anchorClicked.emit(QUrl(url))
    assert opened == [] and told and "not opened" in told[0]


def test_source_toggle_shows_the_file_text(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "notes.md"
    path.write_text("# Title\n\n**bold**\n")
    preview = _open(qtbot, open_preview, path)
    preview.show_source(True)
    assert preview.stack.currentWidget() is preview.source_text
    assert preview.source_text.toPlainText() == "# Title\n\n**bold**\n"
    preview.show_source(False)
    assert preview.stack.currentWidget() is preview.view


def _coloured_lines(view: Any) -> int:
    """How many of a text view's lines hold a run in a colour of its own."""
    coloured, block = 0, view.document().begin()
    while block.isValid():
        plain = view.palette().text().color()
        coloured += any(
            run.format.foreground().color() != plain for run in block.layout().formats()
        )
        block = block.next()
    return coloured


def test_the_source_is_coloured_as_show_source_colours_it(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path, where: Where
) -> None:
    from previewers.text.view import CodeTextView

    where.context = replace(where.context, source_text=registry.coloured_source)
    path = tmp_path / "notes.md"
    path.write_text(
        "# Title\n\nSome **bold** text.\n\n```python\ndef f():\n    pass\n```\n"
    )
    preview = _open(qtbot, open_preview, path)
    preview.show_source(True)
    assert isinstance(preview.source_text, CodeTextView)
    assert preview.source_text.toPlainText() == path.read_text()
    preview.resize(640, 420)
    preview.show()
    qtbot.waitExposed(preview)
    qtbot.waitUntil(lambda: _coloured_lines(preview.source_text) >= 3)


def test_the_source_is_coloured_once_and_only_when_it_is_shown(
    qtbot: QtBot,
    open_preview: OpenPreview,
    tmp_path: Path,
    where: Where,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from previewers.text.source_colours import ColouredSource

    asked: list[str] = []
    colouring = ColouredSource.colouring

    def counted(self: ColouredSource) -> Any:
        asked.append(self.widget.toPlainText())
        return colouring(self)

    monkeypatch.setattr(ColouredSource, "colouring", counted)
    where.context = replace(where.context, source_text=registry.coloured_source)
    path = tmp_path / "notes.md"
    path.write_text("# Title\n\n**bold**\n")
    preview = _open(qtbot, open_preview, path)
    assert asked == []  # rendered only: the source is never parsed
    preview.show_source(True)
    preview.show_source(False)
    preview.show_source(True)
    assert asked == ["# Title\n\n**bold**\n"]


def test_without_a_maker_the_source_is_plain_text(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    from previewers.text.view import CodeTextView

    path = tmp_path / "notes.md"
    path.write_text("# Title\n\n**bold**\n")
    preview = _open(qtbot, open_preview, path)
    assert not isinstance(preview.source_text, CodeTextView)
    assert _coloured_lines(preview.source_text) == 0


@pytest.mark.parametrize("data", [b"", b"caf\xe9 **ok**\n"])
def test_empty_and_non_utf8_files_still_preview(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path, data: bytes
) -> None:
    path = tmp_path / "odd.md"
    path.write_bytes(data)
    preview = _open(qtbot, open_preview, path)
    if data:
        # Not UTF-8: read in the legacy encoding its bytes fit, and said so.
        assert "caf\u00e9 ok" in preview.text()
        assert "not UTF-8; it is shown as" in preview.notice_text()


def test_importing_the_previewers_loads_no_heavy_module() -> None:
    code = (
        "import sys, previewers.markdown.widget, previewers.json.widget,"
        " previewers.csv.widget\n"
        "heavy = [m for m in ('pygments', 'markdown_it', 'PySide6.QtWebEngineCore',"
        " 'PySide6.QtMultimedia', 'pymupdf') if m in sys.modules]\n"
        "print(heavy)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert result.stdout.strip() == "[]"


def test_the_documents_are_built_off_the_gui_thread(
    qtbot: QtBot,
    open_preview: OpenPreview,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import threading

    from PySide6.QtGui import QTextDocument

    from previewers.markdown.document import MarkdownDocument

    threads: list[bool] = []
    set_html, set_plain = MarkdownDocument.setHtml, QTextDocument.setPlainText

    def html_recorded(self: MarkdownDocument, html: str) -> None:
        threads.append(threading.current_thread() is threading.main_thread())
        set_html(self, html)

    def plain_recorded(self: QTextDocument, text: str) -> None:
        threads.append(threading.current_thread() is threading.main_thread())
        set_plain(self, text)

    monkeypatch.setattr(MarkdownDocument, "setHtml", html_recorded)
    monkeypatch.setattr(QTextDocument, "setPlainText", plain_recorded)
    path = tmp_path / "soup.md"
    path.write_text("*a **b " * 2000 + "c** d* " * 2000 + "\n\n# End\n")
    preview = _open(qtbot, open_preview, path)
    assert threads == [False, False]
    assert preview.document.thread() is preview.thread()
    assert preview.view.document() is preview.document
    assert preview.source_text.toPlainText().startswith("*a **b")
    assert preview.headings() == ["End"]


def test_a_render_over_its_budget_shows_the_text_with_a_notice(
    qtbot: QtBot,
    open_preview: OpenPreview,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from app.formats import markdown_html

    monkeypatch.setattr(markdown_html, "RENDER_BUDGET_S", 0.0)
    path = tmp_path / "comment.md"
    path.write_text("<!--" + "a\n" * 20_000)
    preview = _open(qtbot, open_preview, path)
    assert preview.stack.currentWidget() is preview.source_text
    assert not preview.source_button.isEnabled()
    assert "too complex to render in time" in preview.notice_text()
    assert preview.source_text.toPlainText().startswith("<!--a\n")


def test_the_outline_scrolls_to_its_heading(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "long.md"
    body = "\n\n".join(f"para {n}" for n in range(200))
    path.write_text(f"# Same\n\n{body}\n\n# Same\n\n{body}\n")
    preview = _open(qtbot, open_preview, path)
    preview.resize(600, 400)
    preview.show()
    assert preview.headings() == ["Same", "Same"]
    preview.outline.clicked.emit(preview.outline_model.index(1))
    bar = preview.view.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.value() > 0)
    cursor = preview.view.textCursor()
    assert cursor.block().text() == "Same" and cursor.blockNumber() > 100


def test_a_huge_image_is_refused_from_its_header_before_any_decode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from previewers.markdown import document

    (tmp_path / "huge.png").write_bytes(png_header(60_000, 60_000))

    def no_decoder(*_args: object) -> None:
        raise AssertionError("the image was handed to a decoder")

    monkeypatch.setattr(document, "QImageReader", no_decoder)
    folder = str(tmp_path)
    loaded = document.load_image("huge.png", folder, folder, Policy(()))
    assert loaded.image is None
    assert loaded.reason == "the image has too many pixels"


def _laid_out_image_widths(preview: MarkdownPreviewWidget) -> list[float]:
    widths = []
    block = preview.document.begin()
    while block.isValid():
        fragments = block.begin()
        while not fragments.atEnd():
            look = fragments.fragment().charFormat()
            if look.isImageFormat():
                widths.append(look.toImageFormat().width())
            fragments += 1
        block = block.next()
    return widths


def test_a_wide_image_is_scaled_to_the_view_and_a_small_one_kept(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    wide = QImage(700, 350, QImage.Format.Format_RGB32)
    wide.fill(QColor("navy"))
    assert wide.save(str(tmp_path / "wide.png"), "PNG")
    _png(tmp_path / "small.png")
    path = tmp_path / "notes.md"
    path.write_text("![wide](wide.png)\n\n![small](small.png)\n")
    preview = _open(qtbot, open_preview, path)
    preview.resize(420, 500)
    preview.show()
    qtbot.waitExposed(preview)

    room = preview.view.viewport().width()
    wide_width, small_width = _laid_out_image_widths(preview)
    assert 0 < wide_width <= room < 700
    assert small_width == 40
    assert preview.view.horizontalScrollBar().maximum() == 0

    preview.resize(1000, 500)
    qtbot.waitUntil(lambda: _laid_out_image_widths(preview)[0] == 700)


def test_a_legacy_encoded_document_is_decoded_and_its_encoding_named(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "notes.md"
    path.write_bytes("# Café crème\n\nDéjà vu à Noël, naïve résumé.\n".encode("cp1252"))
    preview = _open(qtbot, open_preview, path)
    assert preview.headings() == ["Café crème"]
    assert "Déjà vu à Noël" in preview.view.toPlainText()
    assert "\ufffd" not in preview.view.toPlainText()
    assert "not UTF-8; it is shown as" in preview.notice_text()


def test_fitting_images_visits_only_the_images_the_worker_found(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    _png(tmp_path / "small.png")
    path = tmp_path / "notes.md"
    path.write_text("# Title\n\n" + "Some text.\n\n" * 50 + "![small](small.png)\n")
    preview = _open(qtbot, open_preview, path)
    document = preview.document
    assert len(document.image_positions) == 1
    assert document.characterAt(document.image_positions[0]) == "\ufffc"

    def no_walk() -> QTextBlock:
        raise AssertionError("the view walked the document's blocks")

    # Resizing refits on the GUI thread: it must not walk 50,000 blocks.
    document.begin = no_walk  # type: ignore[method-assign]
    preview.resize(300, 400)
    preview.view.fit_images()
    assert _laid_out_image_widths_at(preview, document.image_positions) == [40.0]


def test_a_document_without_images_is_not_walked_to_fit_them(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "notes.md"
    path.write_text("# Same\n\n" * 2_000)
    preview = _open(qtbot, open_preview, path)
    assert preview.document.image_positions == ()

    def no_walk() -> QTextBlock:
        raise AssertionError("the view walked the document's blocks")

    preview.document.begin = no_walk  # type: ignore[method-assign]
    assert preview.view.document() is preview.document  # the view sees the patch
    preview.resize(500, 400)
    preview.show()
    qtbot.waitExposed(preview)
    preview.view.fit_images()


def _laid_out_image_widths_at(
    preview: MarkdownPreviewWidget, positions: tuple[int, ...]
) -> list[float]:
    widths = []
    for position in positions:
        cursor = QTextCursor(preview.document)
        cursor.setPosition(position + 1)
        widths.append(cursor.charFormat().toImageFormat().width())
    return widths


def test_a_document_of_too_many_blocks_is_shown_in_part_with_a_notice(
    qtbot: QtBot,
    open_preview: OpenPreview,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from app.formats import markdown_html
    from previewers.markdown.build import SHOWN_IN_PART_NOTICE

    monkeypatch.setattr(markdown_html, "MAX_BLOCKS", 3)
    path = tmp_path / "long.md"
    path.write_text("# One\n\nfirst\n\n# Two\n\nsecond\n\n# Three\n")
    preview = _open(qtbot, open_preview, path)
    assert preview.text().split() == ["One", "first", "Two"]
    assert preview.headings() == ["One", "Two"]
    assert SHOWN_IN_PART_NOTICE in preview.notice_text()
    # The source has all of it.
    assert preview.source_text.toPlainText().endswith("# Three\n")


def test_an_overlong_paragraph_ends_the_document_with_a_notice(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    from previewers.markdown.build import BLOCK_CHAR_LIMIT, SHOWN_IN_PART_NOTICE

    path = tmp_path / "wall.md"
    path.write_text("# Start\n\n" + "word " * BLOCK_CHAR_LIMIT + "\n\n# After\n")
    preview = _open(qtbot, open_preview, path)
    blocks = preview.document.blockCount()
    assert blocks == 2
    assert preview.document.lastBlock().length() <= BLOCK_CHAR_LIMIT + 1
    assert preview.headings() == ["Start"]
    assert SHOWN_IN_PART_NOTICE in preview.notice_text()
    assert "# After" in preview.source_text.toPlainText()


def test_a_normal_document_is_shown_whole_without_the_notice(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    from previewers.markdown.build import SHOWN_IN_PART_NOTICE

    path = tmp_path / "notes.md"
    path.write_text("# A\n\n" + "text " * 1_000 + "\n\n# B\n")
    preview = _open(qtbot, open_preview, path)
    assert preview.headings() == ["A", "B"]
    assert SHOWN_IN_PART_NOTICE not in preview.notice_text()


def test_the_source_document_is_filled_in_slices_with_a_pause_between(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    from previewers.markdown import build

    steps: list[str] = []
    insert = QTextCursor.insertText

    def recorded(cursor: Any, text: str) -> None:
        steps.append("insert")
        insert(cursor, text)

    monkeypatch.setattr(build, "pause", lambda: steps.append("pause"))
    monkeypatch.setattr(QTextCursor, "insertText", recorded)
    text = "a line of the source\n" * (3 * build.SOURCE_SLICE_CHARS // 21)
    document, broken = build.source_document(text)
    assert document.toPlainText() == text and not broken
    # The interpreter is let go before each slice after the first.
    assert len(steps) >= 4 and steps[::2] == ["pause"] * (len(steps) // 2)
    assert steps[1::2] == ["insert"] * (len(steps) // 2)
    assert not document.isUndoAvailable()


def test_a_short_source_is_one_slice(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    from previewers.markdown import build

    paused: list[bool] = []
    monkeypatch.setattr(build, "pause", lambda: paused.append(True))
    for text in ("", "# A\n", "# A\n\ntext"):
        assert build.source_document(text)[0].toPlainText() == text
    assert paused == []


def test_a_very_long_source_line_is_broken_into_blocks_with_a_notice(
    qtbot: QtBot,
    open_preview: OpenPreview,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from previewers.markdown import build

    line = "".join(f"*a{n} **b{n} " for n in range(20_000))
    text = "# Soup\n\n" + line + "\n\nend\n"
    document, broken = build.source_document(text)
    blocks = [document.findBlockByNumber(n) for n in range(document.blockCount())]
    assert broken and max(block.length() for block in blocks) <= (
        build.SOURCE_BLOCK_CHARS + build.SOURCE_SLICE_CHARS + 1
    )
    # Only line breaks were added; every character is there, in order.
    assert document.toPlainText().replace("\n", "") == text.replace("\n", "")
    assert document.toPlainText().endswith("\n\nend\n")
    # Each block is laid out in one call that holds the interpreter: no call
    # takes the whole line.
    inserted: list[int] = []
    insert = QTextCursor.insertText

    def recorded(cursor: Any, piece: str) -> None:
        inserted.append(len(piece))
        insert(cursor, piece)

    monkeypatch.setattr(QTextCursor, "insertText", recorded)
    path = tmp_path / "soup.md"
    path.write_text(text)
    preview = _open(qtbot, open_preview, path)
    assert max(inserted) <= build.SOURCE_BLOCK_CHARS + build.SOURCE_SLICE_CHARS + 1
    assert build.LONG_LINES_NOTICE in preview.notice_text()
    # A short file keeps its lines as they are, without the notice.
    short = tmp_path / "short.md"
    short.write_text("# A\n\n" + "word " * 1000 + "\n")
    assert (
        build.LONG_LINES_NOTICE not in _open(qtbot, open_preview, short).notice_text()
    )
