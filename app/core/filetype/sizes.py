"""File sizes in words, one convention everywhere: binary units (KiB, MiB, GiB)."""

from __future__ import annotations

_UNITS = (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10))


def human_size(size: int, *, exact: bool = False) -> str:
    """``"1.5 MiB"``; sizes under 1 KiB in bytes (``"1 byte"``, ``"640 bytes"``).

    With ``exact`` the byte count follows in brackets: ``"1.5 KiB (1,536 bytes)"``.
    """
    in_bytes = f"{size:,} byte" + ("" if size == 1 else "s")
    for unit, factor in _UNITS:
        if size >= factor:
            rounded = f"{size / factor:.1f} {unit}"
            return f"{rounded} ({in_bytes})" if exact else rounded
    return in_bytes
