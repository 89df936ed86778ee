"""Qt's ICU data, trimmed by the build, gives Qt the answers the full data gives."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import PySide6
import pytest

from tests.packaging.loader import load

icu_data = load("icu_data")
elf_files = load("elf_files")
build = load("build")
QT_LIB = Path(PySide6.__file__).parent / "Qt" / "lib"
PROBE = Path(__file__).with_name("icu_probe.py")

pytestmark = pytest.mark.skipif(
    not all(shutil.which(tool) for tool in ("as", "ld", "objdump")),
    reason="binutils' as, ld and objdump",
)


def _icu_copy(folder: Path) -> Path:
    """The wheel's three ICU libraries, copied into ``folder``."""
    folder.mkdir()
    for path in QT_LIB.glob("libicu*.so.*"):
        shutil.copy2(path, folder / path.name)
    return folder


def _data_library(folder: Path) -> Path:
    (library,) = folder.glob("libicudata.so.*")
    return library


def _answers(folder: Path) -> str:
    return subprocess.run(
        [sys.executable, str(PROBE), str(folder)],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    ).stdout


def test_the_package_written_again_is_byte_for_byte_the_wheels():
    symbol, package = icu_data.package_of(_data_library(QT_LIB))
    header, items = icu_data.read_package(package)
    assert symbol.startswith("icudt") and len(items) > 3000
    assert icu_data.write_package(header, items) == package


def test_the_trimmed_data_gives_qts_icu_calls_the_same_answers(tmp_path):
    trimmed = _icu_copy(tmp_path / "trimmed")
    saved = icu_data.trim(_data_library(trimmed))
    assert saved > 14_000_000
    _symbol, package = icu_data.package_of(_data_library(trimmed))
    names = [name for name, _content in icu_data.read_package(package)[1]]
    assert not [name for name in names if name.split("/")[1] == "brkitr"]
    assert _answers(trimmed) == _answers(QT_LIB)


@pytest.mark.parametrize("tree", ["coll", "zone"])
def test_leaving_out_data_qt_reads_changes_the_answers(tmp_path, tree):
    # The comparison above would see it had the build left out too much.
    trimmed = _icu_copy(tmp_path / "trimmed")
    icu_data.trim(_data_library(trimmed), (tree,))
    assert _answers(trimmed) != _answers(QT_LIB)


def test_the_wheels_call_no_icu_function_beyond_those_checked():
    calls = icu_data.icu_calls(elf_files.elf_files(Path(PySide6.__file__).parent))
    assert set(calls) == {"libQt6Core.so.6"}
    assert icu_data.unknown_calls(calls) == []


def test_a_library_calling_another_icu_function_fails_the_build(monkeypatch):
    monkeypatch.setattr(
        build,
        "icu_calls",
        lambda _files: {"libQt6Core.so.6": {"ucol_open", "ubrk_open"}},
    )
    monkeypatch.setattr(build, "elf_files", lambda _app: [])
    with pytest.raises(build.BuildError, match=r"libQt6Core\.so\.6: ubrk_open"):
        build.check_icu_calls(Path("bundle"))
