"""The registry: one ordered table, specific first, the fallback always last."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QWidget

from app.core.filetype import Kind, kind_from_name
from app.core.trust.safeio import VerifiedFile
from previewers import registry
from previewers.fallback import FallbackPreviewer
from previewers.registry import PreviewerRegistry, RegistryError
from previewers.source import PreviewSource
from previewers.widget import PreviewWidget


def _source(
    head: bytes, name: str, *, mime: str = "", source_view: bool = False
) -> PreviewSource:
    source = PreviewSource.of_head(
        f"/nowhere/{name}", head, kind=kind_from_name(name), source_view=source_view
    )
    assert not mime or source.mime == mime
    return source


class _MimePreviewer:
    def __init__(self, name: str, prefix: str) -> None:
        self.name = name
        self._prefix = prefix

    def accepts(self, source: PreviewSource) -> bool:
        return source.mime.startswith(self._prefix)

    def create(
        self, source: PreviewSource, file: VerifiedFile, parent: QWidget | None
    ) -> PreviewWidget:
        raise NotImplementedError


def _table() -> PreviewerRegistry:
    return PreviewerRegistry([_MimePreviewer("text", "text/")], FallbackPreviewer())


def test_app_table_ends_in_the_fallback() -> None:
    names = registry.REGISTRY.names()
    assert names[-1] == "fallback"
    # Specific, magic-byte previewers come before the generic text one.
    assert names.index("image") < names.index("code")
    assert names.index("media") < names.index("code")


def test_register_before_puts_the_specific_entry_first() -> None:
    table = _table()
    table.register(_MimePreviewer("image", "image/"))
    table.register(_MimePreviewer("svg", "image/svg+xml"), before="image")
    assert table.names() == ["text", "svg", "image", "fallback"]
    svg = _source(b"<svg/>", "pic.svg", mime="image/svg+xml")
    png = _source(b"\x89PNG\r\n\x1a\n", "pic.png")
    assert table.choose(svg).name == "svg"
    assert table.choose(png).name == "image"


def test_register_rejects_duplicates_and_unknown_anchors() -> None:
    table = _table()
    with pytest.raises(RegistryError):
        table.register(_MimePreviewer("text", "text/"))
    with pytest.raises(RegistryError):
        table.register(_MimePreviewer("pdf", "application/pdf"), before="nope")


def test_each_text_kind_goes_to_its_own_previewer() -> None:
    expected = {"a.md": "markdown", "a.json": "json", "a.csv": "csv"}
    for name, previewer in expected.items():
        assert registry.choose(_source(b"hello\n", name)).name == previewer


def test_source_view_of_any_text_kind_is_text() -> None:
    for name in ("a.md", "a.json", "a.csv", "a.txt"):
        chosen = registry.choose(_source(b"hello\n", name, source_view=True))
        assert chosen.name == "code"


def test_binary_txt_goes_to_the_fallback() -> None:
    source = _source(b"\x00\x01\x02\x03binary\x00" * 50, "notes.txt")
    assert kind_from_name(source.name) is Kind.TEXT
    assert source.kind is Kind.OTHER  # the bytes decide
    assert registry.choose(source).name == "fallback"


def test_png_named_txt_is_shown_as_an_image() -> None:
    assert registry.choose(_source(b"\x89PNG\r\n\x1a\n", "a.txt")).name == "image"


def test_unknown_and_office_files_go_to_the_fallback() -> None:
    assert registry.choose(_source(b"PK\x03\x04", "a.docx")).name == "fallback"
    assert registry.choose(_source(b"\x7fELF\x02", "tool")).name == "fallback"


def test_svg_is_never_decoded_as_an_image() -> None:
    head = b"<svg xmlns='http://www.w3.org/2000/svg'/>"
    assert registry.choose(_source(head, "a.svg")).name == "svg"
    assert registry.choose(_source(head, "disguised.png")).name == "svg"
    assert registry.choose(_source(head, "a.svg", source_view=True)).name == "code"


def test_text_named_mp4_shows_as_text() -> None:
    assert registry.choose(_source(b"not a video\n", "clip.mp4")).name == ("code")


def test_the_registry_loads_no_family_reader_before_a_file_needs_it() -> None:
    import subprocess
    import sys

    # The window builds the registry at start-up; the JSON reader (msgspec,
    # orjson) and the Markdown document wait for a file of theirs.
    probe = (
        "import sys; import previewers.registry;"
        "print(sorted(m for m in ('app.formats.json_load', 'msgspec',"
        " 'previewers.markdown.document', 'markdown_it') if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert result.stdout.strip() == "[]"
