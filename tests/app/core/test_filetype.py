"""The file-type service: bytes first, then the name, from fixed tables only."""

from __future__ import annotations

import codecs
import io
import mimetypes
import wave
import zipfile
from pathlib import Path

import pytest

from app.core import filetype
from app.core.filetype import (
    Kind,
    detect,
    kind_from_name,
    legacy_encoding,
    looks_binary,
    playlist_refusal,
)
from app.core.filetype.alphabets import implausible_share
from tests.data.legacy_texts import CODE_PAGES, REPORTS
from tests.data.udhr_texts import DECLARATIONS

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(32)


def _zip(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()[: filetype.HEAD_SIZE]


def _words(head: bytes, name: str) -> tuple[str, str]:
    found = detect(head, name)
    return found.mime, found.description


# Kinds from names ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("index.HTML", Kind.HTML),
        ("notes.md", Kind.MARKDOWN),
        ("pipeline.log", Kind.TEXT),
        ("clean_data.py", Kind.CODE),
        ("Makefile", Kind.CODE),
        ("metrics.json", Kind.JSON),
        ("rows.jsonl", Kind.JSON),
        ("sales.csv", Kind.CSV),
        ("sales.tsv", Kind.CSV),
        ("chart.png", Kind.IMAGE),
        ("diagram.svg", Kind.IMAGE),
        ("report.pdf", Kind.PDF),
        ("tone.wav", Kind.AUDIO),
        ("clip.avi", Kind.VIDEO),
        ("handoff.docx", Kind.OTHER),
        ("bundle.zip", Kind.OTHER),
        ("noextension", Kind.OTHER),
    ],
)
def test_kind_from_name(name, kind):
    assert kind_from_name(name) is kind


def test_names_never_ask_the_system_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args: object, **_kwargs: object) -> object:
        raise AssertionError("the system MIME registry was consulted")

    monkeypatch.setattr(mimetypes, "guess_type", refuse)
    # Qt Linguist on one machine, MPEG transport stream on another: TypeScript here.
    assert filetype.mime_from_name("x.ts") == "text/typescript"
    assert kind_from_name("x.ts") is Kind.CODE
    assert detect(b"let x: number = 1;\n", "x.ts").mime == "text/typescript"


# Magic bytes first, then the name ------------------------------------------------


def test_png_named_pdf_is_detected_as_png() -> None:
    assert detect(PNG, "report.pdf").mime == "image/png"


def test_text_named_mp4_is_plain_text() -> None:
    assert detect(b"just some words\n", "clip.mp4").mime == "text/plain"


def test_text_keeps_a_textual_mime_from_its_name() -> None:
    assert detect(b'{"a": 1}\n', "data.json").mime == "application/json"


def test_plain_zip_is_a_zip_archive() -> None:
    head = _zip({"notes.txt": b"hello"})
    assert _words(head, "bundle.bin") == ("application/zip", "ZIP archive")


def test_docx_is_named_as_a_word_document_in_a_zip() -> None:
    head = _zip({"[Content_Types].xml": b"<Types/>", "word/document.xml": b"<w/>"})
    found = detect(head, "letter.zip")
    assert found.mime.endswith("wordprocessingml.document")
    assert found.description == "Word document (.docx, ZIP container)"


def test_elf_executable() -> None:
    head = b"\x7fELF\x02\x01\x01" + bytes(60)
    assert detect(head, "tool.txt").description == "ELF executable"


def test_pdf_magic() -> None:
    assert detect(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "x").description == "PDF"


def test_empty_file_has_its_own_type() -> None:
    assert _words(b"", "empty.txt") == (filetype.EMPTY_MIME, "empty file")


def test_unknown_binary() -> None:
    head = bytes(range(256)) * 4
    assert _words(head, "blob") == (filetype.OCTET_STREAM, "unknown binary")


def test_nul_bytes_make_a_txt_binary() -> None:
    assert filetype.looks_binary(b"text\x00\x00\x01\x02 more")
    assert detect(b"text\x00\x00\x01\x02 more", "notes.txt").mime == (
        filetype.OCTET_STREAM
    )


