"""The native packages' description: desktop entry, metainfo, nfpm, bundle rules."""

from __future__ import annotations

import configparser
import re
import shutil
import subprocess
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from tests.packaging.loader import load

ROOT = Path(__file__).resolve().parents[2]
PACKAGING = ROOT / "packaging"
LINUX = PACKAGING / "linux"
DESKTOP = LINUX / "deliverables.desktop"
METAINFO = LINUX / "io.github.deliverables.deliverables.metainfo.xml"


bundle_rules = load("bundle_rules")
build = load("build")


def _desktop_entry() -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(DESKTOP, encoding="utf-8")
    return parser["Desktop Entry"]


def _nfpm() -> dict:
    return yaml.safe_load((PACKAGING / "nfpm.yaml").read_text(encoding="utf-8"))


# -- desktop entry ---------------------------------------------------------------


def test_the_desktop_entry_opens_files_with_the_viewer():
    entry = _desktop_entry()
    assert entry["Exec"] == "deliverables view %F"
    assert entry["Icon"] == "deliverables"
    assert entry["Terminal"] == "false"


@pytest.mark.parametrize(
    "mime",
    [
        "text/html",
        "text/markdown",
        "application/json",
        "text/csv",
        "text/tab-separated-values",
        "text/plain",
        "text/x-python",
        "application/javascript",
        "image/png",
        "image/jpeg",
        "image/svg+xml",
        "application/pdf",
        "audio/mpeg",
        "audio/x-wav",
        "video/mp4",
        "video/webm",
    ],
)
def test_open_with_is_offered_for_every_family_the_app_previews(mime):
    assert mime in _desktop_entry()["MimeType"].split(";")


@pytest.mark.skipif(
    shutil.which("desktop-file-validate") is None, reason="desktop-file-utils"
)
def test_the_desktop_entry_validates():
    result = subprocess.run(
        ["desktop-file-validate", str(DESKTOP)], capture_output=True, text=True
    )
    assert result.returncode == 0 and result.stdout == "", result.stdout


# -- AppStream -------------------------------------------------------------------


def test_the_metainfo_launches_the_desktop_entry():
    root = ET.parse(METAINFO).getroot()
    assert root.get("type") == "desktop-application"
    assert METAINFO.name == f"{root.findtext('id')}.metainfo.xml"
    assert root.findtext("launchable") == DESKTOP.name
    assert root.findtext("provides/binary") == "deliverables"


