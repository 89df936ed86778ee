"""The plain-text preview: encodings, the 2 MiB cut, reads through the descriptor."""

from __future__ import annotations

import codecs
import os
import threading
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from app.core.safeio import VerifiedFile, open_verified
from previewers import registry
from previewers.base import PreviewSource, PreviewWidget
from previewers.plain_text import (
    MIB,
    TEXT_LIMIT,
    PlainTextPreviewer,
    PlainTextPreviewWidget,
    load_text,
)

from .conftest import OpenPreview


@pytest.fixture(autouse=True)
def plain_text_only(monkeypatch: pytest.MonkeyPatch) -> None:
    # The code previewer takes text files in the app; the plain-text view is
    # still what PDF and web previews use for their source views.
    monkeypatch.setattr(registry.REGISTRY, "_table", [PlainTextPreviewer()])


def _loaded(qtbot: QtBot, preview: object) -> PlainTextPreviewWidget:
    assert isinstance(preview, PlainTextPreviewWidget)
    qtbot.waitUntil(preview.is_loaded)
    return preview


@pytest.mark.parametrize(
    ("bom", "encoding"),
    [
        (codecs.BOM_UTF8, "utf-8"),
        (codecs.BOM_UTF16_LE, "utf-16-le"),
        (codecs.BOM_UTF16_BE, "utf-16-be"),
        (codecs.BOM_UTF32_LE, "utf-32-le"),
        (codecs.BOM_UTF32_BE, "utf-32-be"),
    ],
)
def test_bom_picks_the_encoding_and_is_not_shown(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path, bom: bytes, encoding: str
) -> None:
    path = tmp_path / "greeting.txt"
    path.write_bytes(bom + "Grüße, 世界 😀\n".encode(encoding))
    preview = _loaded(qtbot, open_preview(path))
    assert preview.text() == "Grüße, 世界 😀\n"
    assert preview.notice_text() == ""