def test_mostly_invalid_utf8_is_binary_but_a_few_bad_bytes_are_not() -> None:
    mostly_bad = bytes([0x80, 0xFE, 0x41]) * 100
    few_bad = b"caf\xe9 au lait, " * 3 + b"plain words " * 40
    assert filetype.looks_binary(mostly_bad)
    assert not filetype.looks_binary(few_bad)


def test_vertical_tabs_are_text_to_the_one_binary_test() -> None:
    # The two tests this one replaced disagreed about exactly this head.
    assert not filetype.looks_binary(b"a\x0bb\x0b" * 100)
    assert detect(b"a\x0bb\x0b" * 100, "tabs.txt").text


def test_utf16_with_bom_is_text_despite_nul_bytes() -> None:
    head = codecs.BOM_UTF16_LE + "hello".encode("utf-16-le")
    assert not filetype.looks_binary(head)
    assert detect(head, "hello.txt").mime == "text/plain"


def test_byte_order_marks_name_codec_and_unit() -> None:
    head = codecs.BOM_UTF32_LE + "hi".encode("utf-32-le")
    found = filetype.find_bom(head)
    assert found is not None
    assert (found.codec, found.unit, found.mark) == ("utf-32-le", 4, head[:4])
    assert filetype.find_bom(b"plain") is None


def test_character_cut_by_the_head_end_is_not_invalid() -> None:
    head = ("é" * 2047).encode() + b"\xc3"  # 4095 bytes, last one a cut character
    assert not filetype.looks_binary(head)


def test_svg_and_html_are_sniffed_from_text() -> None:
    assert detect(b"<svg xmlns='...'/>", "pic").mime == "image/svg+xml"
    assert detect(b"<!DOCTYPE html><html>", "page").mime == "text/html"


def test_svg_is_told_by_bytes_when_there_are_bytes_else_by_name() -> None:
    assert filetype.is_svg("diagram.svg")
    assert not filetype.is_svg("diagram.png")
    assert filetype.is_svg("disguised.png", b"<svg xmlns='...'/>")
    assert not filetype.is_svg("diagram.svg", PNG)


# Bytes beat names ------------------------------------------------------------------


def test_the_bytes_decide_the_kind_when_they_name_a_format() -> None:
    assert detect(PNG, "sales.csv").kind is Kind.IMAGE
    assert detect(b"%PDF-1.7\n", "notes.md").kind is Kind.PDF


def test_text_keeps_its_text_kind_and_a_binary_name_becomes_text() -> None:
    assert detect(b"a,b\n1,2\n", "sales.csv").kind is Kind.CSV
    assert detect(b"not a picture\n", "chart.png").kind is Kind.TEXT


def test_the_recorded_kind_is_used_instead_of_the_name() -> None:
    assert detect(b"# Title\n", "notes.txt", kind=Kind.MARKDOWN).kind is Kind.MARKDOWN
    assert detect(PNG, "notes.txt", kind=Kind.MARKDOWN).kind is Kind.IMAGE


def test_binary_of_no_known_format_is_never_typed_by_its_name() -> None:
    head = bytes(range(1, 256)) * 8
    found = detect(head, "clip.mp4")
    assert found.mime == filetype.OCTET_STREAM
    assert found.kind is Kind.OTHER
    assert found.description == "binary file (video/mp4)"


def test_a_text_that_starts_with_bm_is_not_a_bitmap() -> None:
    assert detect(b"BMI figures for the clinic, by month\n", "bmi.txt").mime == (
        "text/plain"
    )
    header = b"BM" + bytes(12) + (40).to_bytes(4, "little") + bytes(40)
    assert detect(header, "x").mime == "image/bmp"


# Things that run, and playlists ----------------------------------------------------


def test_executables_and_scripts_are_recognised_by_their_bytes() -> None:
    assert filetype.executable_reason(b"\x7fELF\x02") == "an executable program (ELF)"
    assert filetype.executable_reason(b"#!/bin/sh\n") == "a script"
    assert filetype.executable_reason(b"[Desktop Entry]\nExec=x\n") == (
        "a desktop launcher"
    )
    assert filetype.executable_reason(b"just notes\n") is None


