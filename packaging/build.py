"""Build the Linux packages: ``python packaging/build.py`` writes dist/*.deb, *.rpm.

Run it with the project's virtualenv Python, with the ``packaging`` extra
installed (``pip install -e '.[packaging]'``). It freezes the app with
PyInstaller (onedir, ``packaging/deliverables.spec``), checks the bundle
(the web engine's helper and data are there, the browser libraries match
their manifest, the trimmed modules are not there, every system library
it links to is a declared dependency), renders the icons and has nfpm
write the packages described in ``packaging/nfpm.yaml``.
"""

from __future__ import annotations

import argparse
import lzma
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterable, Sequence
from pathlib import Path

PACKAGING = Path(__file__).resolve().parent
ROOT = PACKAGING.parent
APP_ICON = ROOT / "resources" / "icons" / "deliverables.svg"
sys.path.insert(0, str(PACKAGING))

from bundle_rules import EXCLUDED_MODULES  # noqa: E402  (beside this file)
from deb_archive import xz_compress_data  # noqa: E402
from elf_files import (  # noqa: E402
    elf_files,
    glibc_versions,
    misaligned_segments,
    needed,
    strip_safely,
)
from icu_data import icu_calls, trim, unknown_calls  # noqa: E402
from licensing import TEXTS, LicenceError, collect  # noqa: E402

BUILD = ROOT / "build" / "packaging"
STAGE = BUILD / "stage"
DIST = ROOT / "dist"
ICON_SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)
FORMATS = ("deb", "rpm")

# What QtWebEngine needs beside its library to start with its sandbox on.
WEB_ENGINE_FILES = (
    "_internal/PySide6/Qt/libexec/QtWebEngineProcess",
    "_internal/PySide6/Qt/resources/qtwebengine_resources.pak",
    "_internal/PySide6/Qt/resources/qtwebengine_resources_100p.pak",
    "_internal/PySide6/Qt/resources/qtwebengine_resources_200p.pak",
    "_internal/PySide6/Qt/resources/icudtl.dat",
    "_internal/PySide6/Qt/resources/v8_context_snapshot.bin",
    "_internal/PySide6/Qt/translations/qtwebengine_locales/en-US.pak",
)
# Where Qt's ICU data is, which the build trims to what Qt reads
# (packaging/icu_data.py).
QT_LIBRARIES = "_internal/PySide6/Qt/lib"
WEB_LIBRARIES = "resources/web/libraries"
# Top-level packages that must not be in the bundle (pymupdf 2's extras and
# its font subsetter's library).
TRIMMED_PACKAGES = ("numpy", "onnxruntime", "networkx", "pymupdf4llm", "fontTools")


class BuildError(RuntimeError):
    """The build cannot go on; the message says what is wrong."""


def _run(command: Sequence[str], **kwargs: object) -> None:
    print("+", " ".join(str(part) for part in command), flush=True)
    subprocess.run(command, check=True, **kwargs)  # type: ignore[call-overload]


def project_version() -> str:
    with open(ROOT / "pyproject.toml", "rb") as file:
        return str(tomllib.load(file)["project"]["version"])


def freeze() -> Path:
    """The onedir bundle, built afresh from the current checkout."""
    bundle = STAGE / "bundle"
    shutil.rmtree(bundle, ignore_errors=True)
    _run(
        [
            sys.executable,
            "-m",
            "PyInstaller",
            "--noconfirm",
            "--log-level",
            "WARN",
            "--workpath",
            str(BUILD / "pyinstaller"),
            "--distpath",
            str(bundle),
            str(PACKAGING / "deliverables.spec"),
        ],
        cwd=ROOT,
    )
    app = bundle / "deliverables"
    saved = strip_bundle(app)
    print(f"stripped the bundle's libraries: {saved / 1e6:.1f} MB saved")
    check_icu_calls(app)
    saved = sum(trim(path) for path in (app / QT_LIBRARIES).glob("libicudata.so.*"))
    if not saved:
        raise BuildError(f"no ICU data to trim in {QT_LIBRARIES}")
    print(f"left out the ICU data Qt never reads: {saved / 1e6:.1f} MB saved")
    check_web_libraries(app / "_internal" / WEB_LIBRARIES)
    saved = pack_web_libraries(app / "_internal" / WEB_LIBRARIES)
    print(f"packed the browser libraries: {saved / 1e6:.1f} MB saved")
    return app


