"""A preview source: its type decided once, from the bytes read by descriptor."""

from __future__ import annotations

from pathlib import Path

from app.core.filetype import Kind
from app.core.trust.safeio import open_verified
from previewers.source import PreviewSource


def _id3(payload: bytes) -> bytes:
    size = len(payload)
    synchsafe = bytes((size >> shift) & 0x7F for shift in (21, 14, 7, 0))
    return b"ID3\x04\x00\x00" + synchsafe + payload


def test_the_type_is_read_behind_large_tags_through_the_descriptor(
    tmp_path: Path,
) -> None:
    path = tmp_path / "song.mp3"
    path.write_bytes(_id3(bytes(100 << 10)) + b"#EXTM3U\n/etc/passwd\n")
    with open_verified(str(path)) as file:
        source = PreviewSource.from_file(str(path), file)
    assert source.mime == "application/octet-stream"
    assert source.kind is Kind.OTHER


def test_the_recorded_kind_is_taken_for_text_and_the_bytes_for_the_rest(
    tmp_path: Path,
) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("# Title\n")
    with open_verified(str(text)) as file:
        assert (
            PreviewSource.from_file(str(text), file, kind=Kind.MARKDOWN).kind
            is Kind.MARKDOWN
        )
    pdf = tmp_path / "notes.md"
    pdf.write_bytes(b"%PDF-1.7\n")
    with open_verified(str(pdf)) as file:
        assert PreviewSource.from_file(str(pdf), file, kind=Kind.MARKDOWN).kind is (
            Kind.PDF
        )


def test_the_name_shows_hidden_characters() -> None:
    source = PreviewSource.of_head("/x/a\u202etxt.exe", b"hello\n")
    assert source.name != "a\u202etxt.exe"
    assert source.is_text
