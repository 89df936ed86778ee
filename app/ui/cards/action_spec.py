"""What a card action is, for a file on this computer or on a remote host."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ActionSpec:
    """One card action: its id, menu text, and the words a refusal uses.

    ``needs_fd`` marks an action that reads the file, so it needs the checked
    version open (a local card's descriptor) before it runs.
    """

    id: str
    label: str
    refusal: str  # "Can't {refusal}: reason", with {name} in it
    needs_fd: bool = False