def wav_bytes(frames: int) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as writer:
        writer.setnchannels(1)
        writer.setsampwidth(2)
        writer.setframerate(8000)
        writer.writeframes(bytes(2 * frames))
    return out.getvalue()


@pytest.mark.parametrize(
    "head",
    [
        b"#EXTM3U\n#EXTINF:2,\n/etc/passwd\n",
        b"\xef\xbb\xbf#EXTM3U\n",
        b"ffconcat version 1.0\nfile 'secret.wav'\n",
        b"v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\n",
        b'<?xml version="1.0"?><smil><body/></smil>',
        b"<smil><body/></smil>",
        b"[playlist]\nFile1=/etc/hosts\n",
        b"just some notes that someone named .mp4\n",
    ],
)
def test_playlists_and_text_are_refused_by_content(head: bytes) -> None:
    assert playlist_refusal(head) is not None


def test_the_refusal_names_the_playlist() -> None:
    reason = playlist_refusal(b"#EXTM3U\n")
    assert reason is not None and "playlist" in reason


def test_real_media_heads_are_not_refused() -> None:
    assert playlist_refusal(wav_bytes(100)[:4096]) is None
    mp4 = b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom" + bytes(64)
    assert playlist_refusal(mp4) is None


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
    found = detect(head, "song.mp3")
    assert found.mime == filetype.OCTET_STREAM
    assert not found.mime.startswith(("audio/", "video/"))


def _reader(data: bytes) -> filetype.ReadAt:
    def read(size: int, offset: int) -> bytes:
        return data[offset : offset + size]

    return read


def _detect_file(data: bytes, name: str = "song.mp3") -> filetype.FileType:
    return detect(data[: filetype.HEAD_SIZE], name, read=_reader(data))


def test_an_hls_playlist_behind_an_id3_tag_is_not_audio() -> None:
    head = id3(_frames()) + PLAYLIST
    _assert_not_media(head)
    assert "playlist" in detect(head, "song.mp3").description


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
    assert _words(head, "song.bin") == ("audio/mpeg", "MP3 audio")


def test_an_mp3_frame_after_two_id3_tags_is_audio() -> None:
    head = id3(_frames()) + id3(b"") + MP3_FRAME
    assert detect(head, "song.bin").mime == "audio/mpeg"


def test_an_id3_tag_larger_than_the_head_is_still_audio() -> None:
    # Cover art makes real tags far larger than the head; what follows is not
    # in the head, and the file stays MP3 rather than breaking real music.
    head = id3(bytes(filetype.HEAD_SIZE), size=300_000)[: filetype.HEAD_SIZE]
    assert detect(head, "song.mp3").mime == "audio/mpeg"


def test_a_playlist_behind_a_100_kib_tag_is_refused() -> None:
    data = id3(bytes(100 << 10)) + PLAYLIST
    found = _detect_file(data)
    assert found.mime == filetype.OCTET_STREAM
    assert "playlist" in found.description


def test_an_mp3_frame_behind_a_100_kib_tag_is_still_audio() -> None:
    found = _detect_file(id3(bytes(100 << 10)) + MP3_FRAME * 20)
    assert (found.mime, found.kind) == ("audio/mpeg", Kind.AUDIO)


def test_a_playlist_behind_a_chain_of_tags_past_the_head_is_refused() -> None:
    data = id3(bytes(3000)) + id3(bytes(5000)) + id3(_frames()) + PLAYLIST
    found = _detect_file(data)
    assert found.mime == filetype.OCTET_STREAM
    assert "playlist" in found.description


def test_tags_past_the_bound_are_not_followed_and_not_called_audio() -> None:
    reads: list[int] = []
    data = id3(b"", size=filetype.TAG_LIMIT) + MP3_FRAME

    def read(size: int, offset: int) -> bytes:
        reads.append(offset)
        return data[offset : offset + size]

    found = detect(data[: filetype.HEAD_SIZE], "song.mp3", read=read)
    assert found.mime == filetype.OCTET_STREAM
    assert all(offset <= filetype.TAG_LIMIT for offset in reads)


