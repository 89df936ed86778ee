"""Save a copy streams the verified descriptor to a temporary file, then replaces."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox, QProgressDialog, QPushButton, QWidget
from pytestqt.qtbot import QtBot

from app.core.trust.copying import CHUNK_SIZE, copy_verified
from app.core.trust.safeio import VerifiedFile, open_verified
from app.ui.cards import save_copy
from app.ui.cards.save_copy import SaveCopier, SaveCopyDialogs, proposed_target

BIG = 20 * 1024 * 1024

# A progress dialog that outlives its minimum duration is shown as a window,
# and the offscreen platform warns that it cannot propagate size hints.
pytestmark = pytest.mark.qt_log_ignore(
    r"^This plugin does not support propagateSizeHints"
)


def pattern(size: int) -> bytes:
    block = bytes(range(256)) * 4096  # 1 MiB with every byte value
    return (block * (size // len(block) + 1))[:size]


@pytest.fixture
def big_file(tmp_path: Path) -> Path:
    path = tmp_path / "source" / "big.bin"
    path.parent.mkdir()
    path.write_bytes(pattern(BIG))
    return path


@pytest.fixture
def target_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "target"
    folder.mkdir()
    return folder


class Answers:
    def __init__(self, target: Path, confirm: bool = True) -> None:
        self.target = target
        self.confirm = confirm

    def dialogs(self) -> SaveCopyDialogs:
        return SaveCopyDialogs(
            choose_target=lambda _parent, _proposed: str(self.target),
            confirm_changed=lambda _parent, _name: self.confirm,
        )


def start(saver: SaveCopier, path: Path, *, changed: bool = False) -> VerifiedFile:
    opened = open_verified(str(path))
    assert saver.start(opened, path.name, str(path), changed=changed)
    return opened


def test_a_large_file_is_copied_byte_for_byte_in_chunks(
    qtbot: QtBot, big_file, target_dir
):
    target = target_dir / "copy.bin"
    chunks: list[int] = []
    saver = SaveCopier(Answers(target).dialogs(), chunk_hook=chunks.append)
    with qtbot.waitSignal(saver.saved, timeout=20_000) as blocker:
        opened = start(saver, big_file)
        assert len(saver.progress_dialogs()) == 1
    assert blocker.args == [big_file.name, str(target)]
    assert target.read_bytes() == big_file.read_bytes()
    assert len(chunks) == BIG // CHUNK_SIZE
    assert chunks[-1] == BIG
    assert os.listdir(target_dir) == ["copy.bin"]
    assert opened.fd == -1  # the saver closed the descriptor it was given
    assert saver.progress_dialogs() == []


def test_a_small_file_is_copied_without_a_progress_dialog(
    qtbot: QtBot, tmp_path, target_dir
):
    source = tmp_path / "small.txt"
    source.write_bytes(b"small\n")
    target = target_dir / "small.txt"
    saver = SaveCopier(Answers(target).dialogs())
    with qtbot.waitSignal(saver.saved, timeout=5000):
        start(saver, source)
        assert saver.progress_dialogs() == []
    assert target.read_bytes() == b"small\n"


def test_cancelling_the_progress_dialog_leaves_no_partial_file(
    qtbot: QtBot, big_file, target_dir
):
    first_chunk = threading.Event()
    resume = threading.Event()

    def hold_after_first_chunk(written: int) -> None:
        if written == CHUNK_SIZE:
            first_chunk.set()
            resume.wait(10)

    saver = SaveCopier(
        Answers(target_dir / "copy.bin").dialogs(), chunk_hook=hold_after_first_chunk
    )
    with qtbot.waitSignal(saver.cancelled, timeout=20_000) as blocker:
        start(saver, big_file)
        assert first_chunk.wait(10)
        [dialog] = saver.progress_dialogs()
        assert isinstance(dialog, QProgressDialog)
        cancel = dialog.findChild(QPushButton)
        assert cancel.text() == "Cancel"
        cancel.click()
        resume.set()
    assert blocker.args == [big_file.name]
    assert os.listdir(target_dir) == []


def test_a_file_rewritten_during_the_copy_is_refused_and_nothing_is_left(
    qtbot: QtBot, big_file, target_dir
):
    def rewrite_in_place(written: int) -> None:
        if written == CHUNK_SIZE:
            with open(big_file, "r+b") as handle:
                handle.seek(BIG - 4)
                handle.write(b"EDIT")

    saver = SaveCopier(
        Answers(target_dir / "copy.bin").dialogs(), chunk_hook=rewrite_in_place
    )
    with qtbot.waitSignal(saver.failed, timeout=20_000) as blocker:
        start(saver, big_file)
    assert "changed while it was being copied" in blocker.args[1]
    assert os.listdir(target_dir) == []


def test_the_copy_reads_the_verified_descriptor_not_the_path(
    qtbot: QtBot, big_file, target_dir
):
    original = big_file.read_bytes()

    def swap_path(written: int) -> None:
        if written == CHUNK_SIZE:
            impostor = big_file.with_name("impostor.bin")
            impostor.write_bytes(b"impostor" * 1000)
            os.replace(impostor, big_file)

    target = target_dir / "copy.bin"
    saver = SaveCopier(Answers(target).dialogs(), chunk_hook=swap_path)
    with qtbot.waitSignal(saver.saved, timeout=20_000):
        start(saver, big_file)
    assert target.read_bytes() == original


def test_an_existing_target_is_replaced_whole(qtbot: QtBot, tmp_path, target_dir):
    source = tmp_path / "new.txt"
    source.write_bytes(b"new content\n")
    target = target_dir / "old.txt"
    target.write_bytes(b"old content that is longer than the new one\n")
    saver = SaveCopier(Answers(target).dialogs())
    with qtbot.waitSignal(saver.saved, timeout=5000):
        start(saver, source)
    assert target.read_bytes() == b"new content\n"
    assert os.listdir(target_dir) == ["old.txt"]


def test_a_target_folder_that_does_not_exist_fails_with_the_reason(
    qtbot: QtBot, tmp_path
):
    source = tmp_path / "a.txt"
    source.write_bytes(b"a\n")
    saver = SaveCopier(Answers(tmp_path / "nowhere" / "a.txt").dialogs())
    with qtbot.waitSignal(saver.failed, timeout=5000) as blocker:
        start(saver, source)
    assert blocker.args[1].startswith("cannot write there")


def test_a_hard_link_to_the_source_is_refused_as_the_file_itself(
    qtbot: QtBot, tmp_path
):
    source = tmp_path / "a.txt"
    source.write_bytes(b"a\n")
    link = tmp_path / "link.txt"
    os.link(source, link)
    saver = SaveCopier(Answers(link).dialogs())
    with qtbot.waitSignal(saver.failed, timeout=1000) as blocker:
        opened = open_verified(str(source))
        assert not saver.start(opened, "a.txt", str(source), changed=False)
    assert blocker.args == ["a.txt", "a copy cannot be saved over the file itself"]
    assert opened.fd == -1
    assert source.read_bytes() == b"a\n"


def test_declining_the_changed_question_closes_the_file_and_writes_nothing(
    qtbot: QtBot, tmp_path, target_dir
):
    source = tmp_path / "a.txt"
    source.write_bytes(b"a\n")
    saver = SaveCopier(Answers(target_dir / "a.txt", confirm=False).dialogs())
    opened = open_verified(str(source))
    assert not saver.start(opened, "a.txt", str(source), changed=True)
    assert opened.fd == -1
    assert os.listdir(target_dir) == []


def test_cancelling_the_file_dialog_writes_nothing(qtbot: QtBot, tmp_path, target_dir):
    source = tmp_path / "a.txt"
    source.write_bytes(b"a\n")
    dialogs = SaveCopyDialogs(
        choose_target=lambda _parent, _proposed: "",
        confirm_changed=lambda _parent, _name: True,
    )
    opened = open_verified(str(source))
    assert not SaveCopier(dialogs).start(opened, "a.txt", str(source), changed=False)
    assert opened.fd == -1


def test_copy_function_cancelled_before_the_end_removes_its_temporary_file(tmp_path):
    source = tmp_path / "a.bin"
    source.write_bytes(pattern(3 * CHUNK_SIZE))
    target = tmp_path / "out" / "a.bin"
    target.parent.mkdir()
    with open_verified(str(source)) as opened:
        result = copy_verified(
            opened, str(target), is_cancelled=lambda: True, chunk_size=CHUNK_SIZE
        )
    assert result.cancelled
    assert not result.ok
    assert os.listdir(target.parent) == []


def test_the_changed_question_shows_the_name_as_plain_text(qtbot: QtBot, monkeypatch):
    shown: list[QMessageBox] = []

    def answer_yes(box: QMessageBox) -> int:
        shown.append(box)
        return QMessageBox.StandardButton.Yes

    monkeypatch.setattr(QMessageBox, "exec", answer_yes)
    parent = QWidget()
    qtbot.addWidget(parent)
    name = "<img src='x.png'>report.md"
    assert SaveCopyDialogs().confirm_changed(parent, name)
    [box] = shown
    assert box.textFormat() == save_copy.Qt.TextFormat.PlainText
    assert box.text() == (
        f"{name} changed since it was presented. Save the current version?"
    )
    assert box.defaultButton() == box.button(QMessageBox.StandardButton.No)


def test_the_proposed_target_is_in_an_existing_user_folder(tmp_path):
    proposed = proposed_target("report.md")
    assert os.path.basename(proposed) == "report.md"
    assert os.path.isdir(os.path.dirname(proposed))
