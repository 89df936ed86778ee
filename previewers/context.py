"""Where a preview is shown: the workspace root, the policy in force, the colour scheme.

The workspace (or the built-in browser) makes one ``PreviewContext`` and passes
it to ``Previewer.create``; nothing about it is kept in module globals. A
preview asks it when it reads around its own file (a Markdown image, a page's
stylesheet), so an edited policy applies to the next preview without a
restart. ``STANDALONE`` is the context of a preview shown outside any
workspace: each file's own folder is its root, under the policy files on disk.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QPlainTextEdit, QWidget

from app.core.trust.paths import is_within
from app.core.trust.policy import Policy, current_policy

PolicyProvider = Callable[[], Policy]


class ColorScheme(StrEnum):
    """Light or dark: previews pick code colours and document styles by it."""

    LIGHT = "light"
    DARK = "dark"

    @classmethod
    def of(cls, palette: QPalette) -> ColorScheme:
        """The scheme a palette shows: dark when its base colour is."""
        dark = palette.color(QPalette.ColorRole.Base).lightness() < 128
        return cls.DARK if dark else cls.LIGHT


class RemoteFiles(Protocol):
    """The remote host a preview's file came from; what is read around it.

    A preview of a remote file never looks at the local disk for the files it
    names: its root is a remote folder, and a page's dependencies come through
    ``fetch_dependency`` (``app.core.serve.html_bind.Fetch``: same limits, policy
    already checked by the binder).
    """

    @property
    def root(self) -> str: ...

    def fetch_dependency(self, path: str, budget: int) -> bytes: ...


class SourceText(Protocol):
    """A file's source shown as text beside a family's own view (its Source toggle).

    Set the text on ``widget``; then ``colouring`` (on the GUI thread) gives
    the whole text's pass to run on a worker, or ``None`` when there is
    nothing to colour, and ``adopt`` (back on the GUI thread) colours the view
    with what it found.
    """

    @property
    def widget(self) -> QPlainTextEdit: ...

    def colouring(self) -> Callable[[Callable[[], bool]], object] | None: ...

    def adopt(self, found: object) -> None: ...


SourceTextMaker = Callable[[str, bool, "QWidget | None"], SourceText]
"""``(file name, dark, parent)`` to the view a family shows source in."""


class PlainSource:
    """Source as plain text: where no maker of coloured source is handed in."""

    def __init__(self, _name: str, _dark: bool, parent: QWidget | None) -> None:
        self._widget = QPlainTextEdit(parent)

    @property
    def widget(self) -> QPlainTextEdit:
        return self._widget

    def colouring(self) -> Callable[[Callable[[], bool]], object] | None:
        return None

    def adopt(self, found: object) -> None:
        pass


@dataclass(frozen=True)
class PreviewContext:
    """The root a preview may read around its file, its policy, its colours.

    ``policy_provider`` is asked on the GUI thread each time a preview needs
    the policy (``None``: the policy files on disk for ``root``). ``scheme``
    ``None`` follows the preview's own palette. ``remote`` is set for a file
    of a remote workspace: ``root`` and paths are then the remote host's.
    ``source_text`` makes the view a page or a document shows its source in:
    the text family's, coloured as "Show source" colours it, handed in by
    whoever builds the context (a family never imports another).
    """

    root: str | None = None
    policy_provider: PolicyProvider | None = None
    scheme: ColorScheme | None = None
    remote: RemoteFiles | None = None
    source_text: SourceTextMaker = PlainSource

    def policy(self) -> Policy:
        """The read-deny policy in force now; denies everything if it cannot load."""
        if self.policy_provider is not None:
            return self.policy_provider()
        return current_policy(self.root)

    def workspace_root(self, path: str) -> str:
        """The real workspace root holding ``path``, or "" when it lies outside."""
        if self.remote is not None:
            # Remote paths are the server's, resolved there: no local lookup.
            root = self.remote.root
            folder = posixpath.dirname(posixpath.normpath(path))
            return root if is_within(folder, root, sep="/") else ""
        if self.root is None:
            return ""
        real_root = os.path.realpath(self.root)
        return real_root if is_within(_real_folder(path), real_root) else ""

    def reading_root(self, path: str) -> str:
        """Where a preview of ``path`` may read: the root, or the file's folder."""
        if self.remote is not None:
            return self.workspace_root(path) or posixpath.dirname(path)
        return self.workspace_root(path) or _real_folder(path)

    def is_dark(self, palette: QPalette) -> bool:
        scheme = self.scheme if self.scheme is not None else ColorScheme.of(palette)
        return scheme is ColorScheme.DARK


def _real_folder(path: str) -> str:
    return os.path.realpath(os.path.dirname(os.path.abspath(path)))


STANDALONE = PreviewContext()
"""The context of a preview outside any workspace."""
