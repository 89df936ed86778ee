"""What a preview is told about where it is shown: root, policy and scheme."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtGui import QColor, QPalette

from app.core.trust.policy import Policy, Rule
from previewers.context import STANDALONE, ColorScheme, PreviewContext


def test_a_file_inside_the_root_reads_within_the_root(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    context = PreviewContext(root=str(tmp_path))
    path = str(tmp_path / "docs" / "a.md")
    assert context.workspace_root(path) == os.path.realpath(tmp_path)
    assert context.reading_root(path) == os.path.realpath(tmp_path)


def test_a_file_outside_the_root_reads_only_its_own_folder(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "elsewhere").mkdir()
    context = PreviewContext(root=str(tmp_path / "ws"))
    path = str(tmp_path / "elsewhere" / "a.md")
    assert context.workspace_root(path) == ""
    assert context.reading_root(path) == os.path.realpath(tmp_path / "elsewhere")
    assert STANDALONE.workspace_root(path) == ""


def test_the_policy_is_asked_each_time(tmp_path: Path) -> None:
    answers = [Policy([]), Policy([Rule("*.md", "test")])]
    context = PreviewContext(root=str(tmp_path), policy_provider=answers.pop)
    assert context.policy().denying_rule("/x/a.md") is not None
    assert context.policy().denying_rule("/x/a.md") is None


def test_without_a_provider_the_policy_files_on_disk_apply(tmp_path: Path) -> None:
    (tmp_path / ".deliverables-policy.toml").write_text('[deny]\nadd = ["*.md"]\n')
    policy = PreviewContext(root=str(tmp_path)).policy()
    assert policy.denying_rule(str(tmp_path / "a.md")) is not None


def test_the_scheme_follows_the_palette_unless_one_is_given() -> None:
    dark, light = QPalette(), QPalette()
    dark.setColor(QPalette.ColorRole.Base, QColor("#101010"))
    light.setColor(QPalette.ColorRole.Base, QColor("#fafafa"))
    assert ColorScheme.of(dark) is ColorScheme.DARK
    assert STANDALONE.is_dark(dark) and not STANDALONE.is_dark(light)
    assert PreviewContext(scheme=ColorScheme.DARK).is_dark(light)
