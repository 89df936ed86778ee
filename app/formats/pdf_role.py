"""How a process is told to be the PDF worker: nothing here imports the PDF library.

``python -m app`` and the frozen app check their first argument against
``WORKER_ARGUMENT`` at every start, so this stays free of ``pymupdf``, which
takes about 0.1 s to import.
"""

from __future__ import annotations

WORKER_ARGUMENT = "--pdf-worker"
"""The frozen app runs the worker when this is its first argument."""
MEMORY_ENV = "DELIVERABLES_PDF_WORKER_MEMORY"
"""How many bytes of address space the worker may use (set by the app)."""
