"""Watch the folders of open files and report changes on the GUI thread."""

from __future__ import annotations

import logging
import os
import threading
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from watchdog.events import FileSystemEvent, FileSystemEventHandler

if TYPE_CHECKING:
    from watchdog.observers.api import BaseObserver, ObservedWatch

_log = logging.getLogger(__name__)

# Events that do not change content: our own opens and read-only closes.
_IGNORED_EVENTS = frozenset({"opened", "closed_no_write"})


class FileChangeWatcher(QObject):
    """One watchdog observer for a workspace; folders are watched, not recursively.

    The observer thread emits ``pathChanged``; Qt queues it to this object's
    thread, so receivers run on the GUI thread. The observer starts with the
    first watched file and stops in ``stop()``.

    Signals:
        pathChanged(str): something happened to a watched file (changed, deleted,
            moved away or replaced); the receiver decides which by looking.
    """

    pathChanged = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._lock = threading.Lock()
        self._files: dict[str, int] = {}
        self._folders: dict[str, tuple[ObservedWatch, int]] = {}
        self._observer: BaseObserver | None = None
        self._stopped = False

    def watched_files(self) -> set[str]:
        with self._lock:
            return set(self._files)

    def watch(self, path: str) -> None:
        """Report changes to ``path`` until ``unwatch`` is called as often."""
        if self._stopped:
            return
        path = os.path.normpath(path)
        folder = os.path.dirname(path)
        observer = self._ensure_observer()
        with self._lock:
            self._files[path] = self._files.get(path, 0) + 1
            if folder in self._folders:
                watch, count = self._folders[folder]
                self._folders[folder] = (watch, count + 1)
                return
        try:
            watch = observer.schedule(_Handler(self), folder, recursive=False)
        except OSError as error:
            _log.warning("cannot watch %s for changes: %s", folder, error)
            # The folder cannot be watched (gone, or out of inotify watches): the
            # preview still works, it just gets no change notice.
            with self._lock:
                self._drop_file(path)
            return
        with self._lock:
            self._folders[folder] = (watch, 1)

    def unwatch(self, path: str) -> None:
        path = os.path.normpath(path)
        folder = os.path.dirname(path)
        with self._lock:
            if path not in self._files:
                return
            self._drop_file(path)
            watch, count = self._folders.get(folder, (None, 0))
            if watch is None:
                return
            if count > 1:
                self._folders[folder] = (watch, count - 1)
                return
            del self._folders[folder]
        if self._observer is not None:
            self._observer.unschedule(watch)

    def stop(self) -> None:
        """Stop the observer thread; later ``watch`` calls do nothing."""
        self._stopped = True
        observer, self._observer = self._observer, None
        if observer is not None:
            observer.stop()
            observer.join(timeout=5)
        with self._lock:
            self._files.clear()
            self._folders.clear()

    def _drop_file(self, path: str) -> None:
        count = self._files.get(path, 0) - 1
        if count > 0:
            self._files[path] = count
        else:
            self._files.pop(path, None)

    def _ensure_observer(self) -> BaseObserver:
        if self._observer is None:
            # Loaded on first use: nothing is watched until a file is open.
            from watchdog.observers import Observer

            observer = Observer()
            observer.daemon = True
            observer.start()
            self._observer = observer
        return self._observer

    def _on_event(self, event: FileSystemEvent) -> None:
        if self._stopped or event.event_type in _IGNORED_EVENTS or event.is_directory:
            return
        touched = {os.fsdecode(event.src_path)}
        if event.dest_path:
            touched.add(os.fsdecode(event.dest_path))
        with self._lock:
            hits = [os.path.normpath(p) for p in touched]
            hits = [p for p in hits if p in self._files]
        for path in hits:
            self.pathChanged.emit(path)


class _Handler(FileSystemEventHandler):
    """Forwards every event of a watched folder to the watcher."""

    def __init__(self, watcher: FileChangeWatcher) -> None:
        super().__init__()
        self._watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        self._watcher._on_event(event)
