"""How plausible a decoding of a legacy text is: letters one language would write.

Two single-byte code pages often decode the same bytes equally cleanly: Czech
in Windows-1250 read as Windows-1252 turns "tři" into "tøi", Turkish in
Windows-1254 read as Windows-1257 turns the dotless i into "ż". The detector scores
both the same, as every character is a letter. Read as one text, though, the
wrong one mixes letters no single language writes together (ø beside è and
ì), or puts a sign where a letter belongs. ``implausible_share`` measures
that; the table is the letters beyond ASCII each language writes in Latin
script, as its own alphabet lists them.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter

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

_NON_ASCII = re.compile(r"[^\x00-\x7f]")
# What a text puts beside letters: quotes, dashes, brackets, spaces, and the
# combining marks of letters themselves ("İ" lowers to "i" and a dot above).
_BESIDE_LETTERS = frozenset({"Pi", "Pf", "Pd", "Ps", "Pe", "Zs", "Mn", "Mc", "Me"})


def _script(char: str) -> str:
    """The script a letter belongs to, by its Unicode name: LATIN, CYRILLIC, …"""
    return unicodedata.name(char, "").split(" ", 1)[0]


def implausible_share(text: str) -> float:
    """The share of ``text``'s non-ASCII characters that a right decoding would lack.

    Counted as implausible: in a text mostly in Latin script, the letters
    outside the one alphabet that covers the most of them; in a text in
    another script, the letters outside its main script; anywhere, a sign
    between two letters.
    """
    low = text.lower()
    found = [(match.start(), match.group()) for match in _NON_ASCII.finditer(low)]
    if not found:
        return 0.0
    counts = Counter(char for _, char in found)
    letters = {char: count for char, count in counts.items() if char.isalpha()}
    latin = {char: n for char, n in letters.items() if _script(char) == "LATIN"}
    other = {char: n for char, n in letters.items() if char not in latin}
    latin_count, other_count = sum(latin.values()), sum(other.values())
    if latin_count >= other_count:  # a text in Latin script
        covered = max(
            sum(n for char, n in latin.items() if char in alphabet)
            for alphabet in LATIN_ALPHABETS.values()
        )
        wrong = latin_count - covered + other_count
    else:  # Cyrillic, Greek, Hebrew, …: one script, no accented Latin
        scripts: Counter[str] = Counter()
        for char, n in other.items():
            scripts[_script(char)] += n
        wrong = other_count - scripts.most_common(1)[0][1] + latin_count
    for position, char in found:
        if char.isalpha() or unicodedata.category(char) in _BESIDE_LETTERS:
            continue
        before = low[position - 1] if position else " "
        after = low[position + 1] if position + 1 < len(low) else " "
        if before.isalpha() and after.isalpha():
            wrong += 1
    return wrong / len(found)
