"""The apply_patch format Codex writes edits in, read as data (never applied)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, Literal

BEGIN: Final = "*** Begin Patch"
END: Final = "*** End Patch"
_ADD: Final = "*** Add File: "
_DELETE: Final = "*** Delete File: "
_UPDATE: Final = "*** Update File: "
_MOVE: Final = "*** Move to: "

PatchKind = Literal["add", "delete", "update"]


@dataclass(frozen=True)
class PatchOp:
    """One file of a patch; ``content`` is the whole new file of an add."""

    kind: PatchKind
    path: str
    move_to: str | None = None
    content: str | None = None
    added: int = 0
    removed: int = 0


def extract_patch(text: str) -> str | None:
    """The patch inside a command or script that carries one, if any."""
    start = text.find(BEGIN)
    if start < 0:
        return None
    end = text.find(END, start)
    return text[start : end + len(END)] if end >= 0 else text[start:]


@dataclass
class _Open:
    kind: PatchKind
    path: str
    move_to: str | None = None
    body: list[str] = field(default_factory=list)

    def done(self) -> PatchOp:
        added = [line[1:] for line in self.body if line.startswith("+")]
        removed = sum(1 for line in self.body if line.startswith("-"))
        # An added file's lines are all "+" lines, each ending in a newline.
        content = "".join(f"{line}\n" for line in added) if self.kind == "add" else None
        return PatchOp(self.kind, self.path, self.move_to, content, len(added), removed)


_HEADERS: Final[tuple[tuple[PatchKind, str], ...]] = (
    ("add", _ADD),
    ("delete", _DELETE),
    ("update", _UPDATE),
)


def parse_patch(text: str) -> list[PatchOp]:
    """The files a patch adds, deletes, updates or moves, in order."""
    ops: list[PatchOp] = []
    current: _Open | None = None
    for line in text.replace("\r\n", "\n").split("\n"):
        header = next(
            (
                _Open(kind, line[len(prefix) :].strip())
                for kind, prefix in _HEADERS
                if line.startswith(prefix)
            ),
            None,
        )
        if header is not None:
            if current is not None:
                ops.append(current.done())
            current = header
        elif line.startswith(END):
            break
        elif current is None:
            continue
        elif line.startswith(_MOVE):
            current.move_to = line[len(_MOVE) :].strip()
        elif not line.startswith(("@@", "*** ")):
            current.body.append(line)
    if current is not None:
        ops.append(current.done())
    return ops
