"""What a previewer knows about a file before it builds its widget."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath

from app.core.filetype import HEAD_SIZE, FileType, Kind, detect
from app.core.trust.display_names import display_name
from app.core.trust.safeio import Identity, VerifiedFile

WHOLE_FETCH_LIMIT = 256 << 20
"""The most a remote preview fetches whole for a family with no byte limit of
its own (images, audio and video, tables): the bytes stay in memory while it
is shown. Each family states its own ``fetch_limit``."""


@dataclass(frozen=True)
class PreviewSource:
    """What a previewer knows about a file before it builds its widget.

    ``identity`` is the version fence taken when the file was opened; ``head``
    holds its first bytes (at most ``HEAD_SIZE``), read through the verified
    descriptor; ``type`` is what the file-type service made of them, once.
    """

    path: str
    name: str
    identity: Identity
    head: bytes
    type: FileType
    source_view: bool = False

    @classmethod
    def from_file(
        cls,
        path: str,
        file: VerifiedFile,
        *,
        kind: Kind | None = None,
        source_view: bool = False,
    ) -> PreviewSource:
        """Describe an opened file; reads its head (and behind tags) by descriptor.

        ``kind`` is the kind a trusted record holds; ``None`` for a file no
        record vouches for, whose name then says.
        """
        name = PurePath(path).name
        head = file.read(HEAD_SIZE, 0)
        return cls(
            path=path,
            # Shown in titles and messages: hidden characters made visible.
            name=display_name(name),
            identity=file.identity,
            head=head,
            type=detect(head, name, kind=kind, read=file.read),
            source_view=source_view,
        )

    @classmethod
    def of_head(
        cls,
        path: str,
        head: bytes,
        *,
        size: int | None = None,
        kind: Kind | None = None,
        source_view: bool = False,
    ) -> PreviewSource:
        """Describe a file from its head alone (nothing opened), as tests do."""
        name = PurePath(path).name
        return cls(
            path=path,
            name=display_name(name),
            identity=Identity(0, 0, len(head) if size is None else size, 0),
            head=head,
            type=detect(head, name, kind=kind),
            source_view=source_view,
        )

    @property
    def kind(self) -> Kind:
        """The family to preview as: the bytes' when they name one (see ``detect``)."""
        return self.type.kind

    @property
    def mime(self) -> str:
        return self.type.mime

    @property
    def is_text(self) -> bool:
        """Whether the head reads as text (a byte order mark, or not binary)."""
        return self.type.text


def is_text_of_kind(source: PreviewSource, kind: Kind, size_limit: int) -> bool:
    """A rendered (not "Show source") preview of a text file of ``kind``.

    Files over ``size_limit`` fall through to the plain code and text view.
    """
    return (
        source.kind is kind
        and not source.source_view
        and source.identity.size <= size_limit
        and source.is_text
    )
