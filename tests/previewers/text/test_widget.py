"""The code previewer on whole files: highlighting, find, go to line, encodings."""

from __future__ import annotations

import codecs
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pygments.token import Token
from PySide6.QtGui import QGuiApplication, QKeySequence
from PySide6.QtWidgets import QPlainTextEdit
from pytestqt.qtbot import QtBot

from app.core.trust.safeio import open_verified
from previewers import registry
from previewers.source import PreviewSource
from previewers.text import CodePreviewer
from previewers.text.paged_view import MAX_LINE_RANGES
from previewers.text.widget import OVERSIZE_NOTICE, CodePreviewWidget
from tests.previewers.conftest import OpenPreview


@pytest.fixture(autouse=True)
def code_first(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(
        registry.REGISTRY, "_table", [CodePreviewer(), *registry.REGISTRY._table]
    )
    yield


def _loaded(qtbot: QtBot, preview: object) -> CodePreviewWidget:
    assert isinstance(preview, CodePreviewWidget)
    preview.resize(700, 400)
    preview.show()
    qtbot.waitUntil(preview.is_loaded)
    return preview


def _source(tmp_path: Path, name: str, data: bytes, **kw: bool) -> PreviewSource:
    path = tmp_path / name
    path.write_bytes(data)
    with open_verified(str(path)) as file:
        return PreviewSource.from_file(str(path), file, **kw)


@pytest.mark.parametrize(
    ("name", "source_view", "accepted"),
    [
        ("a.py", False, True),
        ("notes.txt", False, True),
        ("page.html", True, True),
        ("readme.md", True, True),
        ("data.json", True, True),
        ("table.csv", True, True),
        ("logo.svg", True, True),
        ("blob.bin", False, False),
    ],
)
def test_accepts_text_kinds_and_show_source_of_any_text(
    tmp_path: Path, name: str, source_view: bool, accepted: bool
) -> None:
    data = b"<svg xmlns='http://www.w3.org/2000/svg'/>" if name.endswith("svg") else b""
    data = data or (b"\x00\x01\x02" * 50 if name.endswith("bin") else b"text = 1\n")
    source = _source(tmp_path, name, data, source_view=source_view)
    assert CodePreviewer().accepts(source) is accepted


def test_mostly_binary_file_goes_to_the_fallback(tmp_path: Path) -> None:
    source = _source(tmp_path, "notes.txt", b"head\x00\x01\x02\x03" * 100)
    assert registry.choose(source).name == "fallback"


def test_only_visible_lines_are_highlighted(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "long.py"
    path.write_text("".join(f"value_{n} = {n}  # note\n" for n in range(3000)))
    preview = _loaded(qtbot, open_preview(path))
    view = preview.code_view
    assert view is not None
    document = view.document()
    assert document.findBlockByNumber(0).layout().formats()
    assert not document.findBlockByNumber(2500).layout().formats()
    preview.go_to_line(2500)
    qtbot.waitUntil(lambda: bool(document.findBlockByNumber(2500).layout().formats()))


def test_a_line_of_thousands_of_tokens_keeps_formats_for_its_first_ones(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "strings.yaml"
    path.write_text("key: [" + '"a", ' * 2_500 + '"a"]\nnext: [1, 2]\n')
    preview = _loaded(qtbot, open_preview(path))
    view = preview.code_view
    assert view is not None
    document = view.document()
    qtbot.waitUntil(lambda: bool(document.findBlockByNumber(1).layout().formats()))
    # Laying out thousands of ranges held the GUI thread: the rest stays plain.
    assert len(document.findBlockByNumber(0).layout().formats()) == MAX_LINE_RANGES
    assert 0 < len(document.findBlockByNumber(1).layout().formats()) < MAX_LINE_RANGES


def test_docstring_far_down_is_highlighted_as_a_string(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    # Line 1500 sits inside a docstring that opens 600 lines above it: lexing a
    # window from the root state would read it as code.
    head = "".join(f"x_{n} = {n}\n" for n in range(1000))
    body = "".join(f"def is_not_code_{n}(): pass\n" for n in range(1000))
    path = tmp_path / "doc.py"
    path.write_text(head + '"""\n' + body + '"""\nend = 1\n')
    preview = _loaded(qtbot, open_preview(path))
    view = preview.code_view
    assert view is not None and view.highlighter is not None
    qtbot.waitUntil(lambda: preview.scan_done, timeout=30_000)
    preview.go_to_line(1601)
    block = view.document().findBlockByNumber(1600)
    qtbot.waitUntil(lambda: bool(block.layout().formats()))
    formats = block.layout().formats()
    # One run, the whole line, in a string's colour (not a keyword's).
    assert len(formats) == 1 and formats[0].length == len(block.text())
    assert view.formats is not None
    string_look = view.formats.palette.look(Token.Literal.String.Double)
    assert formats[0].format.foreground().color().name() == string_look.color.lower()


def test_find_counts_matches_and_steps_with_wraparound(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "words.txt"
    path.write_text("alpha\nbeta ALPHA\ngamma\nalpha beta\n")
    preview = _loaded(qtbot, open_preview(path))
    preview.focus_find()
    preview.find_bar.field.setText("alpha")
    assert preview.find_status() == "3 matches"
    assert preview.find_next("alpha")
    assert preview.find_status() == "1 of 3"
    preview.find_next("alpha")
    assert preview.find_status() == "2 of 3"
    assert preview.current_line() == 2
    preview.find_next("alpha")
    preview.find_next("alpha")
    assert preview.find_status() == "1 of 3"
    preview.find_next("alpha", backward=True)
    assert preview.find_status() == "3 of 3"
    assert not preview.find_next("zeta")
    assert preview.find_status() == "No matches"


def test_find_counts_in_utf16_positions_after_emoji(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "emoji.txt"
    path.write_text("😀😀 needle\n")
    preview = _loaded(qtbot, open_preview(path))
    preview.find_next("needle")
    assert preview.code_view is not None
    assert preview.code_view.textCursor().selectedText() == "needle"


def test_go_to_line_and_copy_selection(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "lines.txt"
    path.write_text("".join(f"line {n}\n" for n in range(1, 501)))
    preview = _loaded(qtbot, open_preview(path))
    preview.focus_go_to_line()
    preview.go_bar.field.setText("420")
    preview.go_bar.field.returnPressed.emit()
    assert preview.current_line() == 420
    assert preview.go_bar.range_label.text() == "of 501"
    view = preview.code_view
    assert view is not None
    qtbot.keySequence(view, QKeySequence.StandardKey.Copy)
    assert QGuiApplication.clipboard().text() == "line 420"


def test_wrap_toggle_and_prose_wraps_by_default(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    prose, code = tmp_path / "a.txt", tmp_path / "a.py"
    prose.write_text("words " * 100)
    code.write_text("x = 1\n")
    text = _loaded(qtbot, open_preview(prose))
    source = _loaded(qtbot, open_preview(code))
    wrap = QPlainTextEdit.LineWrapMode.WidgetWidth
    assert text.code_view is not None and source.code_view is not None
    assert text.code_view.lineWrapMode() == wrap
    assert source.code_view.lineWrapMode() != wrap
    source.wrap_button.click()
    assert source.code_view.lineWrapMode() == wrap


@pytest.mark.parametrize(
    ("bom", "encoding"),
    [
        (codecs.BOM_UTF8, "utf-8"),
        (codecs.BOM_UTF16_LE, "utf-16-le"),
        (codecs.BOM_UTF32_BE, "utf-32-be"),
    ],
)
def test_byte_order_mark_picks_the_encoding(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path, bom: bytes, encoding: str
) -> None:
    path = tmp_path / "greeting.txt"
    path.write_bytes(bom + "Grüße, 世界\nzwei\n".encode(encoding))
    preview = _loaded(qtbot, open_preview(path))
    assert preview.text() == "Grüße, 世界\nzwei\n"
    assert preview.notice_text() == ""


def test_a_latin1_text_is_decoded_with_a_notice_naming_its_encoding(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "latin.txt"
    path.write_bytes(b"caf\xe9 and more words to keep it text\n")
    preview = _loaded(qtbot, open_preview(path))
    assert preview.text().startswith("café and")
    assert "not UTF-8; it is shown as Windows-1252" in preview.notice_text()
    assert "Reopen with encoding" in preview.notice_text()
    assert " · Windows-1252 · " in preview.status.text()
    assert preview.encoding_button.isVisibleTo(preview)
    checked = [a.data() for a in preview.encoding_menu.actions() if a.isChecked()]
    assert checked == ["cp1252"]
    # Each code page says what it is for, so the right one can be picked.
    labels = {a.data(): a.text() for a in preview.encoding_menu.actions()}
    assert labels["cp1251"] == "Windows-1251 (Cyrillic)"
    assert labels["cp1255"] == "Windows-1255 (Hebrew)"
    assert labels["iso8859_2"] == "ISO-8859-2 (Central European)"
    assert labels["utf-8"] == "UTF-8"


def test_reopen_with_encoding_reads_the_text_again(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "cyrillic.txt"
    text = "Привет, как дела? Всё хорошо, спасибо.\n"
    path.write_bytes(text.encode("koi8-r"))
    preview = _loaded(qtbot, open_preview(path))
    assert preview.text() == text
    assert " · KOI8-R · " in preview.status.text()

    by_codec = {a.data(): a for a in preview.encoding_menu.actions()}
    by_codec["utf-8"].trigger()
    qtbot.waitUntil(lambda: "\ufffd" in preview.text())
    assert "not valid UTF-8 and are shown as \ufffd" in preview.notice_text()
    assert "it is shown as" not in preview.notice_text()

    preview.reopen_with("cp1251")
    qtbot.waitUntil(lambda: " · Windows-1251 · " in preview.status.text())
    assert preview.text() == text.encode("koi8-r").decode("cp1251")
    assert preview.notice_text() == ""


def test_empty_file_shows_an_empty_view(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "empty.py"
    path.write_bytes(b"")
    preview = _loaded(qtbot, open_preview(path))
    assert preview.text() == ""
    assert preview.message_text() == ""


def test_cr_only_and_mixed_line_endings_split_into_lines(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    old_mac, mixed = tmp_path / "mac.txt", tmp_path / "mixed.txt"
    old_mac.write_bytes(b"one\rtwo\rthree\r")
    mixed.write_bytes(b"one\r\ntwo\nthree\rfour")
    assert _loaded(qtbot, open_preview(old_mac)).text() == "one\ntwo\nthree\n"
    assert _loaded(qtbot, open_preview(mixed)).line_count() == 4


def test_nul_bytes_after_the_head_show_as_replacement(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "nul.txt"
    path.write_bytes(b"text line\n" * 600 + b"a\x00b\n")
    preview = _loaded(qtbot, open_preview(path))
    assert preview.text().endswith("a\ufffdb\n")


def test_zoom_changes_the_font_and_reset_restores_it(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "z.py"
    path.write_text("x = 1\n")
    preview = _loaded(qtbot, open_preview(path))
    assert preview.code_view is not None
    size = preview.code_view.font().pointSizeF()
    preview.zoom_in()
    assert preview.code_view.font().pointSizeF() == size + 1
    preview.zoom_reset()
    assert preview.code_view.font().pointSizeF() == size


def test_importing_the_previewer_loads_no_view_and_no_pygments() -> None:
    code = (
        "import sys, previewers.text, previewers.text.widget;"
        "bad = [m for m in sys.modules if m.startswith(('pygments', "
        "'previewers.text.view', 'previewers.text.paged_view', "
        "'PySide6.QtWebEngine'))];"
        "print(bad)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


def test_json_over_the_tree_limit_opens_as_text_with_a_notice(
    qtbot: QtBot,
    open_preview: OpenPreview,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from app.formats import json_load

    # The JSON previewer reads its limit from the reader when asked.
    monkeypatch.setattr(json_load, "JSON_SIZE_LIMIT", 16)
    path = tmp_path / "big.json"
    path.write_text('{"rows": [1, 2, 3, 4, 5, 6, 7, 8]}\n')
    preview = _loaded(qtbot, open_preview(path))
    assert isinstance(preview, CodePreviewWidget)
    assert OVERSIZE_NOTICE in preview.notice_text()


def test_preview_reads_the_opened_file_not_the_path(
    qtbot: QtBot, tmp_path: Path
) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("the original\n")
    file = open_verified(str(path))
    source = PreviewSource.from_file(str(path), file)
    # Swap the path for another file after the open, before the load runs.
    os.replace(tmp_path / _write(tmp_path / "other.txt", "an impostor\n"), path)
    preview = CodePreviewWidget(source, file)
    qtbot.addWidget(preview)
    preview.show()
    # The text view also sees that the path now names another file: it shows
    # the checked file or says it was replaced, and never shows the impostor.
    qtbot.waitUntil(preview.is_settled)
    assert "impostor" not in preview.text()
    if preview.is_loaded():
        assert preview.text() == "the original\n"
    else:
        assert "replaced" in preview.message_text()
    preview.release()


def _write(path: Path, text: str) -> str:
    path.write_text(text)
    return path.name


def test_a_lexer_too_slow_for_the_screen_turns_highlighting_off_with_a_notice(
    qtbot: QtBot,
    tmp_path: Path,
    open_preview: OpenPreview,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from previewers import highlight

    monkeypatch.setattr(highlight, "WINDOW_BUDGET_S", 0.0)
    path = tmp_path / "slow.py"
    path.write_text("def f():\n    return 1\n" * 20)
    preview = _loaded(qtbot, open_preview(path))
    qtbot.waitUntil(lambda: preview.highlighting_stopped)
    assert preview.notice_text().startswith("Highlighting is off for this file")
    view = preview.code_view
    assert view is not None and view.highlighter is not None
    assert view.highlighter.highlight(["def g(): pass"], 0) == ([[]], True)


def test_yaml_with_token_types_the_style_lacks_loads_with_its_status(
    qtbot: QtBot, tmp_path: Path, open_preview: OpenPreview
) -> None:
    path = tmp_path / "anchors.yaml"
    path.write_text("key: " + "&a [" * 50 + "]" * 50 + "\nc:\n  - d\n")
    preview = _loaded(qtbot, open_preview(path))
    qtbot.waitUntil(lambda: preview.scan_done)
    preview.repaint()
    assert "lines" in preview.status.text()
    assert not preview.highlighting_stopped


@pytest.mark.parametrize(
    ("data", "lines"),
    [(b"", 0), (b"one", 1), (b"one\n", 1), (b"x\n" * 300, 300), (b"a\n\nb", 3)],
)
def test_the_status_line_counts_lines_as_a_person_does(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path, data: bytes, lines: int
) -> None:
    path = tmp_path / "lines.txt"
    path.write_bytes(data)
    preview = _loaded(qtbot, open_preview(path))
    assert preview.line_count() == lines
    word = "line" if lines == 1 else "lines"
    assert preview.status.text().endswith(f"{lines:,} {word}")


def test_a_document_made_elsewhere_is_numbered_beside_its_lines(qtbot: QtBot) -> None:
    from PySide6.QtGui import QTextDocument
    from PySide6.QtWidgets import QPlainTextDocumentLayout

    from previewers.text.view import CodeTextView

    view = CodeTextView()
    qtbot.addWidget(view)
    view.resize(400, 300)
    view.show()
    document = QTextDocument()
    document.setDocumentLayout(QPlainTextDocumentLayout(document))
    document.setPlainText("\n".join(f"line {n}" for n in range(1, 1_201)))
    view.setDocument(document)
    # Four digits of line numbers: the text starts past them, not under them.
    assert view.viewportMargins().left() == view.gutter_width() == view.gutter.width()
    assert view.document().defaultFont() == view.font()
