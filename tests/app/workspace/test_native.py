"""The local workspace's ``native`` capability: what the desktop may be handed."""

from __future__ import annotations

import os
import shutil
import stat
import sys
from pathlib import Path

import pytest
from fpdf import FPDF

from app.core.trust.native_open import copies_folder
from app.core.trust.safeio import open_verified
from app.workspace.choose import local_workspace
from app.workspace.protocol import Native


def native_of(root: Path) -> Native:
    native = local_workspace(root).native
    assert native is not None
    return native


def a_pdf(path: Path) -> Path:
    document = FPDF()
    document.add_page()
    document.set_font("helvetica", size=12)
    document.cell(text="The report")
    document.output(str(path))
    return path


def test_a_checked_document_is_copied_privately_and_never_executable(
    tmp_path: Path,
) -> None:
    report = a_pdf(tmp_path / "report.pdf")
    native = native_of(tmp_path)
    with open_verified(str(report)) as opened:
        assert native.refusal("report.pdf", opened) is None
        copy = native.private_copy("report.pdf", opened)

    assert copy.read_bytes() == report.read_bytes()
    assert copy.name == "report.pdf"
    assert copy.is_relative_to(copies_folder())
    assert stat.S_IMODE(os.stat(copy.parent).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(copy).st_mode) & 0o111 == 0


def test_a_program_named_like_a_document_is_refused_by_its_bytes(
    tmp_path: Path,
) -> None:
    disguised = tmp_path / "report.pdf"
    shutil.copyfile(sys.executable, disguised)  # a real program, its mode dropped
    native = native_of(tmp_path)

    assert native.refusal_by_name("report.pdf", str(disguised)) is None
    with open_verified(str(disguised)) as opened:
        reason = native.refusal("report.pdf", opened)
    assert reason is not None and "not opened with another app" in reason


@pytest.mark.parametrize("name", ["install.sh", "launcher.desktop"])
def test_what_runs_by_its_name_is_refused_before_it_is_opened(
    tmp_path: Path, name: str
) -> None:
    (tmp_path / name).write_bytes(b"")
    reason = native_of(tmp_path).refusal_by_name(name, str(tmp_path / name))
    assert reason is not None and "can run code" in reason


def test_a_file_marked_executable_is_refused_before_it_is_opened(
    tmp_path: Path,
) -> None:
    report = a_pdf(tmp_path / "report.pdf")
    report.chmod(0o755)
    reason = native_of(tmp_path).refusal_by_name("report.pdf", str(report))
    assert reason is not None and "executable" in reason
