"""The licence check: each part the bundle carries has its texts, or the build fails."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import pytest

from tests.packaging.loader import load

licensing = load("licensing")


def _distribution(
    folder: Path, name: str, licence: str | None, requires: tuple[str, ...] = ()
) -> object:
    """A distribution installed into ``folder`` as pip installs one."""
    info = folder / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    record = [f"{name}/__init__.py,,", f"{info.name}/METADATA,,"]
    metadata = f"Metadata-Version: 2.4\nName: {name}\nVersion: 1.0\n"
    metadata += "".join(f"Requires-Dist: {line}\n" for line in requires)
    if licence is not None:
        (info / "licenses").mkdir()
        (info / "licenses" / "LICENSE").write_text(licence, encoding="utf-8")
        metadata += "License-Expression: MIT\nLicense-File: LICENSE\n"
        record.append(f"{info.name}/licenses/LICENSE,,")
    (info / "METADATA").write_text(metadata, encoding="utf-8")
    (info / "RECORD").write_text("\n".join(record) + "\n", encoding="utf-8")
    (folder / name).mkdir()
    (folder / name / "__init__.py").write_text("", encoding="utf-8")
    return importlib.metadata.PathDistribution(info)


def _table_of(folder: Path, text: str) -> Path:
    table = folder / "components.toml"
    table.write_text(text, encoding="utf-8")
    return table


def _table(folder: Path) -> Path:
    return _table_of(folder, "[distributions]\n")


def test_a_bundled_distribution_without_a_licence_file_fails_the_check(tmp_path):
    dist = _distribution(tmp_path, "quietlib", licence=None)
    parts = licensing.load_parts({"quietlib"}, {"quietlib": dist}, _table(tmp_path))
    found = licensing.problems(parts, [], [])
    assert "quietlib 1.0: no licence file recorded" in found


def test_a_distribution_with_its_licence_file_passes(tmp_path):
    dist = _distribution(tmp_path, "openlib", licence="MIT licence text")
    (part, _python) = licensing.load_parts(
        {"openlib"}, {"openlib": dist}, _table(tmp_path)
    )
    assert part.licence == "MIT"
    assert [text.name for text in part.texts] == ["LICENSE"]
    assert not [
        line for line in licensing.problems([part], [], []) if "openlib" in line
    ]


def test_a_bundled_file_of_no_distribution_fails_the_check(tmp_path):
    workpath = tmp_path / "work"
    outside = Path("/lib/x86_64-linux-gnu/libfreebl3.chk")
    assert licensing.owner_of(outside, {}, workpath) is None
    found = licensing.problems([], ["libfreebl3.chk (system)"], [])
    assert found == ["libfreebl3.chk (system): belongs to no distribution or component"]


def test_what_only_the_tests_need_may_not_be_frozen_into_the_bundle(tmp_path):
    dists = {
        "deliverables": _distribution(
            tmp_path,
            "deliverables",
            licence="x",
            requires=(
                "viewlib==1.0",
                'chatlib==1.0; extra == "openai"',
                'plotlib==1.0; extra == "dev"',
                'oldlib==1.0; python_version < "3"',
            ),
        ),
        "viewlib": _distribution(tmp_path, "viewlib", "x", requires=("fontlib",)),
        "chatlib": _distribution(tmp_path, "chatlib", licence="x"),
        "plotlib": _distribution(tmp_path, "plotlib", "x", requires=("tablelib",)),
        "fontlib": _distribution(tmp_path, "fontlib", licence="x"),
        "tablelib": _distribution(tmp_path, "tablelib", licence="x"),
    }
    needed = licensing.runtime_closure(dists)
    assert needed == {"deliverables", "viewlib", "fontlib", "chatlib"}
    found = licensing.problems([], [], [], strays={"plotlib", "tablelib"} - needed)
    assert [line.split(":")[0] for line in found] == ["plotlib", "tablelib"]
    assert all("the app does not require it" in line for line in found)


def test_a_component_whose_files_left_the_bundle_fails_the_check():
    dists = {
        key: importlib.metadata.distribution(name)
        for key, name in (
            ("pyside6-essentials", "PySide6_Essentials"),
            ("pyside6-addons", "PySide6_Addons"),
            ("pymupdf", "pymupdf"),
        )
    }
    parts = [p for p in licensing.load_parts(set(), dists) if p.covers]
    everything = [p.replace("*", "x") for part in parts for p in part.covers]
    assert licensing.problems(parts, [], everything) == []
    without_ffmpeg = [p for p in everything if "libav" not in p]
    assert "FFmpeg: PySide6/Qt/lib/libav* matches nothing in the bundle" in (
        licensing.problems(parts, [], without_ffmpeg)
    )


def test_the_qt_wheels_get_the_lgpl_and_gpl_texts_they_lack(tmp_path):
    dist = importlib.metadata.distribution("PySide6_Essentials")
    (part, _python) = licensing.load_parts(
        {"pyside6-essentials"},
        {"pyside6-essentials": dist},
        _table_of(
            tmp_path,
            '[distributions]\nPySide6_Essentials = ["LGPL-3.0.txt", "GPL-3.0.txt"]\n',
        ),
    )
    assert {text.name for text in part.texts} == {"LGPL-3.0.txt", "GPL-3.0.txt"}
    assert all(text.is_file() for text in part.texts)


def test_an_installed_folder_missing_a_text_is_reported(tmp_path):
    dist = _distribution(tmp_path / "site", "openlib", licence="MIT licence text")
    parts = licensing.load_parts({"openlib"}, {"openlib": dist}, _table(tmp_path))
    folder = tmp_path / "licenses"
    licensing.write_folder(parts, folder, "Terms")
    assert licensing.verify(folder) == []
    notice = (folder / "NOTICE").read_text(encoding="utf-8")
    assert notice.startswith("Terms\n") and "openlib 1.0" in notice
    (folder / "openlib-1.0" / "LICENSE").unlink()
    (problem,) = licensing.verify(folder)
    assert "openlib" in problem and "missing" in problem


@pytest.mark.parametrize(
    "name", ["AGPL-3.0.txt", "LGPL-3.0.txt", "GPL-3.0.txt", "LGPL-2.1.txt", "ICU.txt"]
)
def test_the_recorded_texts_are_the_licences_they_name(name):
    text = (licensing.TEXTS / name).read_text(encoding="utf-8")
    first = {
        "AGPL-3.0.txt": "GNU AFFERO GENERAL PUBLIC LICENSE",
        "LGPL-3.0.txt": "GNU LESSER GENERAL PUBLIC LICENSE",
        "GPL-3.0.txt": "GNU GENERAL PUBLIC LICENSE",
        "LGPL-2.1.txt": "GNU LESSER GENERAL PUBLIC LICENSE",
        "ICU.txt": "COPYRIGHT AND PERMISSION NOTICE (ICU 58 and later)",
    }[name]
    assert text.lstrip().startswith(first)