def test_invalid_bytes_show_replacement_and_a_notice(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "latin.txt"
    path.write_bytes(b"caf\xe9 and more words to keep it text\n")
    preview = _loaded(qtbot, open_preview(path))
    assert preview.text().startswith("caf\ufffd and")
    assert "not valid UTF-8" in preview.notice_text()


def test_three_mib_file_shows_the_first_two_without_splitting_a_character(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "big.log"
    # "€" is 3 bytes; one leading byte puts the 2 MiB cut inside a character.
    data = b"a" + "€".encode() * ((3 * MIB) // 3)
    assert 0x80 <= data[TEXT_LIMIT] <= 0xBF  # the cut falls inside a character
    path.write_bytes(data)
    preview = _loaded(qtbot, open_preview(path))
    text = preview.text()
    assert "\ufffd" not in text
    assert text == "a" + "€" * ((TEXT_LIMIT - 1) // 3)
    assert len(text.encode()) <= TEXT_LIMIT
    assert preview.notice_text() == (
        "Showing the first 2.0 MiB of 3.0 MiB; paging arrives with the text previewer."
    )


def test_empty_file_loads_empty(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "empty.txt"
    path.write_bytes(b"")
    preview = _loaded(qtbot, open_preview(path))
    assert preview.text() == ""
    assert preview.notice_text() == ""


def test_preview_reads_the_opened_file_not_the_path(
    qtbot: QtBot, tmp_path: Path
) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("the original\n")
    file = open_verified(str(path))
    source = PreviewSource.from_file(str(path), file)
    # Swap the path for another file after the open, before the load runs.
    os.replace(tmp_path / _write(tmp_path / "other.txt", "an impostor\n"), path)
    preview = PlainTextPreviewWidget(source, file)
    qtbot.addWidget(preview)
    qtbot.waitUntil(preview.is_loaded)
    assert preview.text() == "the original\n"
    preview.release()


def _write(path: Path, text: str) -> str:
    path.write_text(text)
    return path.name


def test_release_closes_the_file_and_is_idempotent(
    qtbot: QtBot, tmp_path: Path
) -> None:
    path = tmp_path / "a.txt"
    path.write_text("x\n")
    file = open_verified(str(path))
    preview = PlainTextPreviewWidget(PreviewSource.from_file(str(path), file), file)
    qtbot.addWidget(preview)
    qtbot.waitUntil(preview.is_loaded)
    preview.release()
    preview.release()
    assert file.fd == -1
    assert preview.is_released()


def test_result_arriving_after_release_is_dropped(qtbot: QtBot, tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("late text\n")
    file = open_verified(str(path))
    preview = PlainTextPreviewWidget(PreviewSource.from_file(str(path), file), file)
    qtbot.addWidget(preview)
    gate = threading.Event()
    results: list[object] = []

    def slow_job(opened: object, cancelled: threading.Event) -> str:
        gate.wait(5)
        return "stale"

    preview.run_in_background(slow_job, results.append)
    qtbot.waitUntil(preview.is_loaded)
    preview.release()
    assert file.fd != -1  # the worker still reads: closing waits for it
    gate.set()
    qtbot.waitUntil(lambda: file.fd == -1)
    qtbot.wait(50)
    assert results == []


class _BrokenPreviewWidget(PreviewWidget):
    """Its load always fails, as a disk error would."""

    def __init__(self, source: PreviewSource, file: VerifiedFile) -> None:
        super().__init__(source, file)
        self.run_in_background(self._job, lambda _result: self.mark_loaded())

    @staticmethod
    def _job(opened: VerifiedFile, cancelled: threading.Event) -> None:
        raise OSError(5, "Input/output error")


def test_load_failure_is_reported_with_its_reason(qtbot: QtBot, tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("x\n")
    file = open_verified(str(path))
    preview = _BrokenPreviewWidget(PreviewSource.from_file(str(path), file), file)
    qtbot.addWidget(preview)
    with qtbot.waitSignal(preview.failed) as blocker:
        pass
    assert blocker.args == ["Input/output error"]
    assert preview.message_text() == "Could not load a.txt: Input/output error"
    assert not preview.is_loaded()
    assert preview.is_settled()
    preview.release()


def test_refusal_and_failure_say_different_things(qtbot: QtBot, tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("x\n")
    messages = []
    for outcome in ("refused", "failed"):
        file = open_verified(str(path))
        preview = PreviewWidget(PreviewSource.from_file(str(path), file), file)
        qtbot.addWidget(preview)
        if outcome == "refused":
            preview.mark_refused("it is larger than 64 MiB")
        else:
            preview.mark_failed("the data is corrupt")
        messages.append(preview.message_text())
        preview.release()
    assert messages == [
        "a.txt is not previewed here: it is larger than 64 MiB",
        "Could not load a.txt: the data is corrupt",
    ]


def test_find_wraps_and_reports_not_found(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "a.txt"
    path.write_text("alpha\nbeta\nalpha again\n")
    preview = _loaded(qtbot, open_preview(path))
    assert preview.find_next("alpha")
    first = preview.editor.textCursor().selectionStart()
    assert preview.find_next("alpha")
    assert preview.editor.textCursor().selectionStart() > first
    assert preview.find_next("alpha")  # wraps to the top
    assert preview.editor.textCursor().selectionStart() == first
    assert preview.find_next("alpha", backward=True)
    assert not preview.find_next("gamma")
    assert preview.find_bar.status.text() == "Not found"


def test_zoom_changes_the_font_and_reset_restores_it(
    qtbot: QtBot, open_preview: OpenPreview, tmp_path: Path
) -> None:
    path = tmp_path / "a.txt"
    path.write_text("x\n")
    preview = _loaded(qtbot, open_preview(path))
    base = preview.editor.font().pointSizeF()
    preview.zoom_in()
    preview.zoom_in()
    assert preview.editor.font().pointSizeF() == base + 2
    preview.zoom_out()
    assert preview.editor.font().pointSizeF() == base + 1
    preview.zoom_reset()
    assert preview.editor.font().pointSizeF() == base


def test_load_text_handles_utf16_cut_without_splitting_a_pair(tmp_path: Path) -> None:
    path = tmp_path / "wide.txt"
    path.write_bytes(codecs.BOM_UTF16_LE + "😀".encode("utf-16-le") * 10)
    with open_verified(str(path)) as file:
        result = load_text(file, limit=2 + 4 * 3 + 2)  # cuts inside the 4th pair
    assert result.text == "😀" * 3
    assert result.truncated