def check_icu_calls(app: Path) -> None:
    """Fail if a bundled library calls an ICU function the trimmed data was not
    checked for: it might read a part of the data that was left out."""
    if unknown := unknown_calls(icu_calls(elf_files(app))):
        raise BuildError(
            "ICU functions outside packaging/icu_data.py's QT_CALLS are called,"
            f" which may read data the build leaves out: {unknown}"
        )


def _frozen_modules(workpath: Path) -> set[str]:
    """Top-level names of the modules in the bundle's archive."""
    toc = (workpath / "deliverables" / "PYZ-00.toc").read_text(encoding="utf-8")
    return {name.split(".")[0] for name in re.findall(r"\(\s*'([\w.]+)'", toc)}


def check_bundle(app: Path, modules: Iterable[str]) -> None:
    """Fail unless the web engine's files and the browser libraries are there, as
    recorded, the trimmed parts are not, and the dynamic loader would accept
    every library."""
    missing = [name for name in WEB_ENGINE_FILES if not (app / name).is_file()]
    if missing:
        raise BuildError(f"the bundle lacks what QtWebEngine needs: {missing}")
    helper = app / WEB_ENGINE_FILES[0]
    if not os.access(helper, os.X_OK):
        raise BuildError(f"{helper} is not executable")
    internal = app / "_internal"
    present = set(modules) | {entry.name for entry in internal.iterdir()}
    unwanted = sorted(present & set(TRIMMED_PACKAGES))
    unwanted += sorted(
        name
        for name in EXCLUDED_MODULES
        if name.startswith("PySide6.")
        and (internal / "PySide6" / f"{name.split('.', 1)[1]}.abi3.so").exists()
    )
    if unwanted:
        raise BuildError(f"the bundle holds modules the app never uses: {unwanted}")
    broken = {
        str(path.relative_to(app)): problems
        for path in elf_files(app)
        if (problems := misaligned_segments(path.read_bytes()))
    }
    if broken:
        raise BuildError(f"the loader would refuse these libraries: {broken}")
    check_web_libraries(internal / WEB_LIBRARIES)


def pack_web_libraries(folder: Path) -> int:
    """Store each bundled browser library file xz-compressed, as the app reads
    them in the package; the bytes saved. Licences and the manifest stay as
    they are, readable as text."""
    from app.core.serve.web_libraries import load_catalogue, packed_twin

    catalogue = load_catalogue(folder)
    saved = 0
    for library in catalogue.libraries:
        for version in library.versions:
            for entry in version.files.values():
                path = catalogue.path_of(library, version, entry.name)
                data = path.read_bytes()
                packed = lzma.compress(data, format=lzma.FORMAT_XZ, preset=6)
                if len(packed) >= len(data):
                    continue
                packed_twin(path).write_bytes(packed)
                path.unlink()
                saved += len(data) - len(packed)
    check_web_libraries(folder)
    return saved


def check_web_libraries(folder: Path) -> None:
    """Fail unless the bundled browser libraries are there, each as recorded."""
    from app.core.serve.web_libraries import (
        CatalogueError,
        load_catalogue,
        verify_catalogue,
    )

    try:
        problems = verify_catalogue(load_catalogue(folder))
    except CatalogueError as error:
        problems = [str(error)]
    if problems:
        shown = "; ".join(problems[:5])
        raise BuildError(
            f"the bundled browser libraries differ from their manifest: {shown}"
            " (run python scripts/fetch_web_libraries.py)"
        )


