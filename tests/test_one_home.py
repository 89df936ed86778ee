"""One concept, one home: file types, the policy and containment each live once.

These read the source, not its behaviour: a second magic-byte table or a
third "is this path inside that folder" is the decay they keep out.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("app", "previewers")
FILETYPE = Path("app/core/filetype")
# The demo writes sample files, so it spells out their headers; it decides none.
WRITERS = (Path("app/demo"),)

# The first bytes of formats the app tells apart; only the file-type service
# may hold them.
SIGNATURES = (
    b"\x89PNG",
    b"\xff\xd8\xff",
    b"GIF87a",
    b"GIF89a",
    b"RIFF",
    b"%PDF",
    b"PK\x03\x04",
    b"\x7fELF",
    b"ID3",
    b"OggS",
    b"fLaC",
    b"\x1a\x45\xdf\xa3",
    b"ftyp",
    b"#extm3u",
    b"#EXTM3U",
    b"ffconcat",
    b"\xef\xbb\xbf",
    b"\xff\xfe",
    b"\xfe\xff",
)


def _sources() -> list[tuple[Path, ast.Module]]:
    found = []
    for top in SOURCES:
        for path in sorted((ROOT / top).rglob("*.py")):
            relative = path.relative_to(ROOT)
            found.append((relative, ast.parse(path.read_text(encoding="utf-8"))))
    return found


def _inside(path: Path, *folders: Path) -> bool:
    return any(path.is_relative_to(folder) for folder in folders)


def test_no_module_asks_the_system_mime_registry() -> None:
    users = [
        str(path)
        for path, tree in _sources()
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        and "mimetypes"
        in ([alias.name for alias in node.names] + [getattr(node, "module", "")])
    ]
    assert users == []


def test_magic_bytes_live_only_in_the_file_type_service() -> None:
    found = [
        f"{path}:{node.lineno}"
        for path, tree in _sources()
        if not _inside(path, FILETYPE, *WRITERS)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, bytes)
        and node.value.startswith(SIGNATURES)
    ]
    assert found == []


def test_byte_order_marks_are_one_table() -> None:
    found = [
        f"{path}:{node.lineno}"
        for path, tree in _sources()
        if not _inside(path, FILETYPE)
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr.startswith("BOM_")
    ]
    assert found == []


def test_only_the_core_loads_a_policy() -> None:
    found = [
        f"{path}:{node.lineno}"
        for path, tree in _sources()
        if not _inside(path, Path("app/core"))
        for node in ast.walk(tree)
        if (isinstance(node, ast.Name) and node.id == "load_policy")
        or (isinstance(node, ast.alias) and node.name == "load_policy")
    ]
    assert found == []


def test_each_shared_helper_is_defined_once() -> None:
    shared = {
        "looks_binary",
        "find_bom",
        "kind_from_name",
        "mime_from_name",
        "is_svg",
        "detect",
        "is_within",
        "resolve_keep_leaf",
        "human_size",
        "current_policy",
        "check_path",
        "resource_path",
    }
    defined = Counter(
        node.name
        for _path, tree in _sources()
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name in shared
    )
    assert {name: defined[name] for name in shared} == dict.fromkeys(shared, 1)


CONTAINMENT_NAMES = ("is_within", "within", "inside", "is_inside", "is_below")


def test_no_private_copy_of_the_containment_helper() -> None:
    # A helper named for containment must ask is_within, not answer itself;
    # paths of a remote host ask it too, with their separator (sep="/").
    copies = [
        f"{path}:{node.lineno} {node.name}"
        for path, tree in _sources()
        if path != Path("app/core/trust/paths.py")
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.name.lstrip("_").startswith(CONTAINMENT_NAMES)
        and not any(
            isinstance(call, ast.Name) and call.id == "is_within"
            for call in ast.walk(node)
        )
    ]
    assert copies == []
