"""Real prose saved in the code pages it was written in reads back as written.

The Universal Declaration of Human Rights (tests/data/udhr_texts.py, as the
United Nations publishes it) is saved, at test time, in each legacy code page
that writes its language: one sentence, two sentences (Article 1) and a
paragraph, each a whole small file. The text viewer's reader opens it without
being told the encoding and must show exactly the text that was saved.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.trust.safeio import open_verified
from app.formats.text_pages import PagedText
from tests.data.udhr_texts import DECLARATIONS

CODE_PAGES: dict[str, tuple[str, ...]] = {
    "cp1252": ("de", "fr", "es", "pt", "it", "sv", "da", "nl", "fi", "is"),
    "latin_1": ("de", "fr", "es", "pt", "it", "sv", "da", "nl", "fi", "is"),
    "iso8859_15": ("de", "fr", "fi"),
    "cp1250": ("pl", "cs", "hu", "sk", "hr", "sl"),
    "iso8859_2": ("pl", "cs", "hu", "sk", "hr", "sl"),
    "cp1251": ("ru", "uk", "bg", "sr"),
    "koi8_r": ("ru", "bg"),
    "koi8_u": ("uk",),
    "iso8859_5": ("ru", "bg", "sr"),
    "cp866": ("ru", "bg"),
    "cp1253": ("el",),
    "iso8859_7": ("el",),
    "cp1254": ("tr",),
    "iso8859_9": ("tr",),
    "cp1255": ("he",),
    "cp1256": ("ar",),
    "cp1257": ("lt", "lv", "et"),
    "iso8859_13": ("lt", "lv", "et"),
    "shift_jis": ("ja",),
    "gbk": ("zh",),
    "big5": ("zh-Hant",),
    "euc_kr": ("ko",),
}
"""Each code page and the languages of the Declaration it can write."""


def _texts(language: str) -> dict[str, str]:
    declaration = DECLARATIONS[language]
    article = declaration.article_1
    stop = "。" if language in ("ja", "zh", "zh-Hant") else ". "
    first = article.split(stop)[0] + stop.strip()
    paragraph = "\n\n".join(
        (declaration.preamble, declaration.article_1, declaration.article_2)
    )
    return {"sentence": first, "article": article, "paragraph": paragraph + "\n"}


CASES = [
    pytest.param(language, codec, size, id=f"{codec}-{language}-{size}")
    for codec, languages in CODE_PAGES.items()
    for language in languages
    for size in ("sentence", "article", "paragraph")
    if _texts(language)[size].encode(codec, "replace").decode(codec)
    == _texts(language)[size]  # French's closing quote has no place in Latin-1
]


def _read_back(path: Path) -> tuple[str, str]:
    file = open_verified(str(path))
    try:
        paged = PagedText(file, path=str(path))
        page = paged.first_page()
    finally:
        file.close()
    assert page.is_last and not page.had_invalid_bytes
    return paged.encoding.codec, page.text


@pytest.mark.parametrize(("language", "codec", "size"), CASES)
def test_a_declaration_saved_in_a_legacy_code_page_reads_as_written(
    tmp_path: Path, language: str, codec: str, size: str
) -> None:
    text = _texts(language)[size]
    path = tmp_path / "declaration.txt"
    path.write_bytes(text.encode(codec))
    found, shown = _read_back(path)
    assert shown == text, found


def test_the_corpus_covers_every_code_page_it_names() -> None:
    covered = {case.values[1] for case in CASES}
    assert covered == set(CODE_PAGES)
    assert len(CASES) >= 180


def test_a_short_latin_1_note_is_read_as_windows_1252(tmp_path: Path) -> None:
    path = tmp_path / "note.txt"
    path.write_bytes("Ångström, señor".encode("latin-1"))
    assert _read_back(path) == ("cp1252", "Ångström, señor")


def test_a_long_file_is_never_read_in_a_multi_byte_legacy_encoding(
    tmp_path: Path,
) -> None:
    # Pages of a long file are cut at any byte: only a single-byte encoding
    # survives that, so Shift JIS is not chosen past the head.
    text = (_texts("ja")["paragraph"] * 200)[:20_000]
    path = tmp_path / "long.txt"
    path.write_bytes(text.encode("shift_jis"))
    file = open_verified(str(path))
    try:
        codec = PagedText(file, path=str(path)).encoding.codec
    finally:
        file.close()
    assert codec != "shift_jis"
    assert len(b"\xff".decode(codec, "replace")) == 1