def strip_bundle(app: Path) -> int:
    """Strip the bundle's libraries where that is safe; the bytes it saved."""
    before = sum(path.stat().st_size for path in elf_files(app))
    for path in elf_files(app):
        strip_safely(path)
    return before - sum(path.stat().st_size for path in elf_files(app))


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def system_needs(app: Path) -> tuple[set[str], str]:
    """The libraries the bundle links to but does not carry, and its newest glibc."""
    carried = {path.name for path in app.rglob("*")}
    needs: set[str] = set()
    glibc: set[str] = set()
    for path in elf_files(app):
        needs.update(needed(path))
        glibc |= glibc_versions(path)
    newest = max(glibc, key=_version_key) if glibc else "2.17"
    return needs - carried, newest


def _load_config() -> dict[str, object]:
    import yaml  # PyYAML comes with langchain-core, a dependency of the app

    with open(PACKAGING / "nfpm.yaml", encoding="utf-8") as file:
        config: dict[str, object] = yaml.safe_load(file)
    return config


def _depends(config: dict[str, object], packager: str) -> list[str]:
    overrides = config["overrides"]
    assert isinstance(overrides, dict)
    return list(overrides[packager]["depends"])


def _deb_package_of(soname: str) -> str | None:
    """The Debian package that holds ``soname`` on this machine, if dpkg knows."""
    if shutil.which("dpkg") is None:
        return None
    result = subprocess.run(
        ["dpkg", "-S", f"*/{soname}"], capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        return None
    package = result.stdout.split(":", 1)[0].strip()
    return package or None


def check_dependencies(
    needs: set[str], glibc: str, config: dict[str, object]
) -> list[str]:
    """Fail unless every library the bundle needs is a dependency of both packages.

    Returns the warnings for libraries this machine cannot place in a
    Debian package (not installed here), which a reader should check.
    """
    rpm = set(_depends(config, "rpm"))
    deb = _depends(config, "deb")
    problems: list[str] = []
    warnings: list[str] = []
    for soname in sorted(needs):
        if soname.startswith("ld-linux") or soname in (
            "libc.so.6",
            "libm.so.6",
            "libdl.so.2",
            "libpthread.so.0",
            "librt.so.1",
            "libutil.so.1",
            "libresolv.so.2",
        ):
            continue  # glibc's, required below with its version
        if f"{soname}()(64bit)" not in rpm:
            problems.append(f"rpm does not require {soname}()(64bit)")
        package = _deb_package_of(soname)
        if package is None:
            warnings.append(f"{soname}: not installed here, its deb package unchecked")
            continue
        names = {
            name.strip().split(" ")[0] for entry in deb for name in entry.split("|")
        }
        if package.split(":")[0] not in names:
            problems.append(f"deb does not depend on {package} (for {soname})")
    if f"libc.so.6(GLIBC_{glibc})(64bit)" not in rpm:
        problems.append(f"rpm must require libc.so.6(GLIBC_{glibc})(64bit)")
    if f"libc6 (>= {glibc})" not in deb:
        problems.append(f"deb must depend on libc6 (>= {glibc})")
    if problems:
        raise BuildError(
            "packaging/nfpm.yaml misses what the bundle links to:\n  "
            + "\n  ".join(problems)
        )
    return warnings


def render_icons(svg: Path, folder: Path) -> None:
    """PNGs of the scalable icon at every size the icon theme has."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    _app = QGuiApplication.instance() or QGuiApplication([])
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise BuildError(f"{svg} is not a valid SVG")
    for size in ICON_SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter)
        painter.end()
        target = folder / str(size) / "deliverables.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        if not image.save(str(target)):  # PNG, by the suffix
            raise BuildError(f"could not write {target}")


def stage_files() -> None:
    """Copy the package description and its files beside the bundle."""
    shutil.rmtree(STAGE / "linux", ignore_errors=True)
    shutil.copytree(PACKAGING / "linux", STAGE / "linux")
    icons = STAGE / "icons"
    shutil.rmtree(icons, ignore_errors=True)
    icons.mkdir(parents=True)
    # The app's icon is one of its resources; the window uses the same file.
    shutil.copy2(APP_ICON, icons)
    render_icons(APP_ICON, icons)
    shutil.copy2(PACKAGING / "nfpm.yaml", STAGE / "nfpm.yaml")


def package(packager: str, version: str) -> Path:
    DIST.mkdir(exist_ok=True)
    for old in DIST.glob(f"deliverables*.{packager}"):
        old.unlink()
    nfpm = shutil.which("nfpm", path=os.path.dirname(sys.executable)) or "nfpm"
    _run(
        [nfpm, "package", "--config", "nfpm.yaml", "--packager", packager],
        cwd=STAGE,
        env={**os.environ, "DELIVERABLES_VERSION": version},
        stdout=subprocess.DEVNULL,
    )
    built = sorted(STAGE.glob(f"deliverables*.{packager}"))
    if len(built) != 1:
        raise BuildError(f"nfpm wrote {len(built)} .{packager} files")
    target = DIST / built[0].name
    shutil.move(built[0], target)
    if packager == "deb":
        xz_compress_data(target)
    return target


def _size_mib(path: Path) -> float:
    if path.is_file():
        return path.stat().st_size / 2**20
    return sum(p.lstat().st_size for p in path.rglob("*")) / 2**20


def largest_files(folder: Path, count: int = 20) -> list[tuple[int, str]]:
    """The ``count`` largest files under ``folder``, largest first, as (bytes,
    place in ``folder``); links are not counted, as they take no space."""
    sizes = [
        (path.lstat().st_size, path.relative_to(folder).as_posix())
        for path in folder.rglob("*")
        if path.is_file() and not path.is_symlink()
    ]
    return sorted(sizes, key=lambda entry: (-entry[0], entry[1]))[:count]


def size_summary(folder: Path, count: int = 20) -> str:
    """What the installed tree weighs, with its largest files (decimal MB)."""
    total = sum(p.lstat().st_size for p in folder.rglob("*") if not p.is_dir())
    lines = [f"largest files of the bundle, of {total / 1e6:.1f} MB:"]
    lines += [
        f"  {size / 1e6:7.1f} MB  {name}" for size, name in largest_files(folder, count)
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--formats",
        default=",".join(FORMATS),
        help="comma-separated package formats (default: deb,rpm)",
    )
    parser.add_argument(
        "--reuse-bundle",
        action="store_true",
        help="package the bundle of the last build instead of freezing again",
    )
    args = parser.parse_args(argv)
    formats = [name for name in args.formats.split(",") if name]
    if unknown := sorted(set(formats) - set(FORMATS)):
        parser.error(f"unknown formats: {unknown}")
    if not sys.platform.startswith("linux"):
        parser.error("the .deb and .rpm are built on Linux")
    started = time.monotonic()
    try:
        app = STAGE / "bundle" / "deliverables"
        if not (args.reuse_bundle and app.is_dir()):
            app = freeze()
        frozen = time.monotonic()
        check_bundle(app, _frozen_modules(BUILD / "pyinstaller"))
        collect(
            BUILD / "pyinstaller",
            STAGE / "licenses",
            (TEXTS / "TERMS.txt").read_text(encoding="utf-8"),
        )
        needs, glibc = system_needs(app)
        for warning in check_dependencies(needs, glibc, _load_config()):
            print(f"warning: {warning}", file=sys.stderr)
        stage_files()
        version = project_version()
        built = [package(packager, version) for packager in formats]
    except (BuildError, LicenceError, subprocess.CalledProcessError) as error:
        print(f"build.py: {error}", file=sys.stderr)
        return 1
    done = time.monotonic()
    print(f"bundle {app.relative_to(ROOT)}: {_size_mib(app):.0f} MiB unpacked")
    # Where the installed size goes, so whoever trims it next starts from here.
    print(size_summary(app))
    for path in built:
        print(f"{path.relative_to(ROOT)}: {_size_mib(path):.0f} MiB")
    print(
        f"built in {done - started:.0f} s "
        f"(freeze {frozen - started:.0f} s, packages {done - frozen:.0f} s)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