def test_a_file_that_ends_inside_its_tags_has_no_audio() -> None:
    data = id3(bytes(100), size=50_000)
    assert _detect_file(data).description == "ID3 tag with no audio after it"


@pytest.mark.parametrize("second", [0xFB, 0xFA, 0xF3, 0xF2, 0xE3, 0xE2])
def test_every_layer_iii_frame_sync_is_mp3(second: int) -> None:
    head = bytes((0xFF, second, 0x90, 0x64)) + bytes(200)
    assert detect(head, "song.bin").mime == "audio/mpeg"


def test_a_reserved_mpeg_version_is_not_mp3() -> None:
    head = bytes((0xFF, 0xEB, 0x90, 0x64)) + bytes(200)
    assert detect(head, "song.bin").mime != "audio/mpeg"


@pytest.mark.parametrize(
    "head",
    [
        b'<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "x.dtd">\n<svg/>',
        b"<!-- made by hand -->\n<svg xmlns='http://www.w3.org/2000/svg'/>",
        b"<?xml version='1.0'?>\n<!--" + b"x" * 2000 + b"-->\n<svg/>",
        b'<!DOCTYPE svg [<!ENTITY a "b">]>\n<svg:svg xmlns:svg="x"/>',
        "<svg xmlns='http://www.w3.org/2000/svg'/>".encode("utf-16"),
    ],
)
def test_svg_is_told_by_its_root_after_any_prolog(head: bytes) -> None:
    assert detect(head, "picture").mime == "image/svg+xml"


def test_svg_root_past_the_head_is_read_on_and_other_xml_is_not_svg() -> None:
    data = b"<?xml version='1.0'?>\n<!--" + b"x" * 9000 + b"-->\n<svg/>"

    def read(size: int, offset: int) -> bytes:
        return data[offset : offset + size]

    assert detect(data[:4096], "p.svg", read=read).mime == "image/svg+xml"
    assert detect(b"<?xml version='1.0'?><root><svg/></root>", "r.xml").mime != (
        "image/svg+xml"
    )


@pytest.mark.parametrize("head", [b'["\xff"]', b"[\x00]", b"\x00[\x00]\x00"])
def test_json_named_bytes_that_are_not_text_stay_json(head: bytes) -> None:
    found = detect(head, "broken.json")
    assert (found.kind, found.text) == (Kind.JSON, False)
    if b"\x00" in head:
        assert detect(head, "broken.bin").kind is Kind.OTHER
    else:
        # Under another name the same bytes may be legacy text (cp1252 "ÿ");
        # JSON is UTF-8, so its name keeps them from being decoded as that.
        assert detect(head, "broken.txt").text


@pytest.mark.parametrize(
    ("text", "codec", "found"),
    [
        ("Café crème, déjà vu à Noël.\n", "latin-1", "cp1252"),
        ("naïve résumé", "latin-1", "cp1252"),
        ("Привет, как дела? Всё хорошо.\n", "cp1251", "cp1251"),
        ("Zażółć gęślą jaźń jest trudne.", "cp1250", "cp1250"),
    ],
)
def test_a_short_legacy_text_is_text_and_its_encoding_is_named(
    text: str, codec: str, found: str
) -> None:
    head = text.encode(codec)
    assert filetype.legacy_encoding(head) == found
    assert not filetype.looks_binary(head)
    assert detect(head, "note.txt").text
    assert detect(head, "note.txt").kind is Kind.TEXT


def test_utf8_and_binaries_have_no_legacy_encoding() -> None:
    assert filetype.legacy_encoding("déjà vu".encode()) is None
    assert filetype.legacy_encoding(b"text\x00with a NUL\xe9") is None
    assert (
        filetype.legacy_encoding(codecs.BOM_UTF16_LE + "hi".encode("utf-16-le")) is None
    )
    noise = bytes((n * 7919 + 13) % 255 + 1 for n in range(4096))  # no NUL byte
    assert filetype.looks_binary(noise)


