"""The names of the host's tools: fixed strings the model, store and chat share."""

from __future__ import annotations

from typing import Final

LIST_FILES: Final = "list_files"
READ_FILE: Final = "read_file"
WRITE_FILE: Final = "write_file"
PRESENT: Final = "present"
SHOW_IMAGE: Final = "show_image"