@pytest.mark.skipif(shutil.which("appstreamcli") is None, reason="appstream")
def test_the_metainfo_validates():
    result = subprocess.run(
        ["appstreamcli", "validate", "--no-net", str(METAINFO)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout


# -- nfpm ------------------------------------------------------------------------


def test_every_file_the_packages_install_is_in_the_tree_or_built():
    # The bundle is frozen, the PNG sizes rendered, and the scalable icon
    # staged from the app's resources.
    built = {
        "./bundle/deliverables",
        "./icons/deliverables.svg",
        "./licenses",
        "./licenses/NOTICE",
    } | {f"./icons/{size}/deliverables.png" for size in build.ICON_SIZES}
    assert build.APP_ICON.is_file()
    for item in _nfpm()["contents"]:
        if item.get("type") == "symlink":
            continue
        source = item["src"]
        assert source in built or (PACKAGING / source).is_file(), source


def test_icons_come_in_every_size_from_16_to_512():
    destinations = {item["dst"] for item in _nfpm()["contents"]}
    assert "/usr/share/icons/hicolor/scalable/apps/deliverables.svg" in destinations
    for size in (16, 32, 48, 64, 128, 256, 512):
        assert size in build.ICON_SIZES
        assert f"/usr/share/icons/hicolor/{size}x{size}/apps/deliverables.png" in (
            destinations
        )


def test_the_command_is_on_the_path():
    links = [item for item in _nfpm()["contents"] if item.get("type") == "symlink"]
    (link,) = [item for item in links if item["dst"] == "/usr/bin/deliverables"]
    assert link == {
        "src": "/opt/deliverables/deliverables",
        "dst": "/usr/bin/deliverables",
        "type": "symlink",
    }


def test_the_deb_names_qts_system_libraries_per_distribution():
    depends = _nfpm()["overrides"]["deb"]["depends"]
    for package in ("libxcb-cursor0", "libnss3", "libgl1", "libxkbcommon-x11-0"):
        assert package in depends
    # Debian 13 and Ubuntu 24.04 renamed these in the 64-bit time_t transition.
    assert "libasound2 | libasound2t64" in depends
    assert "libglib2.0-0 | libglib2.0-0t64" in depends


def test_the_rpm_requires_libraries_by_soname():
    depends = _nfpm()["overrides"]["rpm"]["depends"]
    assert all(
        re.fullmatch(r"lib\S+\.so[\w.]*\((GLIBC_[\d.]+)?\)\(64bit\)", d)
        for d in depends
    )


def test_a_library_the_bundle_links_to_but_the_packages_miss_fails_the_build(
    monkeypatch,
):
    monkeypatch.setattr(build, "_deb_package_of", lambda soname: "libfoo1")
    config = _nfpm()
    with pytest.raises(build.BuildError, match=r"libfoo\.so\.1"):
        build.check_dependencies({"libfoo.so.1"}, "2.35", config)


def test_the_declared_dependencies_cover_the_libraries_qt_links_to(monkeypatch):
    packages = {"libxcb-cursor.so.0": "libxcb-cursor0", "libnss3.so": "libnss3"}
    monkeypatch.setattr(build, "_deb_package_of", packages.get)
    assert build.check_dependencies(set(packages), "2.35", _nfpm()) == []


def test_the_install_scripts_are_valid_shell():
    scripts = _nfpm()["scripts"]
    for name in ("postinstall", "postremove"):
        path = PACKAGING / scripts[name]
        subprocess.run(["sh", "-n", str(path)], check=True)


# -- AppArmor and the sandbox ----------------------------------------------------


def test_the_apparmor_profile_grants_user_namespaces_to_the_apps_own_path():
    profile = (LINUX / "apparmor" / "deliverables").read_text(encoding="utf-8")
    assert "abi <abi/4.0>," in profile
    assert re.search(r"^\s*userns,$", profile, flags=re.MULTILINE)
    (attachment,) = re.findall(r"^profile deliverables (\S+) ", profile, re.MULTILINE)
    assert attachment.startswith("/opt/deliverables/")
    assert "deliverables" in attachment and "QtWebEngineProcess" in attachment


def test_the_profile_is_installed_only_where_apparmor_understands_it():
    script = (LINUX / "postinstall.sh").read_text(encoding="utf-8")
    assert "/etc/apparmor.d/abi/4.0" in script
    assert "command -v apparmor_parser" in script


def test_nothing_in_the_packaging_turns_the_sandbox_off():
    for path in PACKAGING.rglob("*"):
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            for name in ("--no-sandbox", "QTWEBENGINE_DISABLE_SANDBOX"):
                assert name not in text, path


# -- what goes into the bundle ---------------------------------------------------


@pytest.mark.parametrize(
    ("destination", "kept"),
    [
        ("PySide6/Qt/libexec/QtWebEngineProcess", True),
        ("PySide6/Qt/resources/qtwebengine_resources.pak", True),
        ("PySide6/Qt/resources/icudtl.dat", True),
        ("PySide6/Qt/translations/qtwebengine_locales/en-US.pak", True),
        ("PySide6/Qt/translations/qtwebengine_locales/de.pak", False),
        ("PySide6/Qt/translations/qtbase_de.qm", False),
        ("PySide6/Qt/resources/qtwebengine_devtools_resources.pak", False),
        ("PySide6/Qt/qml/QtQuick/Controls/libqtquickcontrols2plugin.so", False),
        ("PySide6/Qt/plugins/platforms/libqxcb.so", True),
        ("PySide6/Qt/plugins/platforms/libqwayland.so", True),
        ("PySide6/Qt/plugins/platforms/libqoffscreen.so", True),
        ("PySide6/Qt/plugins/platformthemes/libqgtk3.so", False),
        ("PySide6/Qt/lib/libQt6WebEngineCore.so.6", True),
        ("PySide6/Qt/lib/libQt6Pdf.so.6", False),
        ("jsonschema/benchmarks/issue232/issue.json", False),
        ("jsonschema_specifications/schemas/draft7/metaschema.json", True),
    ],
)
def test_the_bundle_keeps_what_the_web_engine_needs_and_nothing_unused(
    destination, kept
):
    assert bundle_rules.is_used(destination) is kept


def test_the_bundle_and_the_wheel_carry_every_bundled_browser_library():
    from app.core.serve.web_libraries import bundled_catalogue

    catalogue = bundled_catalogue()
    # The spec copies resources/ whole; no rule may then drop a library file.
    spec = (PACKAGING / "deliverables.spec").read_text(encoding="utf-8")
    assert 'for name in ("resources",)' in spec
    places = ["resources/web/libraries/manifest.json"]
    for library in catalogue.libraries:
        for version in library.versions:
            places.append(f"resources/web/libraries/{version.licence_file}")
            places += [
                f"resources/web/libraries/{library.package}/{version.text}/{name}"
                for name in version.files
            ]
    assert [place for place in places if not bundle_rules.is_used(place)] == []
    # A wheel carries resources/ as app/_resources, which app.resources finds.
    with open(ROOT / "pyproject.toml", "rb") as file:
        wheel = tomllib.load(file)["tool"]["hatch"]["build"]["targets"]["wheel"]
    assert wheel["force-include"]["resources"] == "app/_resources"


def test_the_build_fails_when_a_bundled_library_differs_from_its_manifest(tmp_path):
    from app.core.serve.web_libraries import libraries_folder

    folder = tmp_path / "libraries"
    shutil.copytree(libraries_folder(), folder)
    build.check_web_libraries(folder)
    changed = folder / "d3" / "7.9.2" / "dist" / "d3.min.js"
    changed.write_bytes(changed.read_bytes().replace(b"d3", b"D3", 1))
    with pytest.raises(build.BuildError, match=r"SHA-256 differs.*d3\.min\.js"):
        build.check_web_libraries(folder)
    (folder / "manifest.json").unlink()
    with pytest.raises(build.BuildError, match="manifest"):
        build.check_web_libraries(folder)


def test_the_bundled_libraries_are_packed_and_still_read_as_recorded(tmp_path):
    from app.core.serve.web_libraries import (
        libraries_folder,
        load_catalogue,
        read_library_file,
    )

    folder = tmp_path / "libraries"
    shutil.copytree(libraries_folder(), folder)
    before = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    saved = build.pack_web_libraries(folder)
    after = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    assert saved == before - after
    assert after < before / 3
    catalogue = load_catalogue(folder)
    for library in catalogue.libraries:
        for version in library.versions:
            # Licences stay readable as text where they are.
            assert (folder / version.licence_file).is_file()
            for entry in version.files.values():
                path = catalogue.path_of(library, version, entry.name)
                data = read_library_file(path, entry.size + 1)
                assert len(data) == entry.size
    # What the build packed, it checks as it checks the originals.
    packed = folder / "d3" / "7.9.2" / "dist" / "d3.min.js.xz"
    packed.write_bytes(packed.read_bytes()[:-64])
    with pytest.raises(build.BuildError, match=r"cannot be read.*d3\.min\.js"):
        build.check_web_libraries(folder)


def test_a_link_to_a_file_left_out_is_left_out_too():
    entries = [
        ("PySide6/Qt/lib/libQt6Pdf.so.6", "/wheel/libQt6Pdf.so.6", "BINARY"),
        ("libQt6Pdf.so.6", "PySide6/Qt/lib/libQt6Pdf.so.6", "SYMLINK"),
        ("PySide6/Qt/lib/libQt6Core.so.6", "/wheel/libQt6Core.so.6", "BINARY"),
        ("libQt6Core.so.6", "PySide6/Qt/lib/libQt6Core.so.6", "SYMLINK"),
    ]
    kept = bundle_rules.without(entries, lambda dest: not bundle_rules.is_used(dest))
    assert [dest for dest, _source, _kind in kept] == [
        "PySide6/Qt/lib/libQt6Core.so.6",
        "libQt6Core.so.6",
    ]


def test_system_libraries_stay_out_of_the_bundle(tmp_path):
    wheels = tmp_path / "site-packages"
    entries = [
        ("PySide6/Qt/lib/libQt6Gui.so.6", str(wheels / "libQt6Gui.so.6"), "BINARY"),
        (
            "libxcb-cursor.so.0",
            "/usr/lib/x86_64-linux-gnu/libxcb-cursor.so.0",
            "BINARY",
        ),
        ("libnss3.so", "/usr/lib/x86_64-linux-gnu/libnss3.so", "BINARY"),
    ]
    kept, dropped = bundle_rules.split_system_libraries(entries, [wheels])
    assert [dest for dest, _s, _k in kept] == ["PySide6/Qt/lib/libQt6Gui.so.6"]
    assert dropped == ["libnss3.so", "libxcb-cursor.so.0"]


def test_the_build_summary_names_the_largest_files_without_counting_links(tmp_path):
    lib = tmp_path / "_internal" / "lib"
    lib.mkdir(parents=True)
    (lib / "big.so").write_bytes(b"\0" * 3_000_000)
    (lib / "small.so").write_bytes(b"\0" * 1_000_000)
    (lib / "tiny.txt").write_bytes(b"\0" * 10)
    (tmp_path / "app").write_bytes(b"\0" * 2_000_000)
    (lib / "big.so.6").symlink_to("big.so")

    assert build.largest_files(tmp_path, 3) == [
        (3_000_000, "_internal/lib/big.so"),
        (2_000_000, "app"),
        (1_000_000, "_internal/lib/small.so"),
    ]
    summary = build.size_summary(tmp_path, 2).splitlines()
    assert summary[0].endswith("of 6.0 MB:")
    assert [line.split() for line in summary[1:]] == [
        ["3.0", "MB", "_internal/lib/big.so"],
        ["2.0", "MB", "app"],
    ]


def test_pymupdfs_heavy_extras_and_unused_qt_modules_are_excluded():
    excluded = set(bundle_rules.EXCLUDED_MODULES)
    assert {"numpy", "onnxruntime", "networkx"} <= excluded
    for name in ("Qt3DCore", "QtQuick3D", "QtCharts", "QtDataVisualization"):
        assert f"PySide6.{name}" in excluded
    assert "PySide6.QtDesigner" in excluded
    # Its library stays, linked by QtWebEngineCore; no binding imports it.
    assert "PySide6.QtPositioning" in excluded
    for needed in ("QtWebEngineCore", "QtWebEngineWidgets", "QtMultimedia"):
        assert f"PySide6.{needed}" not in excluded


# -- CI and README ---------------------------------------------------------------


def test_ci_builds_installs_and_checks_the_package():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "packaging/ci.sh" in ci
    script = (PACKAGING / "ci.sh").read_text(encoding="utf-8")
    for step in (
        "packaging/build.py --formats deb",
        "apt-get install",
        "desktop-file-validate",
        "appstreamcli validate",
        "smoke_test.py",
        "apt-get purge",
    ):
        assert step in script


def test_the_readme_says_how_to_build_and_install_the_packages():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    install = readme.split("## Install", 1)[1].split("\n## ", 1)[0]
    assert "python packaging/build.py" in install
    assert "apt-get install ./dist/deliverables_" in install


# -- licences --------------------------------------------------------------------


def test_the_metainfo_and_the_packages_state_the_same_licence():
    root = ET.parse(METAINFO).getroot()
    stated = " ".join(_nfpm()["license"].split())
    assert root.findtext("project_license") == stated
    # The project's code is MIT; MuPDF puts the whole under the AGPL's terms.
    assert stated.startswith("MIT AND AGPL-3.0-only AND LGPL-3.0-only")


def test_the_package_installs_the_licence_notice_where_users_look():
    destinations = {item["dst"]: item for item in _nfpm()["contents"]}
    assert destinations["/opt/deliverables/licenses"]["src"] == "./licenses"
    assert destinations["/usr/share/doc/deliverables/copyright"]["src"] == (
        "./licenses/NOTICE"
    )


def test_the_bundle_carries_every_grammar_and_its_queries():
    import ast
    import importlib.util

    from previewers.text.syntax_tree import grammar_modules

    # The grammars are imported by name, which PyInstaller cannot see: the
    # spec names them as hidden imports, and copies the queries beside
    # their module.
    spec = (PACKAGING / "deliverables.spec").read_text(encoding="utf-8")
    assert "hiddenimports += grammar_modules()" in spec
    assert 'QUERIES = "previewers/text/queries"' in spec
    assert "datas.append((str(ROOT / QUERIES), QUERIES))" in spec
    queries = ROOT / "previewers" / "text" / "queries"
    assert [
        place
        for path in queries.iterdir()
        if not bundle_rules.is_used(place := f"previewers/text/queries/{path.name}")
    ] == []
    assert len(grammar_modules()) >= 5
    for module in grammar_modules():
        found = importlib.util.find_spec(module)
        assert found is not None and found.origin is not None
        # The compiled parser is an extension module the package imports by a
        # plain import statement, which PyInstaller follows from the hidden
        # import; no grammar is loaded from anywhere else.
        source = ast.parse(Path(found.origin).read_text(encoding="utf-8"))
        imported = {
            node.module for node in ast.walk(source) if isinstance(node, ast.ImportFrom)
        }
        assert "_binding" in imported
        binding = importlib.util.find_spec(f"{module}._binding")
        assert binding is not None and binding.origin is not None
        assert binding.origin.endswith(".so") or binding.origin.endswith(".pyd")