def test_preparing_the_detector_leaves_nothing_for_the_first_guess_to_load() -> None:
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from app.core.filetype.text import legacy_encoding, prepare_legacy_detection\n"
        "prepare_legacy_detection()\n"
        "before = set(sys.modules)\n"
        "legacy_encoding('Привет, мир'.encode('cp1251'))\n"
        'legacy_encoding(b\'{"a": "\\xff"}\')\n'
        "print(sorted(set(sys.modules) - before))\n"
    )
    found = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        cwd=Path(__file__).resolve().parents[3],
    )
    assert found.stdout.strip() == "[]"


def test_name_and_suffix_are_read_as_pathlib_reads_them() -> None:
    import random
    from pathlib import PurePath

    from app.core.filetype.names import _base_and_suffix

    pieces = ["a", ".", "/", "b", " ", "..", "x.tar", ".gz", "É", "\\", "~"]
    rng = random.Random(1)
    names = ["", ".", "..", "/", "a/.", "a/..", ".bashrc", "a.", "a..b", ".a.b"]
    names += ["".join(rng.choices(pieces, k=rng.randint(1, 8))) for _ in range(20_000)]
    for name in names:
        pure = PurePath(name)
        assert _base_and_suffix(name) == (pure.name, pure.suffix), name


# -- the legacy-encoding guess on real text: every common code page reads right --
@pytest.mark.parametrize(("language", "codec"), CODE_PAGES)
@pytest.mark.parametrize("length", [120, None], ids=["sentence", "paragraph"])
def test_a_report_in_its_code_page_is_read_as_written(
    language: str, codec: str, length: int | None
) -> None:
    text = REPORTS[language][:length]
    data = text.encode(codec)
    guessed = legacy_encoding(data)
    assert guessed is not None
    assert data.decode(guessed) == text, guessed
    assert not looks_binary(data)


@pytest.mark.parametrize(
    ("text", "codec"),
    [
        ("Это пример текста на русском языке. " * 200, "cp1251"),
        ("Это пример текста на русском языке. " * 200, "koi8_r"),
        ("Zażółć gęślą jaźń, to przykładowy tekst. " * 200, "cp1250"),
    ],
)
def test_one_sentence_many_times_is_read_as_written(text: str, codec: str) -> None:
    data = text.encode(codec)
    guessed = legacy_encoding(data)
    assert guessed is not None and data.decode(guessed) == text, guessed


def test_latin_1_text_is_named_windows_1252() -> None:
    assert legacy_encoding("Café crème, déjà vu à Noël.".encode("latin-1")) == "cp1252"


def test_letters_no_one_language_writes_together_are_implausible() -> None:
    czech = REPORTS["cs"]
    assert implausible_share(czech) == 0
    misread = czech.encode("cp1250").decode("cp1252")  # "tři" reads "tøi"
    assert implausible_share(misread) > 0.2
    turkish = REPORTS["tr"]
    assert implausible_share(turkish) == 0
    assert implausible_share(turkish.encode("cp1254").decode("cp1257")) > 0.2


def test_a_sign_between_letters_and_letters_of_two_scripts_are_implausible() -> None:
    russian = REPORTS["ru"]
    assert implausible_share(russian) == 0
    # Windows-1251 capitals read as Mac Cyrillic become signs inside words.
    assert implausible_share(russian.encode("cp1251").decode("mac_cyrillic")) > 0
    assert implausible_share("Привет, wörld и мир") > 0
    assert implausible_share("«Цитата» — и всё.") == 0  # quotes and dashes are fine
    assert implausible_share("plain ASCII") == 0


def test_a_letter_of_another_script_inside_a_latin_word_is_implausible() -> None:
    assert implausible_share("Straße") == 0
    assert implausible_share("Straße".encode("cp1252").decode("koi8_r")) > 0
    assert implausible_share("Ångström".encode("latin-1").decode("cp1256")) > 0


