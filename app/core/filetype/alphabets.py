"""How plausible a decoding of a legacy text is: letters one language would write.

Two single-byte code pages often decode the same bytes equally cleanly: Czech
in Windows-1250 read as Windows-1252 turns "tři" into "tøi", Turkish in
Windows-1254 read as Windows-1257 turns the dotless i into "ż". The detector scores
both the same, as every character is a letter. Read as one text, though, the
wrong one mixes letters no single language writes together (ø beside è and
ì), or puts a sign where a letter belongs. ``judge`` counts such characters;
the tables are the letters each language writes, as its own alphabet lists
them (beyond ASCII for those in Latin script), and roughly how many people
write it, which breaks a tie between two equally clean readings.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import cache

LATIN_ALPHABETS: dict[str, str] = {
    "Albanian": "çë",
    "Catalan": "àçèéíïòóúü",
    "Croatian": "čćđšž",
    "Czech": "áčďéěíňóřšťúůýž",
    "Danish": "æøåé",
    "Dutch": "áéëíïóöúü",
    "Esperanto": "ĉĝĥĵŝŭ",
    "Estonian": "äõöüšž",
    "Finnish": "äöåšž",
    "French": "àâæçéèêëîïôœùûüÿ",
    "German": "äöüß",
    "Hungarian": "áéíóöőúüű",
    "Icelandic": "áðéíóúýþæö",
    "Irish": "áéíóú",
    "Italian": "àèéìíîòóùú",
    "Latvian": "āčēģīķļņšūž",
    "Lithuanian": "ąčęėįšųūž",
    "Maltese": "ċġħżàèìòù",
    "Norwegian": "æøåéèóô",
    "Polish": "ąćęłńóśźż",
    "Portuguese": "áâãàçéêíóôõú",
    "Romanian": "ăâîșțşţ",
    "Slovak": "áäčďéíĺľňóôŕšťúýž",
    "Slovene": "čšž",
    "Spanish": "áéíñóúü",
    "Swedish": "åäöé",
    "Turkish": "çğıöşüâîû",
    "Welsh": "âêîôûŵŷàáèéïö",
}
"""The letters beyond ASCII each language in Latin script writes."""

OTHER_ALPHABETS: dict[str, str] = {
    "Russian": "абвгдеёжзийклмнопрстуфхцчшщъыьэюя",
    "Ukrainian": "абвгґдеєжзиіїйклмнопрстуфхцчшщьюя",
    "Belarusian": "абвгдеёжзійклмнопрстуўфхцчшыьэюя",
    "Bulgarian": "абвгдежзийклмнопрстуфхцчшщъьюя",
    "Serbian": "абвгдђежзијклљмнњопрстћуфхцчџш",
    "Macedonian": "абвгдѓежзѕијклљмнњопрстќуфхцчџш",
    "Greek": "αάβγδεέζηήθιίϊΐκλμνξοόπρσςτυύϋΰφχψωώ",
}
"""The whole alphabet of each language in Cyrillic or Greek script."""

WRITERS: dict[str, float] = {
    "Albanian": 7,
    "Catalan": 9,
    "Croatian": 5,
    "Czech": 10,
    "Danish": 6,
    "Dutch": 24,
    "Esperanto": 1,
    "Estonian": 1,
    "Finnish": 5,
    "French": 80,
    "German": 95,
    "Hungarian": 13,
    "Icelandic": 0.4,
    "Irish": 1,
    "Italian": 65,
    "Latvian": 1.5,
    "Lithuanian": 3,
    "Maltese": 0.5,
    "Norwegian": 5,
    "Polish": 40,
    "Portuguese": 230,
    "Romanian": 24,
    "Slovak": 5,
    "Slovene": 2,
    "Spanish": 480,
    "Swedish": 10,
    "Turkish": 80,
    "Welsh": 0.6,
    "Russian": 150,
    "Ukrainian": 30,
    "Belarusian": 5,
    "Bulgarian": 8,
    "Serbian": 9,
    "Macedonian": 2,
    "Greek": 13,
    "Hebrew": 9,
    "Arabic": 300,
    "Thai": 60,
    "Chinese": 1000,
    "Japanese": 120,
    "Korean": 80,
}
"""Roughly how many million people write each language as their first: of
two readings equally clean, the one in the more written language is likelier."""

# Scripts one language writes together, by the first word of their letters'
# Unicode names; each group is named after the language that writes it.
_SCRIPT_GROUPS = {
    "CJK": "Chinese",
    "IDEOGRAPHIC": "Chinese",
    "HIRAGANA": "Japanese",
    "KATAKANA": "Japanese",
    "KATAKANA-HIRAGANA": "Japanese",
    "HANGUL": "Korean",
    "HEBREW": "Hebrew",
    "ARABIC": "Arabic",
    "THAI": "Thai",
}
_EAST_ASIAN = frozenset({"Chinese", "Japanese", "Korean"})

_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_WORD = re.compile(r"[^\W\d_]+")
# What a text puts beside letters: quotes, dashes, brackets, spaces.
_BESIDE_LETTERS = frozenset({"Pi", "Pf", "Pd", "Ps", "Pe", "Zs"})
_MARKS = frozenset({"Mn", "Mc", "Me"})
_UNIT_SIGNS = frozenset("°™®©")  # "25°C", "Windows®": signs that touch words
_SUPERSCRIPTS = frozenset("¹²³ºª")  # "m²", "1º": they end a word, never start one
_VOWELS = frozenset("аеёиіїоуыэюяєўαάεέηήιίϊΐοόυύϋΰωώ")
# Never at the start of a Slavic word in Cyrillic, nor after a vowel.
_NOT_FIRST = frozenset("ьыъ")
_ONLY_LAST = frozenset("ةىς")  # Arabic and Greek letters that only end a word
_OBSOLETE = frozenset("ฃฅฦ")  # Thai letters no longer written


@dataclass(frozen=True)
class Judgement:
    """What a decoded text looks like: how many of its characters no right
    decoding would give (``wrong`` of ``total`` beyond ASCII), and the
    languages whose letters it writes, with how many write the commonest."""

    wrong: int
    total: int
    languages: frozenset[str]
    writers: float


@cache
def script(char: str) -> str:
    """The script a letter belongs to, by its Unicode name: LATIN, CYRILLIC, …"""
    return unicodedata.name(char, "").split(" ", 1)[0]


@cache
def _group(char: str) -> str:
    name = script(char)
    return _SCRIPT_GROUPS.get(name, name)


def implausible_share(text: str) -> float:
    """The share of ``text``'s non-ASCII characters that a right decoding would lack."""
    judged = judge(text)
    return judged.wrong / judged.total if judged.total else 0.0


