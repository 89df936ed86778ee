"""Every part the bundle carries, its licence texts, and the notice the package ships.

``build.py`` calls ``collect`` after freezing: it finds the distribution of
every module and file PyInstaller put in the bundle (by the RECORD of each
distribution in the build's virtualenv), adds the components recorded in
``packaging/licenses/components.toml`` (Qt, Chromium, FFmpeg, ICU, MuPDF, the
interpreter, the project), and fails when one has no licence text or a file
of the bundle belongs to nothing recorded. It then copies every text into one
folder with a ``NOTICE`` that names each part, its licence and where its
source is. ``python packaging/licensing.py --verify FOLDER`` checks such a
folder once installed.
"""

from __future__ import annotations

import argparse
import ast
import fnmatch
import importlib.metadata
import json
import re
import shutil
import sys
import sysconfig
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from packaging.requirements import Requirement

PACKAGING = Path(__file__).resolve().parent
ROOT = PACKAGING.parent
TEXTS = PACKAGING / "licenses"
TABLE = TEXTS / "components.toml"
MANIFEST = "manifest.json"
PROJECT = "deliverables"
PYTHON = "Python"
PYINSTALLER = "pyinstaller"
# The project's extras whose distributions may be frozen into the bundle.
RUNTIME_EXTRAS = ("", "ollama", "openai", "anthropic")
# Names a distribution gives its licence texts when its metadata lists none.
_LICENCE_NAME = re.compile(r"(LICEN[CS]E|COPYING|NOTICE)", re.IGNORECASE)


class LicenceError(RuntimeError):
    """A part of the bundle has no licence recorded; the message lists each."""


@dataclass(frozen=True)
class Part:
    """One thing the bundle carries under one licence: a distribution or a component."""

    name: str
    version: str
    licence: str
    texts: tuple[Path, ...]
    source: str
    note: str = ""
    covers: tuple[str, ...] = field(default=())


