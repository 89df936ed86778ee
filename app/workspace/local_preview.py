"""A local workspace file held open for a preview: its descriptor is the version."""

from __future__ import annotations

import os
from concurrent.futures import Future

from app.core.trust.safeio import Identity, SafeOpenError, VerifiedFile
from app.formats.text_pages import FenceBrokenError, FencedReader
from app.workspace.protocol import too_large


class LocalPreviewFile:
    """A checked local file held open for a preview: its descriptor is the version.

    Reads go through the descriptor and are fenced on it and on the path, so
    a file rewritten or swapped after the check is never read as this one.
    """

    def __init__(self, opened: VerifiedFile, path: str) -> None:
        self._opened: VerifiedFile | None = opened
        self._reader = FencedReader(opened, path)
        self._path = path

    @property
    def path(self) -> str:
        return self._path

    @property
    def fence(self) -> Identity:
        return self._reader.fence

    def read(self, size: int, offset: int) -> bytes:
        return self._reader.read(size, offset)

    def _hand_over(self) -> VerifiedFile:
        opened, self._opened = self._opened, None
        if opened is None:
            raise RuntimeError("this preview file was already handed over or closed")
        return opened

    def whole(self, limit: int) -> Future[VerifiedFile]:
        done: Future[VerifiedFile] = Future()
        size = self._reader.size
        try:
            if size > limit:
                raise too_large(self._path, size, limit)
            self._reader.check()
        except FenceBrokenError:
            self.close()
            message = f"{os.path.basename(self._path)} changed since it was opened"
            done.set_exception(SafeOpenError("changed", message))
            return done
        except SafeOpenError as error:
            self.close()
            done.set_exception(error)
            return done
        done.set_result(self._hand_over())
        return done

    def paged(self) -> VerifiedFile:
        return self._hand_over()

    def close(self) -> None:
        opened, self._opened = self._opened, None
        if opened is not None:
            opened.close()
