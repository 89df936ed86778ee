"""The legacy-encoding guess on real text: every common code page reads right."""

from __future__ import annotations

import pytest

from app.core.filetype import legacy_encoding, looks_binary
from app.core.filetype.alphabets import implausible_share
from tests.data.legacy_texts import CODE_PAGES, REPORTS


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