def test_words_no_language_writes_that_way_are_implausible() -> None:
    russian = DECLARATIONS["ru"].article_1
    hebrew = DECLARATIONS["he"].article_1
    assert implausible_share(russian) == implausible_share(hebrew) == 0
    # KOI8-R read as Windows-1251: capitals and small letters swap places.
    assert implausible_share(russian.encode("koi8_r").decode("cp1251")) > 0
    # Hebrew read as Greek puts the final sigma inside words.
    assert implausible_share(hebrew.encode("cp1255").decode("cp1253")) > 0
    # Hebrew read as Windows-1251 gives words with no vowel.
    assert implausible_share(hebrew.encode("cp1255").decode("cp1251")) > 0
    # A title in capitals, and an acronym, which needs no vowel.
    title = DECLARATIONS["ru"].title.upper()
    assert implausible_share(title) == 0
    assert implausible_share(title.split()[-1][:1] * 3) == 0


# Jupyter notebooks ------------------------------------------------------------


def _notebook_text(version: int = 4, cells: int = 2) -> bytes:
    import nbformat

    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_markdown_cell(f"# Part {n}") for n in range(cells - 1)
    ] + [nbformat.v4.new_code_cell("print(1)")]
    return nbformat.writes(notebook, version=version).encode()


@pytest.mark.parametrize("version", [3, 4])
def test_a_notebook_is_told_by_its_bytes_whatever_its_name(version: int) -> None:
    data = _notebook_text(version)
    for name in ("analysis.ipynb", "analysis.json", "analysis.txt", "analysis"):
        found = detect(data[: filetype.HEAD_SIZE], name)
        assert found.is_notebook, name
        assert found.mime == filetype.NOTEBOOK_MIME
        assert found.text
    assert detect(data, "analysis.json").kind is Kind.JSON


def test_a_notebook_whose_cells_fill_the_head_is_told_by_its_first_cell() -> None:
    # nbformat sorts keys: "cells" comes first and "nbformat" after every cell.
    data = _notebook_text(4, cells=400)
    head = data[: filetype.HEAD_SIZE]
    assert b'"nbformat"' not in head
    assert detect(head, "analysis.json").is_notebook


def test_a_first_cell_whose_attachment_fills_the_head_is_read_on() -> None:
    import base64

    import nbformat

    notebook = nbformat.v4.new_notebook()
    picture = base64.b64encode(bytes(range(256)) * 40).decode()
    cell = nbformat.v4.new_markdown_cell("![a](attachment:a.png)")
    cell["attachments"] = {"a.png": {"image/png": picture}}
    notebook.cells = [cell]
    data = nbformat.writes(notebook).encode()
    head = data[: filetype.HEAD_SIZE]
    assert b'"cell_type"' not in head

    def read(size: int, offset: int) -> bytes:
        return data[offset : offset + size]

    assert detect(head, "a.json", read=read).is_notebook
    assert not detect(head, "a.json").is_notebook  # nothing unseen is guessed


@pytest.mark.parametrize(
    "data",
    [
        b'{"cells": [1, 2, 3]}',
        b'{"cells": [{"row": 1, "value": "a"}]}',
        b'{"metadata": {"kernelspec": {}}, "rows": []}',
        b'[{"nbformat": 4}]',
        b'"nbformat": 4',
    ],
)
def test_other_json_is_no_notebook(data: bytes) -> None:
    assert not detect(data, "data.json").is_notebook
    assert detect(data, "data.json").kind is Kind.JSON


def test_the_ipynb_name_makes_a_notebook_of_json_text_only() -> None:
    assert kind_from_name("analysis.ipynb") is Kind.JSON
    named = detect(b'{"anything": true}', "analysis.ipynb")
    assert named.is_notebook and named.kind is Kind.JSON
    assert not detect(PNG, "analysis.ipynb").is_notebook
    # Not text: the JSON parser says where, as for any JSON file.
    binary = detect(b"\x00\x01\x02\xff" * 8, "analysis.ipynb")
    assert binary.kind is Kind.JSON and not binary.text
