"""Sizes and counts in words, one convention everywhere: KiB, MiB, "1 file"."""

from __future__ import annotations

_UNITS = (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10))


def human_size(size: int, *, exact: bool = False) -> str:
    """``"1.5 MiB"``; sizes under 1 KiB in bytes (``"1 byte"``, ``"640 bytes"``).

    With ``exact`` the byte count follows in brackets: ``"1.5 KiB (1,536 bytes)"``.
    """
    in_bytes = counted(size, "byte")
    for unit, factor in _UNITS:
        if size >= factor:
            rounded = f"{size / factor:.1f} {unit}"
            return f"{rounded} ({in_bytes})" if exact else rounded
    return in_bytes


def counted(number: int, one: str, many: str | None = None) -> str:
    """``number`` things, the noun agreeing: "1 file", "3 files", "1,204 lines".

    ``many`` is the plural where adding "s" is wrong ("match", "matches").
    """
    noun = one if number == 1 else many or f"{one}s"
    return f"{number:,} {noun}"
