"""The app's own files are found in a checkout, a wheel and a frozen bundle alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from app import resources
from app.demo.workspace import DEMO_FILES, source_text


def test_every_demo_text_is_a_resource_file() -> None:
    for name in ("report_html", "report_css", "report_js", "notes_md"):
        assert source_text(name)
    path = resources.resource_path("demo", *DEMO_FILES["diagram_svg"].split("/"))
    assert path.read_bytes().startswith(b"<svg")


def test_a_checkout_and_a_frozen_bundle_keep_them_beside_the_package() -> None:
    assert resources.resources_folder() == (
        Path(resources.__file__).resolve().parent.parent / "resources"
    )


def test_a_wheel_keeps_them_inside_the_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "app"
    (package / "_resources" / "demo").mkdir(parents=True)
    (package / "_resources" / "demo" / "x.txt").write_text("inside\n")
    monkeypatch.setattr(resources, "_PACKAGE", package)
    assert resources.resource_path("demo", "x.txt").read_text() == "inside\n"


def test_a_missing_resource_says_which() -> None:
    with pytest.raises(FileNotFoundError, match=r"missing: .*nothing-here"):
        resources.resource_path("demo", "nothing-here")
