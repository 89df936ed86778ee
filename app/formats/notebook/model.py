"""A Jupyter notebook read into immutable cells and outputs, format 3 or 4.

Every field is type-checked as it is read: a cell or an output whose shape is
wrong is skipped and counted, never guessed at, so a hostile or damaged file
shows what it can and says how much it left out. The JSON is parsed by
orjson, and what orjson refuses by the app's JSON loader
(``app.formats.json_load``), which catches deep nesting and takes ``NaN`` as
Python's ``json`` writes it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

import orjson

from app.formats.collection import collector_paused
from app.formats.json_load import JsonProblem, load_json_fast

MAX_CELLS = 5_000
"""Cells read from a notebook; the rest are counted and left to the JSON view."""
MAX_OUTPUTS = 1_000
"""Outputs read from one cell; the rest are counted."""
MAX_LANGUAGE = 64

# Format 3 names a MIME type by a short key on the output itself.
_V3_MIMES: Mapping[str, str] = MappingProxyType(
    {
        "text": "text/plain",
        "html": "text/html",
        "svg": "image/svg+xml",
        "png": "image/png",
        "jpeg": "image/jpeg",
        "latex": "text/latex",
        "markdown": "text/markdown",
        "javascript": "application/javascript",
        "json": "application/json",
        "pdf": "application/pdf",
    }
)


class NotebookError(ValueError):
    """The file cannot be read as a notebook at all; the message says why."""


@dataclass(frozen=True)
class Stream:
    """Text a cell printed: ``name`` is ``stdout`` or ``stderr``."""

    name: str
    text: str


@dataclass(frozen=True)
class Rich:
    """A displayed value: the same content in several MIME types.

    ``data`` holds the text of each type (base64 for raster images);
    ``sizes`` the width and height asked for an image type, if any;
    ``execution_count`` is set for a cell's result (``Out[n]``).
    """

    data: Mapping[str, str]
    sizes: Mapping[str, tuple[int | None, int | None]] = field(
        default_factory=lambda: MappingProxyType({})
    )
    execution_count: int | None = None
    result: bool = False


@dataclass(frozen=True)
class Failure:
    """An exception a cell raised: its name, value and traceback lines."""

    ename: str
    evalue: str
    traceback: tuple[str, ...]


Output = Stream | Rich | Failure
CellKind = Literal["markdown", "code", "raw"]


@dataclass(frozen=True)
class Cell:
    """One cell; ``attachments`` maps a name to its data by MIME type."""

    kind: CellKind
    source: str
    execution_count: int | None = None
    outputs: tuple[Output, ...] = ()
    attachments: Mapping[str, Mapping[str, str]] = field(
        default_factory=lambda: MappingProxyType({})
    )
    outputs_left_out: int = 0


@dataclass(frozen=True)
class Notebook:
    """The cells read, the code's language, and what was skipped or left out."""

    version: int
    language: str
    cells: tuple[Cell, ...]
    skipped_cells: int = 0
    skipped_outputs: int = 0
    cells_left_out: int = 0


