"""Call the ICU functions QtCore calls, with the ICU of one folder; print the answers.

``python tests/packaging/icu_probe.py FOLDER`` loads ``libicuuc`` and
``libicui18n`` from FOLDER (they find their ``libicudata`` beside them) and
prints, as JSON, what every converter makes of a few byte strings, the sort
keys of a word list under every collation locale, every time zone's canonical
ID and its four display names in a set of locales, and locale-aware case
mapping. Two folders whose outputs are equal give QtCore the same answers.
One process can load only one ICU, hence a script run per folder.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import sys
from pathlib import Path

WORDS = [
    "apple",
    "Äpfel",
    "Zürich",
    "zebra",
    "résumé",
    "resume",
    "item 10",
    "item 9",
    "Straße",
    "ǅemal",
    "東京",
    "北京",
    "서울",
    "Ελλάδα",
    "Москва",
    "ก่อน",
    "ﬁle",
    "🙂 smile",
]
# Letters whose case mapping depends on the language (Turkish dotless i,
# Greek final sigma, Dutch ij, Lithuanian dot above).
CASE_TEXT = (
    "\u0130stanbul \u0131i I\u0130 Stra\u00dfe "
    "\u038c\u03a3\u039f\u03a3 \u01c5 i\u0307 \u0133 \ufb00"
)
CASE_LOCALES = ["", "en", "tr", "az", "lt", "el", "nl", "de"]
ZONE_LOCALES = [
    "en",
    "en_GB",
    "de",
    "fr",
    "es",
    "pt_BR",
    "it",
    "nl",
    "sv",
    "pl",
    "ru",
    "uk",
    "tr",
    "ar",
    "he",
    "fa",
    "hi",
    "bn",
    "th",
    "vi",
    "id",
    "ja",
    "ko",
    "zh",
    "zh_Hant",
    "el",
    "fi",
    "cs",
    "ta",
    "sw",
]
BYTE_SAMPLES = [
    bytes(range(256)),
    "naïve café \u2013 東京 \u2013 Москва".encode(),
    b"\x1b$B$3$s$K$A$O\x1b(B",  # ISO-2022-JP
    b"\xa4\xa4\xa4\xe5\xa4\xe5",
]
UNICODE_SAMPLE = "naïve café \u2013 東京 \u2013 Москва \u2013 €"
_CAPACITY = 4096


def _bind(folder: Path) -> tuple[ctypes.CDLL, str]:
    (common,) = folder.glob("libicuuc.so.*")
    version = common.name.rsplit(".", 1)[1]
    return ctypes.CDLL(str(folder / f"libicui18n.so.{version}")), f"_{version}"


def _uchars(text: str) -> tuple[ctypes.Array[ctypes.c_uint16], int]:
    units = text.encode("utf-16-le")
    count = len(units) // 2
    return (ctypes.c_uint16 * max(count, 1)).from_buffer_copy(units or b"\0\0"), count


def _text(buffer: ctypes.Array[ctypes.c_uint16], length: int) -> str:
    return bytes(buffer)[: 2 * max(length, 0)].decode("utf-16-le", "surrogatepass")


def probe(folder: Path) -> dict[str, object]:
    icu, suffix = _bind(folder)

    def fn(name: str, restype: object = ctypes.c_int32) -> ctypes._CFuncPtr:
        function = getattr(icu, name + suffix)
        function.restype = restype
        return function

    status = ctypes.c_int(0)
    out = (ctypes.c_uint16 * _CAPACITY)()
    result: dict[str, object] = {}

    converters = {}
    count = fn("ucnv_countAvailable")()
    get_name = fn("ucnv_getAvailableName", ctypes.c_char_p)
    standard = fn("ucnv_getStandardName", ctypes.c_char_p)
    for index in range(count):
        name = get_name(index)
        status.value = 0
        converter = fn("ucnv_open", ctypes.c_void_p)(name, ctypes.byref(status))
        entry: list[object] = [status.value]
        if converter:
            entry.append(
                fn("ucnv_getMaxCharSize", ctypes.c_int8)(ctypes.c_void_p(converter))
            )
            for sample in BYTE_SAMPLES:
                status.value = 0
                fn("ucnv_reset", None)(ctypes.c_void_p(converter))
                length = fn("ucnv_toUChars")(
                    ctypes.c_void_p(converter),
                    out,
                    _CAPACITY,
                    sample,
                    len(sample),
                    ctypes.byref(status),
                )
                entry.append([status.value, _text(out, length)])
            source, length = _uchars(UNICODE_SAMPLE)
            target = ctypes.create_string_buffer(_CAPACITY)
            status.value = 0
            fn("ucnv_reset", None)(ctypes.c_void_p(converter))
            written = fn("ucnv_fromUChars")(
                ctypes.c_void_p(converter),
                target,
                _CAPACITY,
                source,
                length,
                ctypes.byref(status),
            )
            entry.append([status.value, target.raw[: max(written, 0)].hex()])
            fn("ucnv_close", None)(ctypes.c_void_p(converter))
        for standard_name in (b"MIME", b"IANA"):
            status.value = 0
            found = standard(name, standard_name, ctypes.byref(status))
            entry.append(found.decode() if found else None)
        converters[name.decode()] = entry
    result["converters"] = converters

    collations = {}
    available = fn("ucol_getAvailable", ctypes.c_char_p)
    sort_key = fn("ucol_getSortKey")
    set_attribute = fn("ucol_setAttribute", None)
    key = ctypes.create_string_buffer(_CAPACITY)
    for index in range(fn("ucol_countAvailable")()):
        locale = available(index)
        status.value = 0
        collator = fn("ucol_open", ctypes.c_void_p)(locale, ctypes.byref(status))
        entry = [status.value]
        for numeric in (0, 17):  # UCOL_OFF, UCOL_ON for UCOL_NUMERIC_COLLATION (7)
            if numeric:
                status.value = 0
                set_attribute(
                    ctypes.c_void_p(collator), 7, numeric, ctypes.byref(status)
                )
            for word in WORDS:
                chars, length = _uchars(word)
                size = sort_key(
                    ctypes.c_void_p(collator), chars, length, key, _CAPACITY
                )
                entry.append(key.raw[:size].hex())
        fn("ucol_close", None)(ctypes.c_void_p(collator))
        collations[locale.decode()] = hashlib.sha256(
            json.dumps(entry).encode()
        ).hexdigest()
    result["collations"] = collations

    zones = {}
    status.value = 0
    enumeration = fn("ucal_openTimeZones", ctypes.c_void_p)(ctypes.byref(status))
    next_zone = fn("uenum_next", ctypes.c_char_p)
    names = []
    while True:
        status.value = 0
        zone = next_zone(ctypes.c_void_p(enumeration), None, ctypes.byref(status))
        if not zone:
            break
        names.append(zone.decode())
    fn("uenum_close", None)(ctypes.c_void_p(enumeration))
    canonical = fn("ucal_getCanonicalTimeZoneID")
    display = fn("ucal_getTimeZoneDisplayName")
    open_calendar = fn("ucal_open", ctypes.c_void_p)
    for zone in names:
        chars, length = _uchars(zone)
        status.value = 0
        system = ctypes.c_int8(0)
        size = canonical(
            chars, length, out, _CAPACITY, ctypes.byref(system), ctypes.byref(status)
        )
        entry = [status.value, _text(out, size), system.value]
        for locale in ZONE_LOCALES:
            status.value = 0
            calendar = open_calendar(
                chars, length, locale.encode(), 0, ctypes.byref(status)
            )
            entry.append(status.value)
            for kind in range(4):  # standard, short standard, DST, short DST
                status.value = 0
                size = display(
                    ctypes.c_void_p(calendar),
                    kind,
                    locale.encode(),
                    out,
                    _CAPACITY,
                    ctypes.byref(status),
                )
                entry.append([status.value, _text(out, size)])
            fn("ucal_close", None)(ctypes.c_void_p(calendar))
        zones[zone] = entry
    result["zones"] = zones

    cases = {}
    source, length = _uchars(CASE_TEXT)
    for locale in CASE_LOCALES:
        for function in ("u_strToUpper", "u_strToLower"):
            status.value = 0
            size = fn(function)(
                out, _CAPACITY, source, length, locale.encode(), ctypes.byref(status)
            )
            cases[f"{function}:{locale}"] = [status.value, _text(out, size)]
    result["cases"] = cases
    return result


if __name__ == "__main__":
    json.dump(probe(Path(sys.argv[1])), sys.stdout, ensure_ascii=False, sort_keys=True)