def judge(text: str) -> Judgement:
    """How plausible ``text`` is as a decoding, and in which languages.

    Counted as implausible: in a text mostly in Latin script, the letters
    outside the one alphabet that covers the most of them; in a text in
    another script, the letters outside its main script (and, in Cyrillic or
    Greek, outside the one alphabet that covers the most); anywhere, a letter
    of another script inside a Latin word, a mark that follows no letter of
    its script, and a sign stuck to a word; in words of a script with
    capitals, a capital after a small letter; in Cyrillic and Greek, a word
    with no vowel, and a Cyrillic word that starts with, or puts after a
    vowel, a sign no such word has there.
    """
    low = text.lower()
    found = [(match.start(), match.group()) for match in _NON_ASCII.finditer(low)]
    if not found:
        return Judgement(0, 0, frozenset(), 0.0)
    wrong, languages = _alphabet_misfits(Counter(char for _, char in found))
    wrong += sum(_misplaced(low, position, char) for position, char in found)
    wrong += sum(_odd_word(word.group()) for word in _WORD.finditer(text))
    writers = max((WRITERS.get(name, 0.0) for name in languages), default=0.0)
    return Judgement(wrong, len(found), languages, writers)


def _alphabet_misfits(counts: Counter[str]) -> tuple[int, frozenset[str]]:
    """Letters outside the best alphabet, and the languages it is best for."""
    letters = {
        char: n
        for char, n in counts.items()
        if char.isalpha() and char not in _SUPERSCRIPTS
    }
    latin = {char: n for char, n in letters.items() if script(char) == "LATIN"}
    other = {char: n for char, n in letters.items() if char not in latin}
    latin_count, other_count = sum(latin.values()), sum(other.values())
    if not latin_count and not other_count:
        return 0, frozenset()
    if latin_count >= other_count:  # a text in Latin script
        return _best_alphabet(latin, LATIN_ALPHABETS, other_count)
    groups: Counter[str] = Counter()
    for char, n in other.items():
        groups[_group(char)] += n
    if "Japanese" in groups:  # kana and kanji are one writing
        groups["Japanese"] += groups.pop("Chinese", 0)
    main, in_main = groups.most_common(1)[0]
    wrong = other_count - in_main + latin_count
    if main in ("CYRILLIC", "GREEK"):
        main_letters = {c: n for c, n in other.items() if _group(c) == main}
        misfits, languages = _best_alphabet(main_letters, OTHER_ALPHABETS, 0)
        return wrong + misfits, languages
    return wrong, frozenset({main.title() if main.isupper() else main})