def _key(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _distributions() -> dict[str, importlib.metadata.Distribution]:
    found: dict[str, importlib.metadata.Distribution] = {}
    for dist in importlib.metadata.distributions():
        found.setdefault(_key(dist.metadata["Name"]), dist)
    return found


def runtime_closure(dists: dict[str, importlib.metadata.Distribution]) -> set[str]:
    """The project and every distribution it needs at run time, by its metadata.

    Of the extras only the chat providers' count (the spec freezes a
    provider when the build's virtualenv has it); what ``dev`` and
    ``packaging`` bring is for building and testing, never for the app's users.
    """
    needed = {PROJECT}
    waiting = [PROJECT]
    while waiting:
        dist = dists.get(waiting.pop())
        for line in (dist.requires or []) if dist is not None else []:
            requirement = Requirement(line)
            marker = requirement.marker
            if marker is not None and not any(
                marker.evaluate({"extra": extra}) for extra in RUNTIME_EXTRAS
            ):
                continue
            key = _key(requirement.name)
            if key not in needed:
                needed.add(key)
                waiting.append(key)
    return needed


def owners(
    dists: Iterable[importlib.metadata.Distribution],
) -> dict[Path, str]:
    """Each installed file's distribution, by the file's resolved path."""
    index: dict[Path, str] = {}
    for dist in dists:
        for entry in dist.files or ():
            index[Path(str(dist.locate_file(entry))).resolve()] = _key(
                dist.metadata["Name"]
            )
    return index


def _toc(path: Path) -> list[tuple[str, str, str]]:
    data = ast.literal_eval(path.read_text(encoding="utf-8"))
    entries = data[1] if isinstance(data[0], str) else data[0]
    return [tuple(entry) for entry in entries]  # type: ignore[misc]


def bundled_sources(workpath: Path) -> list[tuple[str, Path]]:
    """``(place in the bundle, source file)`` of every module and file PyInstaller
    put in the bundle; links inside the bundle are left out."""
    folder = workpath / "deliverables"
    modules = [(name, Path(src)) for name, src, _kind in _toc(folder / "PYZ-00.toc")]
    files = [
        (dest, Path(src))
        for dest, src, kind in _toc(folder / "COLLECT-00.toc")
        if kind != "SYMLINK"
    ]
    return modules + files


def owner_of(
    source: Path, index: dict[Path, str], workpath: Path, root: Path = ROOT
) -> str | None:
    """The distribution or component a bundled file comes from, if known."""
    resolved = source.resolve()
    if resolved in index:
        return index[resolved]
    stdlib = {Path(sysconfig.get_path(name)).resolve() for name in ("stdlib",)}
    stdlib.add(Path(sysconfig.get_path("platstdlib")).resolve())
    if any(resolved.is_relative_to(folder) for folder in stdlib):
        return PYTHON
    if resolved.name.startswith("libpython"):
        return PYTHON
    if resolved.is_relative_to(root.resolve()) and not resolved.is_relative_to(
        workpath.resolve()
    ):
        return PROJECT
    if resolved.is_relative_to(workpath.resolve()):
        # What PyInstaller made: the standard library's archive, the
        # executable (its bootloader) and Qt's path file.
        return PYTHON if resolved.name == "base_library.zip" else PYINSTALLER
    return None


def _dist_texts(dist: importlib.metadata.Distribution) -> list[Path]:
    """The licence files a distribution installed, by its metadata or their names."""
    files = [entry for entry in dist.files or () if ".dist-info/" in str(entry)]
    named = set(dist.metadata.get_all("License-File") or ())
    chosen = [
        entry
        for entry in files
        if entry.name in {Path(n).name for n in named}
        or _LICENCE_NAME.search(entry.name)
    ]
    return [Path(str(dist.locate_file(entry))) for entry in chosen]


def _text(spec: str, dists: dict[str, importlib.metadata.Distribution]) -> Path:
    if spec.startswith("dist:"):
        _prefix, name, inside = spec.split(":", 2)
        dist = dists[_key(name)]
        folder = Path(str(dist.locate_file(f"{dist.metadata['Name']}.dist-info")))
        matches = [p for p in _dist_texts(dist) if p.name == inside]
        return matches[0] if matches else folder / inside
    return TEXTS / spec


def load_parts(
    used: Iterable[str],
    dists: dict[str, importlib.metadata.Distribution],
    table: Path = TABLE,
) -> list[Part]:
    """The parts of the bundle: each distribution in ``used``, then each component."""
    config = tomllib.loads(table.read_text(encoding="utf-8"))
    overrides = config.get("distributions", {})
    extra = {_key(name): files for name, files in overrides.items()}
    parts = []
    for key in sorted(set(used) - {PYTHON}):
        dist = dists.get(key)
        own = _dist_texts(dist) if dist is not None else []
        texts = (*own, *(_text(spec, dists) for spec in extra.get(key, ())))
        meta = dist.metadata if dist is not None else None
        licence = ""
        if meta is not None:
            licence = meta.get("License-Expression") or meta.get("License") or ""
        version = meta["Version"] if meta is not None else "?"
        parts.append(
            Part(
                name=meta["Name"] if meta is not None else key,
                version=version,
                licence=licence.splitlines()[0] if licence else "see the texts",
                texts=tuple(texts),
                source=f"https://pypi.org/project/{key}/{version}/#files",
            )
        )
    parts.append(_python_part())
    for entry in config.get("component", ()):
        version = entry.get("version") or dists[_key(entry["version_of"])].version
        parts.append(
            Part(
                name=entry["name"],
                version=version,
                licence=entry["licence"],
                texts=tuple(_text(spec, dists) for spec in entry["files"]),
                source=entry["source"].format(version=version),
                note=" ".join(entry.get("note", "").split()),
                covers=tuple(entry["covers"]),
            )
        )
    return parts


def _python_part() -> Part:
    """The interpreter the bundle carries is the one running the build."""
    licence = Path(sysconfig.get_path("stdlib")) / "LICENSE.txt"
    version = ".".join(str(n) for n in sys.version_info[:3])
    return Part(
        name=PYTHON,
        version=version,
        licence="PSF-2.0",
        texts=(licence,),
        source=f"https://www.python.org/ftp/python/{version}/Python-{version}.tar.xz",
    )


def problems(
    parts: Sequence[Part],
    unowned: Iterable[str],
    places: Iterable[str],
    strays: Iterable[str] = (),
) -> list[str]:
    """What keeps the bundle from shipping with its licences, one line each."""
    found = [f"{place}: belongs to no distribution or component" for place in unowned]
    found += [
        f"{name}: frozen into the bundle, but the app does not require it"
        " (a build or test tool reached through an optional import?)"
        for name in sorted(strays)
    ]
    places = list(places)
    for part in parts:
        readable = [p for p in part.texts if p.is_file() and p.stat().st_size > 0]
        if not readable:
            found.append(f"{part.name} {part.version}: no licence file recorded")
        for missing in sorted(set(part.texts) - set(readable)):
            found.append(f"{part.name}: licence file {missing} is missing")
        for pattern in part.covers:
            if not any(fnmatch.fnmatchcase(place, pattern) for place in places):
                found.append(f"{part.name}: {pattern} matches nothing in the bundle")
    return found


def _folder_name(part: Part) -> str:
    return re.sub(r"[^\w.+-]+", "-", f"{part.name}-{part.version}").strip("-")


def write_folder(parts: Sequence[Part], target: Path, header: str) -> None:
    """Copy every part's texts into ``target`` and write its NOTICE and manifest."""
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    lines = [header.rstrip(), ""]
    manifest = []
    for part in parts:
        folder = target / _folder_name(part)
        folder.mkdir()
        names = []
        for text in part.texts:
            name = text.name if text.name not in names else f"{len(names)}-{text.name}"
            shutil.copyfile(text, folder / name)
            names.append(name)
        listed = ", ".join(f"{folder.name}/{name}" for name in names)
        lines += [
            f"{part.name} {part.version}",
            f"  Licence: {part.licence}",
            f"  Texts:   {listed}",
            f"  Source:  {part.source}",
        ]
        if part.note:
            lines.append(f"  Note:    {part.note}")
        lines.append("")
        manifest.append({"name": part.name, "version": part.version, "texts": names})
        manifest[-1]["folder"] = folder.name
    (target / "NOTICE").write_text("\n".join(lines), encoding="utf-8")
    (target / MANIFEST).write_text(json.dumps(manifest, indent=1), encoding="utf-8")


def collect(workpath: Path, target: Path, header: str) -> list[Part]:
    """Check the frozen bundle's licences and write them to ``target``."""
    dists = _distributions()
    index = owners(dists.values())
    used: set[str] = {PROJECT, PYINSTALLER}
    unowned: list[str] = []
    places: list[str] = []
    for place, source in bundled_sources(workpath):
        places.append(place)
        owner = owner_of(source, index, workpath)
        if owner is None:
            unowned.append(f"{place} ({source})")
        else:
            used.add(owner)
    strays = used - runtime_closure(dists) - {PYINSTALLER, PYTHON}
    parts = load_parts(used, dists)
    if found := problems(parts, unowned, places, strays):
        raise LicenceError("\n  ".join(["the bundle's licences:", *found]))
    write_folder(parts, target, header)
    return parts


def verify(folder: Path) -> list[str]:
    """What an installed licence folder lacks: each manifest entry's texts."""
    manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    notice = (folder / "NOTICE").read_text(encoding="utf-8")
    missing = []
    for entry in manifest:
        if f"{entry['name']} {entry['version']}" not in notice:
            missing.append(f"{entry['name']}: not in the NOTICE")
        for name in entry["texts"]:
            path = folder / entry["folder"] / name
            if not path.is_file() or path.stat().st_size == 0:
                missing.append(f"{entry['name']}: {path} is missing or empty")
    return missing


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verify", type=Path, required=True, help="licence folder")
    args = parser.parse_args(argv)
    missing = verify(args.verify)
    for line in missing:
        print(f"licensing.py: {line}", file=sys.stderr)
    if not missing:
        count = len(json.loads((args.verify / MANIFEST).read_text(encoding="utf-8")))
        print(f"{args.verify}: {count} parts, each with its licence texts")
    return 1 if missing else 0


if __name__ == "__main__":
    raise SystemExit(main())
