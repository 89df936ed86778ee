"""Magic-byte detection: content first, then the name; binary heads are spotted."""

from __future__ import annotations

import codecs
import io
import zipfile

from previewers import magic

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(32)


def _zip(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()[: magic.HEAD_SIZE]


def test_png_named_pdf_is_detected_as_png() -> None:
    assert magic.sniff_mime(PNG, "report.pdf") == "image/png"


def test_text_named_mp4_is_plain_text() -> None:
    assert magic.sniff_mime(b"just some words\n", "clip.mp4") == "text/plain"


def test_text_keeps_a_textual_mime_from_its_name() -> None:
    assert magic.sniff_mime(b'{"a": 1}\n', "data.json") == "application/json"


def test_plain_zip_is_a_zip_archive() -> None:
    head = _zip({"notes.txt": b"hello"})
    assert magic.detect(head, "bundle.bin") == magic.MagicType(
        "application/zip", "ZIP archive"
    )


def test_docx_is_named_as_a_word_document_in_a_zip() -> None:
    head = _zip({"[Content_Types].xml": b"<Types/>", "word/document.xml": b"<w/>"})
    found = magic.detect(head, "letter.zip")
    assert found.mime.endswith("wordprocessingml.document")
    assert found.description == "Word document (.docx, ZIP container)"


def test_elf_executable() -> None:
    head = b"\x7fELF\x02\x01\x01" + bytes(60)
    assert magic.describe(head, "tool.txt") == "ELF executable"


def test_pdf_magic() -> None:
    assert magic.describe(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "x") == "PDF"


def test_empty_file_has_its_own_type() -> None:
    assert magic.detect(b"", "empty.txt") == magic.MagicType(
        magic.EMPTY_MIME, "empty file"
    )


def test_unknown_binary() -> None:
    head = bytes(range(256)) * 4
    assert magic.detect(head, "blob") == magic.MagicType(
        magic.OCTET_STREAM, "unknown binary"
    )


def test_nul_bytes_make_a_txt_binary() -> None:
    assert magic.looks_binary(b"text\x00\x00\x01\x02 more")
    assert magic.sniff_mime(b"text\x00\x00\x01\x02 more", "notes.txt") == (
        magic.OCTET_STREAM
    )


def test_mostly_invalid_utf8_is_binary_but_a_few_bad_bytes_are_not() -> None:
    mostly_bad = bytes([0x80, 0xFE, 0x41]) * 100
    few_bad = b"caf\xe9 au lait, " * 3 + b"plain words " * 40
    assert magic.looks_binary(mostly_bad)
    assert not magic.looks_binary(few_bad)


def test_utf16_with_bom_is_text_despite_nul_bytes() -> None:
    head = codecs.BOM_UTF16_LE + "hello".encode("utf-16-le")
    assert not magic.looks_binary(head)
    assert magic.sniff_mime(head, "hello.txt") == "text/plain"


def test_character_cut_by_the_head_end_is_not_invalid() -> None:
    head = ("é" * 2047).encode() + b"\xc3"  # 4095 bytes, last one a cut character
    assert not magic.looks_binary(head)


def test_svg_and_html_are_sniffed_from_text() -> None:
    assert magic.sniff_mime(b"<svg xmlns='...'/>", "pic") == "image/svg+xml"
    assert magic.sniff_mime(b"<!DOCTYPE html><html>", "page") == "text/html"


# ID3 tags in front of what FFmpeg would really read -------------------------------

MP3_FRAME = b"\xff\xfb\x90\x64" + bytes(413)  # MPEG-1 Layer III frame header
PLAYLIST = b"#EXTM3U\n#EXTINF:2,\n/etc/passwd\n#EXT-X-ENDLIST\n"
CONCAT = b"ffconcat version 1.0\nfile 'secret.wav'\n"


def id3(payload: bytes = b"", *, size: int | None = None, flags: int = 0) -> bytes:
    """An ID3v2.4 tag holding ``payload``; ``size`` may claim something else."""
    claimed = len(payload) if size is None else size
    synchsafe = bytes((claimed >> shift) & 0x7F for shift in (21, 14, 7, 0))
    return b"ID3\x04\x00" + bytes((flags,)) + synchsafe + payload


def _frames() -> bytes:
    return b"TIT2\x00\x00\x00\x06\x00\x00\x03Title" + bytes(20)  # a title and padding


def _assert_not_media(head: bytes) -> None:
    found = magic.detect(head, "song.mp3")
    assert found.mime == magic.OCTET_STREAM
    assert not found.mime.startswith(("audio/", "video/"))


def test_an_hls_playlist_behind_an_id3_tag_is_not_audio() -> None:
    head = id3(_frames()) + PLAYLIST
    _assert_not_media(head)
    assert "playlist" in magic.describe(head, "song.mp3")


def test_an_ffconcat_list_behind_an_id3_tag_is_not_audio() -> None:
    _assert_not_media(id3(_frames()) + CONCAT)


def test_a_playlist_behind_two_id3_tags_is_not_audio() -> None:
    second = b"ID3\x03\x00\x00" + bytes((0, 0, 0, 4)) + bytes(4)  # a v2.3 tag
    _assert_not_media(id3(_frames()) + second + PLAYLIST)


def test_a_playlist_behind_an_id3_tag_with_a_footer_is_not_audio() -> None:
    footer = b"3DI\x04\x00\x10" + bytes((0, 0, 0, len(_frames())))
    _assert_not_media(id3(_frames(), flags=0x10) + footer + PLAYLIST)


def test_an_id3_tag_claiming_more_than_the_file_holds_is_not_audio() -> None:
    # The largest size a tag can claim (256 MiB) in a file of a few bytes.
    _assert_not_media(id3(b"tiny", size=(1 << 28) - 1))


def test_an_mp3_frame_after_an_id3_tag_is_audio() -> None:
    head = id3(_frames()) + MP3_FRAME
    assert magic.detect(head, "song.bin") == magic.MagicType("audio/mpeg", "MP3 audio")


def test_an_mp3_frame_after_two_id3_tags_is_audio() -> None:
    head = id3(_frames()) + id3(b"") + MP3_FRAME
    assert magic.sniff_mime(head, "song.bin") == "audio/mpeg"


def test_an_id3_tag_larger_than_the_head_is_still_audio() -> None:
    # Cover art makes real tags far larger than the head; what follows is not
    # in the head, and the file stays MP3 rather than breaking real music.
    head = id3(bytes(magic.HEAD_SIZE), size=300_000)[: magic.HEAD_SIZE]
    assert magic.sniff_mime(head, "song.mp3") == "audio/mpeg"