def multiline(value: Any) -> str | None:
    """A notebook string: one string, or a list of strings joined; else ``None``."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(part, str) for part in value):
        return "".join(value)
    return None


def _count(value: Any) -> int | None:
    # bool is an int to Python, never an execution count to Jupyter.
    return value if type(value) is int and value >= 0 else None


def _dimension(value: Any) -> int | None:
    if type(value) is int and 0 < value <= 100_000:
        return value
    if isinstance(value, str) and value.isdigit() and 0 < len(value) <= 6:
        return int(value)
    return None


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def parse_notebook(data: bytes) -> Notebook:
    """Read a notebook file's bytes; ``NotebookError`` when it is none.

    orjson reads a valid notebook in one call. The JSON loader's own first
    step, a scan for integers orjson would round, holds the interpreter lock
    for 60 ms on a 20 MB notebook while the window waits; a notebook's numbers
    are counts and sizes, which orjson reads exactly. Whatever orjson refuses
    (NaN, a byte order mark, deep nesting, bad JSON) goes to that loader,
    which reads it or says what is wrong.
    """
    try:
        with collector_paused():
            value = orjson.loads(data)
    except orjson.JSONDecodeError:
        loaded = load_json_fast(data)
        if isinstance(loaded, JsonProblem):
            line = loaded.line
            where = f" (line {line}, column {loaded.column})" if line else ""
            raise NotebookError(f"{loaded.message.rstrip('.')}{where}") from None
        value = loaded.value
    return read_notebook(value)


def read_notebook(value: Any) -> Notebook:
    """The notebook a parsed JSON value holds; ``NotebookError`` if it holds none."""
    if not isinstance(value, dict):
        raise NotebookError("it is not a Jupyter notebook: it is not a JSON object")
    version = _count(value.get("nbformat"))
    if version is None:
        if isinstance(value.get("cells"), list):
            version = 4
        elif isinstance(value.get("worksheets"), list):
            version = 3
        else:
            raise NotebookError("it is not a Jupyter notebook: it has no cells")
    if version < 3:
        raise NotebookError(
            f"it is a version {version} notebook; versions 3 and 4 can be shown"
        )
    metadata = _mapping(value.get("metadata"))
    if version == 3:
        raw_cells = _v3_cells(value)
        language = metadata.get("language")
    else:
        found = value.get("cells")
        if not isinstance(found, list):
            raise NotebookError("it is not a Jupyter notebook: its cells are no list")
        raw_cells = found
        language = _mapping(metadata.get("kernelspec")).get("language") or _mapping(
            metadata.get("language_info")
        ).get("name")
    reader = _Reader(version)
    cells = tuple(
        cell
        for cell in (reader.cell(raw) for raw in raw_cells[:MAX_CELLS])
        if cell is not None
    )
    if not isinstance(language, str) or len(language) > MAX_LANGUAGE:
        language = "python"
    return Notebook(
        version,
        language.strip().lower() or "python",
        cells,
        reader.skipped_cells,
        reader.skipped_outputs,
        max(0, len(raw_cells) - MAX_CELLS),
    )


def _v3_cells(value: dict[str, Any]) -> list[Any]:
    worksheets = value.get("worksheets")
    if not isinstance(worksheets, list):
        raise NotebookError("it is not a Jupyter notebook: it has no worksheets")
    cells: list[Any] = []
    for sheet in worksheets:
        found = _mapping(sheet).get("cells")
        if isinstance(found, list):
            cells.extend(found)  # references only: cheap, and counted whole
    return cells


class _Reader:
    """Reads cells and outputs of one format version, counting what it skips."""

    def __init__(self, version: int) -> None:
        self.version = version
        self.skipped_cells = 0
        self.skipped_outputs = 0

    def cell(self, raw: Any) -> Cell | None:
        found = self._cell(raw) if isinstance(raw, dict) else None
        if found is None:
            self.skipped_cells += 1
        return found

    def _cell(self, raw: dict[str, Any]) -> Cell | None:
        kind = raw.get("cell_type")
        v3 = self.version == 3
        source = multiline(raw.get("input" if v3 and kind == "code" else "source"))
        if source is None:
            return None
        if kind == "heading" and v3:
            level = _count(raw.get("level"))
            level = min(max(level or 1, 1), 6)
            return Cell("markdown", "#" * level + " " + source.replace("\n", " "))
        if kind in ("markdown", "raw"):
            return Cell(kind, source, attachments=self._attachments(raw))
        if kind != "code":
            return None
        number = _count(raw.get("prompt_number" if v3 else "execution_count"))
        raw_outputs = raw.get("outputs", [])
        if not isinstance(raw_outputs, list):
            raw_outputs = []
            self.skipped_outputs += 1
        outputs = []
        for output in raw_outputs[:MAX_OUTPUTS]:
            read = self._output(output) if isinstance(output, dict) else None
            if read is None:
                self.skipped_outputs += 1
            else:
                outputs.append(read)
        left_out = max(0, len(raw_outputs) - MAX_OUTPUTS)
        return Cell("code", source, number, tuple(outputs), outputs_left_out=left_out)

    def _attachments(self, raw: dict[str, Any]) -> Mapping[str, Mapping[str, str]]:
        found: dict[str, Mapping[str, str]] = {}
        for name, bundle in _mapping(raw.get("attachments")).items():
            data = _bundle(bundle)
            if data:
                found[name] = data
        return MappingProxyType(found)

    def _output(self, raw: dict[str, Any]) -> Output | None:
        kind = raw.get("output_type")
        if kind == "stream":
            name = raw.get("stream" if self.version == 3 else "name")
            text = multiline(raw.get("text"))
            if text is None:
                return None
            return Stream(name if name in ("stdout", "stderr") else "stdout", text)
        if kind in ("error", "pyerr"):
            return _failure(raw)
        if kind in ("execute_result", "pyout", "display_data", "update_display_data"):
            result = kind in ("execute_result", "pyout")
            if self.version == 3:
                data = {mime: raw[key] for key, mime in _V3_MIMES.items() if key in raw}
                number = _count(raw.get("prompt_number"))
            else:
                data = _mapping(raw.get("data"))
                number = _count(raw.get("execution_count"))
            bundle = _bundle(data)
            sizes = _sizes(_mapping(raw.get("metadata")), bundle)
            return Rich(bundle, sizes, number if result else None, result)
        return None


def _bundle(value: Any) -> Mapping[str, str]:
    """Each MIME type whose content is text; JSON-valued types are not shown."""
    found: dict[str, str] = {}
    for mime, content in _mapping(value).items():
        text = multiline(content)
        if isinstance(mime, str) and text is not None:
            found[mime] = text
    return MappingProxyType(found)


def _sizes(
    metadata: dict[str, Any], bundle: Mapping[str, str]
) -> Mapping[str, tuple[int | None, int | None]]:
    sizes: dict[str, tuple[int | None, int | None]] = {}
    for mime in bundle:
        asked = _mapping(metadata.get(mime))
        width, height = _dimension(asked.get("width")), _dimension(asked.get("height"))
        if width is not None or height is not None:
            sizes[mime] = (width, height)
    return MappingProxyType(sizes)


def _failure(raw: dict[str, Any]) -> Failure | None:
    ename, evalue = raw.get("ename", ""), raw.get("evalue", "")
    traceback = raw.get("traceback", [])
    if not isinstance(ename, str) or not isinstance(evalue, str):
        return None
    if not isinstance(traceback, list) or not all(
        isinstance(line, str) for line in traceback
    ):
        traceback = []
    return Failure(ename, evalue, tuple(traceback))
