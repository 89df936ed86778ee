"""The built-in browser: one page, SVG or image in the preview sandbox, in a window.

Which of them a file is, is the browser table's call (``previewers.registry``),
made from the file's bytes like every preview.
"""

from __future__ import annotations

from pathlib import PurePath

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import QLabel, QMainWindow, QToolBar, QWidget

from app.core.filetype import Kind
from app.core.trust.display_names import display_name
from app.core.trust.safeio import VerifiedFile
from previewers.context import STANDALONE, PreviewContext
from previewers.registry import BROWSER
from previewers.source import PreviewSource
from previewers.widgets import ISOLATED_LABEL


class BrowserWindow(QMainWindow):
    """A window with one sandboxed preview: reload, zoom, close.

    Owns the ``VerifiedFile`` it is given (through its preview) and releases
    it, and the page's capability URL, when closed. The title is the file's
    name; the toolbar says plainly that the page is isolated.

    Signals:
        closed(): the window was closed and its preview released.
    """

    closed = Signal()

    def __init__(
        self,
        path: str,
        file: VerifiedFile,
        *,
        context: PreviewContext = STANDALONE,
        kind: Kind | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        name = display_name(PurePath(path).name)
        self.setWindowTitle(name)  # a window title is never rich text
        self.setAccessibleName(f"Built-in browser: {name}")
        try:
            source = PreviewSource.from_file(path, file, kind=kind)
        except OSError:
            file.close()
            raise
        previewer = BROWSER.choose(source)
        self.preview = previewer.create(source, file, self, context=context)
        self.setCentralWidget(self.preview)
        self.toolbar = QToolBar("Browser", self)
        self.toolbar.setObjectName("browserToolbar")
        self.toolbar.setMovable(False)
        self.addToolBar(self.toolbar)
        self._add_action("Reload", "reload", (QKeySequence.StandardKey.Refresh,))
        self.toolbar.addSeparator()
        self._add_action("Zoom out", "zoom_out", (QKeySequence.StandardKey.ZoomOut,))
        self._add_action("Reset zoom", "zoom_reset", (QKeySequence("Ctrl+0"),))
        self._add_action(
            "Zoom in",
            "zoom_in",
            (QKeySequence.StandardKey.ZoomIn, QKeySequence("Ctrl+=")),
        )
        self.toolbar.addSeparator()
        self.isolated_label = QLabel(ISOLATED_LABEL, self.toolbar)
        self.isolated_label.setTextFormat(Qt.TextFormat.PlainText)
        self.isolated_label.setObjectName("isolatedLabel")
        self.isolated_label.setContentsMargins(8, 0, 8, 0)
        self.toolbar.addWidget(self.isolated_label)
        spacer = QWidget(self.toolbar)
        spacer.setSizePolicy(
            spacer.sizePolicy().Policy.Expanding, spacer.sizePolicy().Policy.Preferred
        )
        self.toolbar.addWidget(spacer)
        self._add_action("Close", "close", (QKeySequence.StandardKey.Close,))
        self.resize(1000, 760)

    def _add_action(
        self,
        text: str,
        handler: str,
        keys: tuple[QKeySequence | QKeySequence.StandardKey, ...],
    ) -> QAction:
        action = QAction(text, self)
        action.setObjectName(f"browser_{handler}")
        action.setShortcuts([QKeySequence(key) for key in keys])
        action.triggered.connect(getattr(self, f"_on_{handler}_triggered"))
        self.toolbar.addAction(action)
        return action

    def action(self, handler: str) -> QAction:
        """The toolbar action named ``handler`` (reload, zoom_in, ..., close)."""
        found = self.findChild(QAction, f"browser_{handler}")
        assert found is not None, handler
        return found

    @Slot()
    def _on_reload_triggered(self) -> None:
        self.preview.reload()

    @Slot()
    def _on_zoom_in_triggered(self) -> None:
        self.preview.zoom_in()

    @Slot()
    def _on_zoom_out_triggered(self) -> None:
        self.preview.zoom_out()

    @Slot()
    def _on_zoom_reset_triggered(self) -> None:
        self.preview.zoom_reset()

    @Slot()
    def _on_close_triggered(self) -> None:
        self.close()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.preview.release()
        super().closeEvent(event)
        self.closed.emit()
