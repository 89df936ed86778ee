"""The .deb's files, compressed by the xz command, are read back by dpkg."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import PySide6
import pytest
import yaml

from tests.packaging.loader import load

deb_archive = load("deb_archive")
LIBRARY = Path(PySide6.__file__).parent / "Qt" / "lib" / "libQt6Core.so.6"

pytestmark = pytest.mark.skipif(
    not all(shutil.which(tool) for tool in ("xz", "dpkg-deb")),
    reason="the xz command and dpkg-deb",
)


def _uncompressed_deb(folder: Path) -> Path:
    """A .deb as nfpm writes it for the build: data.tar left uncompressed."""
    (folder / "lib.so").write_bytes(LIBRARY.read_bytes())
    config = {
        "name": "sample",
        "arch": "amd64",
        "version": "1.0",
        "maintainer": "Someone <someone@example.org>",
        "description": "A library, to compress.",
        "license": "MIT",
        "contents": [{"src": "./lib.so", "dst": "/opt/sample/lib.so"}],
        "deb": {"compression": "none"},
    }
    (folder / "nfpm.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    nfpm = shutil.which("nfpm", path=str(Path(sys.executable).parent)) or "nfpm"
    subprocess.run(
        [nfpm, "package", "--packager", "deb", "--target", str(folder)],
        cwd=folder,
        check=True,
        capture_output=True,
    )
    (deb,) = folder.glob("sample_*.deb")
    return deb


def test_dpkg_unpacks_the_compressed_deb_to_the_same_files(tmp_path):
    deb = _uncompressed_deb(tmp_path)
    size = deb.stat().st_size
    deb_archive.xz_compress_data(deb)
    names = [name for name, _content in deb_archive.members(deb.read_bytes())]
    assert names == ["debian-binary", "control.tar.gz", "data.tar.xz"]
    assert deb.stat().st_size < size / 2
    unpacked = tmp_path / "unpacked"
    subprocess.run(["dpkg-deb", "-x", str(deb), str(unpacked)], check=True)
    assert (unpacked / "opt/sample/lib.so").read_bytes() == LIBRARY.read_bytes()


def test_machine_code_goes_through_the_x86_filter_first(tmp_path):
    # The filter turns relative call and jump targets into absolute ones,
    # which repeat, and saves about 3% of the whole .deb.
    deb = _uncompressed_deb(tmp_path)
    deb_archive.xz_compress_data(deb)
    data = dict(deb_archive.members(deb.read_bytes()))["data.tar.xz"]
    (tmp_path / "data.tar.xz").write_bytes(data)
    listing = subprocess.run(
        ["xz", "--list", "--verbose", "--verbose", str(tmp_path / "data.tar.xz")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "--x86" in listing and "--lzma2=" in listing