def _best_alphabet(
    letters: dict[str, int], alphabets: dict[str, str], others: int
) -> tuple[int, frozenset[str]]:
    covered = {
        name: sum(n for char, n in letters.items() if char in alphabet)
        for name, alphabet in alphabets.items()
    }
    best = max(covered.values())
    names = frozenset(name for name, n in covered.items() if n == best)
    return sum(letters.values()) - best + others, names


def _misplaced(low: str, position: int, char: str) -> bool:
    """Whether the character at ``position`` stands where a text has no such one."""
    before = low[position - 1] if position else " "
    after = low[position + 1] if position + 1 < len(low) else " "
    if char in _SUPERSCRIPTS:
        return after.isalpha()
    if char.isalpha():
        if char in _OBSOLETE:
            return True
        # A letter of another script inside a Latin word ("Straъe").
        latin_beside = (before.isascii() and before.isalpha()) or (
            after.isascii() and after.isalpha()
        )
        return latin_beside and script(char) != "LATIN"
    category = unicodedata.category(char)
    if category in _MARKS:
        if unicodedata.category(before) in _MARKS:
            return False
        own = script(char)
        if own == "COMBINING":  # a Latin accent: after any letter
            return not before.isalpha()
        return not before.isalpha() or script(before) != own
    if category in _BESIDE_LETTERS or _east_asian_sign(char):
        return False
    if char in _UNIT_SIGNS:
        return before.isalpha() and after.isalpha()
    # Any other sign, digit or control stuck to a word or to another sign.
    return (
        before.isalpha()
        or after.isalpha()
        or not before.isascii()
        or not after.isascii()
    )


def _east_asian_sign(char: str) -> bool:
    """Whether ``char`` is punctuation of East Asian text (、。「」 and full width)."""
    return 0x3000 <= ord(char) <= 0x303F or 0xFF00 <= ord(char) <= 0xFFEF


def _odd_word(word: str) -> bool:
    """Whether a word breaks a rule every word of its script keeps."""
    if word.isascii():
        return False
    if any(a.islower() and b.isupper() for a, b in itertools.pairwise(word)):
        return True  # "чУЕ": capitals and small letters read the wrong way round
    if _ONLY_LAST.intersection(word[:-1]):
        return True
    low = word.lower()
    if not any(script(char) in ("CYRILLIC", "GREEK") for char in low):
        return False
    acronym = word.isupper() and len(word) <= 4  # the Soviet Union's four letters
    if len(low) >= 2 and not acronym and not _VOWELS.intersection(low):
        return True
    return low[0] in _NOT_FIRST or any(
        a in _VOWELS and b in _NOT_FIRST for a, b in itertools.pairwise(low)
    )


def east_asian(judged: Judgement) -> bool:
    """Whether a judged text is in Chinese, Japanese or Korean script."""
    return bool(judged.languages & _EAST_ASIAN)
