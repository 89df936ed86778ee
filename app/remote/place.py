"""A connected remote workspace's coordinates: who, on which host, in which folder."""

from __future__ import annotations

from dataclasses import dataclass

from app.ssh.address import Coordinate, format_address


@dataclass(frozen=True)
class Place:
    """Where a remote workspace is, as the server resolved it when connected.

    ``host`` is the host as addressed (maybe a config alias), so connecting
    again goes through the same configuration; ``root`` and ``home`` are the
    server's real paths. ``owner`` is the uid owning the home folder, the
    best guess SFTP allows of who we are there (``None`` when the home is "/").
    """

    user: str
    host: str
    port: int
    root: str
    home: str
    owner: int | None

    @property
    def address(self) -> str:
        """The canonical ``ssh://user@host:port/root``: what records store."""
        return format_address(self.user, self.host, self.port, self.root)

    def coordinate(self, path: str) -> Coordinate:
        return Coordinate(self.user, self.host, self.port, path)
