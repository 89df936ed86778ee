"""A corpus of hostile and broken files, written by code: one entry per class of input.

Each ``Case`` names a file the corpus test writes into a folder and opens
through the real previewer registry, with the class it belongs to and how long
it may take to settle (a hang guard, not a speed figure). The files are small
or compress well; the big ones are made when the test runs, never kept in the
repository. ``write_corpus`` writes them all; the helpers are shared with the
unit tests that need one such file.
"""

from __future__ import annotations

import base64
import importlib
import json
import random
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Writer = Callable[[Path], None]


@dataclass(frozen=True)
class Case:
    """One corpus file: its name, class, writer, and its hang guard in seconds.

    ``loads``: the file must end in a preview, not in a message (it is valid,
    or has a usable part). ``watch_s``: how long to keep measuring after it
    settled, for work that goes on after the first view (page renders).
    """

    name: str
    kind: str
    write: Writer
    budget_s: float = 30.0
    loads: bool = False
    watch_s: float = 1.5


# -- building blocks ---------------------------------------------------------------


def _chunk(kind: bytes, body: bytes) -> bytes:
    crc = zlib.crc32(kind + body) & 0xFFFFFFFF
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)


def png_header(width: int, height: int, data: bytes | None = None) -> bytes:
    """A PNG of ``width`` x ``height`` (8-bit grey); only its header if no ``data``."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    body = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr)
    if data is not None:
        body += _chunk(b"IDAT", zlib.compress(data))
    return body + _chunk(b"IEND", b"")


def small_png(width: int = 16, height: int = 16) -> bytes:
    rows = b"".join(
        b"\x00" + bytes((x * 16) % 256 for x in range(width)) for _ in range(height)
    )
    return png_header(width, height, rows)


def fuzzed_png(seed: int) -> bytes:
    """A small PNG with a few bytes past its signature changed at random."""
    data = bytearray(small_png(32, 32))
    rng = random.Random(seed)
    for _ in range(4):
        data[rng.randrange(8, len(data))] = rng.randrange(256)
    return bytes(data)


def bmp_header(width: int, height: int) -> bytes:
    """A 24-bit BMP whose header claims ``width`` x ``height`` over a few pixels."""
    pixels = b"\x00" * 64
    info = struct.pack(
        "<IiiHHIIiiII", 40, width, height, 1, 24, 0, len(pixels), 0, 0, 0, 0
    )
    head = b"BM" + struct.pack(
        "<IHHI", 14 + len(info) + len(pixels), 0, 0, 14 + len(info)
    )
    return head + info + pixels


def wav_bytes(
    tag: int,
    bits: int,
    samples: bytes,
    *,
    extensible_tag: int | None = None,
    rate: int = 8000,
    block_align: int | None = None,
) -> bytes:
    """A mono WAV of ``samples`` whose fmt chunk names ``tag`` (0xFFFE: extensible)."""
    align = block_align or max(bits // 8, 1)
    fmt = struct.pack("<HHIIHH", tag, 1, rate, rate * align, align, bits)
    if extensible_tag is not None:
        guid_tail = b"\x00\x00\x00\x00\x10\x00\x80\x00\x00\xaa\x00\x38\x9b\x71"
        fmt += struct.pack("<HHIH", 22, bits, 4, extensible_tag) + guid_tail
    elif tag != 1:
        fmt += struct.pack("<H", 0)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt
    if tag != 1:
        body += b"fact" + struct.pack("<II", 4, len(samples) * 8 // max(bits, 1))
    body += b"data" + struct.pack("<I", len(samples)) + samples
    return b"RIFF" + struct.pack("<I", len(body)) + body


def float_wav(seconds: float = 0.5, rate: int = 8000) -> bytes:
    """A 440 Hz tone as 32-bit float samples (``wave`` cannot read it)."""
    import math

    count = int(seconds * rate)
    samples = struct.pack(
        f"<{count}f",
        *(0.5 * math.sin(2 * math.pi * 440 * n / rate) for n in range(count)),
    )
    return wav_bytes(3, 32, samples, rate=rate)


def _write_bytes(data: bytes | Callable[[], bytes]) -> Writer:
    def write(path: Path) -> None:
        path.write_bytes(data() if callable(data) else data)

    return write


def _write_text(text: str | Callable[[], str]) -> Writer:
    def write(path: Path) -> None:
        path.write_text(text() if callable(text) else text, encoding="utf-8")

    return write


# -- JSON ------------------------------------------------------------------------------


def _big_json_array(path: Path, count: int = 260_000) -> None:
    with path.open("w", encoding="utf-8") as out:
        out.write("[")
        for n in range(count):
            out.write("," if n else "")
            out.write(
                f'{{"id": {n}, "name": "item {n}", "tags": ["a", "b"], "v": {n / 7}}}'
            )
        out.write("]")


def _wide_json() -> str:
    return json.dumps([f"value {n}" for n in range(160_000)])


def _json_lines(count: int) -> str:
    return "".join(f'{{"n": {n}, "event": "tick", "ok": true}}\n' for n in range(count))


def _one_huge_line() -> str:
    return json.dumps([{"n": n, "s": "x" * 20} for n in range(150_000)]) + "\n"


# -- PDF ---------------------------------------------------------------------------


def _pdf(build: Callable[[Any], None]) -> Writer:
    def write(path: Path) -> None:
        pymupdf: Any = importlib.import_module("pymupdf")
        document = pymupdf.open()
        build(document)
        document.save(str(path), garbage=0, deflate=True)
        document.close()

    return write


def _pdf_many_operators(document: Any) -> None:
    page = document.new_page()
    content = b"0 0 m 1 1 l S\n" * 1_000_000  # three million operators
    xref = document.get_new_xref()
    document.update_object(xref, "<<>>")
    document.update_stream(xref, content)
    document.xref_set_key(page.xref, "Contents", f"{xref} 0 R")


def _pdf_huge_image(document: Any) -> None:
    page = document.new_page()
    side = 20_000
    compressor = zlib.compressobj(9)
    row = b"\x80" * side
    stream = (
        b"".join(compressor.compress(row) for _ in range(side)) + compressor.flush()
    )
    xref = document.get_new_xref()
    document.update_object(
        xref,
        f"<</Type/XObject/Subtype/Image/Width {side}/Height {side}"
        "/ColorSpace/DeviceGray/BitsPerComponent 8/Filter/FlateDecode>>",
    )
    document.update_stream(xref, stream, compress=False)
    resources = document.get_new_xref()
    document.update_object(resources, f"<</XObject<</Im0 {xref} 0 R>>>>")
    document.xref_set_key(page.xref, "Resources", f"{resources} 0 R")
    contents = document.get_new_xref()
    document.update_object(contents, "<<>>")
    document.update_stream(contents, b"q 595 0 0 842 0 0 cm /Im0 Do Q")
    document.xref_set_key(page.xref, "Contents", f"{contents} 0 R")


def _pdf_long_outline(document: Any) -> None:
    for _ in range(3):
        document.new_page()
    document.set_toc([[1, f"Entry {n}", 1 + n % 3] for n in range(20_000)])


def _pdf_deep_outline(document: Any) -> None:
    document.new_page()
    document.set_toc([[level, f"Level {level}", 1] for level in range(1, 1001)])


# -- the corpus ----------------------------------------------------------------------


def _svg(prolog: bytes, encoding: str = "utf-8") -> Writer:
    body = "<svg xmlns='http://www.w3.org/2000/svg' width='40' height='40'>"
    body += "<rect width='40' height='40' fill='teal'/></svg>"
    if encoding == "utf-16":
        return _write_bytes((prolog.decode() + body).encode("utf-16"))
    return _write_bytes(prolog + body.encode())


def _notebook(make_cells: Callable[[Any], list[Any]]) -> Writer:
    """A notebook nbformat writes, of the cells ``make_cells(nbformat.v4)`` gives."""

    def write(path: Path) -> None:
        import nbformat

        notebook = nbformat.v4.new_notebook()
        notebook.cells = make_cells(nbformat.v4)
        nbformat.write(notebook, path)

    return write


def _output_cell(v4: Any, *outputs: Any) -> Any:
    cell = v4.new_code_cell("show()", execution_count=1)
    cell.outputs = list(outputs)
    return cell


def _huge_output(v4: Any) -> list[Any]:
    text = "0123456789abcdef" * (8 << 16)  # 8 MiB printed by one cell
    return [_output_cell(v4, v4.new_output("stream", name="stdout", text=text))]


def _hostile_outputs(v4: Any) -> list[Any]:
    bomb = base64.b64encode(png_header(100_000, 100_000, b"")).decode()
    svg = "<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>"
    return [
        _output_cell(
            v4,
            v4.new_output("display_data", data={"image/png": "@@not base64@@"}),
            v4.new_output("display_data", data={"image/png": bomb}),
            v4.new_output("display_data", data={"image/svg+xml": svg}),
            v4.new_output("display_data", data={"text/html": "<table>" * 5_000}),
            v4.new_output("error", ename="E", evalue="v", traceback=["\x1b[31m" * 9]),
        )
    ]


def _drawings_everywhere(v4: Any) -> list[Any]:
    """Twice the diagrams and fifty times the formulas a page draws, across cells."""
    formulas = " ".join(f"$x_{{{n}}}^2$" for n in range(1_000))
    diagram = "```mermaid\nflowchart LR\n  A[Load] --> B[Clean] --> C[Plot]\n```"
    return [v4.new_markdown_cell(f"{formulas}\n\n{diagram}") for _ in range(100)]


CASES: tuple[Case, ...] = (
    # JSON
    Case("wide-array.json", "json", _write_text(_wide_json), loads=True),
    Case("big-array.json", "json", _big_json_array, 60.0, loads=True),
    Case("deep.json", "json", _write_bytes(b"[" * 100_000 + b"]" * 100_000)),
    Case(
        "deep-objects.json",
        "json",
        _write_bytes(b'{"a":' * 5_000 + b"1" + b"}" * 5_000),
    ),
    Case("invalid-utf8.json", "json", _write_bytes(b'["\xff\xfe bad"]')),
    Case("nul-byte.json", "json", _write_bytes(b"[1, \x00]")),
    Case("utf8-bom.json", "json", _write_bytes(b'\xef\xbb\xbf{"a": 1}'), loads=True),
    Case("lone-surrogate.json", "json", _write_bytes(b'["\\ud800"]'), loads=True),
    Case("encoded-surrogate.json", "json", _write_bytes(b'["\xed\xa0\x80"]')),
    Case("trailing-garbage.json", "json", _write_bytes(b'{"a": 1} trailing')),
    Case(
        "nan-infinity.json",
        "json",
        _write_bytes(b"[NaN, Infinity, -Infinity]"),
        loads=True,
    ),
    Case("1e400.json", "json", _write_bytes(b"[1e400]"), loads=True),
    Case(
        "big-integer.json", "json", _write_bytes(b"[" + b"9" * 5000 + b"]"), loads=True
    ),
    Case(
        "duplicate-keys.json",
        "json",
        _write_bytes(b'{"a": 1, "a": 2, "b": {"c": 1, "c": 2}}'),
        loads=True,
    ),
    Case(
        "utf16-no-bom.json",
        "json",
        _write_bytes('{"k": "v"}'.encode("utf-16-le")),
        loads=True,
    ),
    # JSON Lines
    Case(
        "many-lines.jsonl",
        "jsonl",
        _write_text(lambda: _json_lines(100_000)),
        loads=True,
    ),
    Case("one-huge-line.jsonl", "jsonl", _write_text(_one_huge_line), loads=True),
    Case(
        "broken-lines.jsonl",
        "jsonl",
        _write_bytes(b'{"a": 1}\n{bad\n\xff\n[1, 2]\n'),
        loads=True,
    ),
    # CSV
    Case("cr-only.csv", "csv", _write_bytes(b"name,age\r1,2\r3,4\r")),
    Case("single-row.csv", "csv", _write_bytes(b"name,age,town\n"), loads=True),
    Case("empty.csv", "csv", _write_bytes(b""), loads=True),
    Case(
        "unclosed-quote.csv",
        "csv",
        _write_bytes(b'a,b\n"open,1\n2,3\n' * 1000),
        loads=True,
    ),
    # Markdown
    Case(
        "emphasis-soup.md",
        "markdown",
        _write_text(lambda: "".join(f"*a{n} **b{n} " for n in range(20_000))),
        60.0,
        loads=True,
    ),
    Case(
        "unclosed-comment.md",
        "markdown",
        _write_text("<!-- " + "text\n" * 50_000),
        loads=True,
    ),
    Case(
        "equal-headings.md",
        "markdown",
        _write_text("# Same\n\n" * 20_000),
        60.0,
        loads=True,
    ),
    Case(
        "huge-image.md",
        "markdown",
        _write_text("![big](huge-header.png)\n"),
        loads=True,
    ),
    # Text and code
    Case(
        "anchors.yaml",
        "text",
        _write_text("key: " + "&a [" * 2_000 + "]" * 2_000 + "\n"),
        loads=True,
    ),
    Case(
        "CMakeLists.txt",
        "text",
        _write_text("cmake_minimum_required(VERSION 3.20)\nproject(x)\n"),
        loads=True,
    ),
    Case(
        "style.scss",
        "text",
        _write_text("$flag: true;\n.a { b: false; }\n"),
        loads=True,
    ),
    Case("plus.rb", "text", _write_text("a.+(b)\n"), loads=True),
    # Images
    Case("huge-header.png", "image", _write_bytes(png_header(60_000, 60_000))),
    Case("bomb-header.png", "image", _write_bytes(png_header(100_000, 100_000))),
    Case("tall-header.png", "image", _write_bytes(png_header(1, 2_147_483_647))),
    Case("zero.png", "image", _write_bytes(png_header(0, 0))),
    *(
        Case(f"fuzzed-{seed}.png", "image", _write_bytes(fuzzed_png(seed)))
        for seed in range(6)
    ),
    Case("badwidth.bmp", "image", _write_bytes(bmp_header(0x7FFF_FFFF, 1))),
    # SVG
    Case(
        "doctype.svg",
        "svg",
        _svg(b'<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "svg11.dtd">\n'),
        loads=True,
    ),
    Case("comment-first.svg", "svg", _svg(b"<!-- drawn by hand -->\n"), loads=True),
    Case("utf16-bom.svg", "svg", _svg(b"", "utf-16"), loads=True),
    Case(
        "late-root.svg",
        "svg",
        _svg(b"<?xml version='1.0'?>\n<!--" + b"x" * 1500 + b"-->\n"),
        loads=True,
    ),
    # Audio
    Case("float.wav", "audio", _write_bytes(float_wav), loads=True),
    Case(
        "adpcm.wav",
        "audio",
        _write_bytes(wav_bytes(2, 4, b"\x00" * 2048, block_align=256)),
    ),
    Case(
        "mulaw.wav", "audio", _write_bytes(wav_bytes(7, 8, b"\xff" * 4000)), loads=True
    ),
    Case(
        "extensible.wav",
        "audio",
        _write_bytes(
            lambda: wav_bytes(0xFFFE, 16, b"\x00\x01" * 4000, extensible_tag=1)
        ),
        loads=True,
    ),
    # PDF
    Case(
        "many-operators.pdf",
        "pdf",
        _pdf(_pdf_many_operators),
        60.0,
        loads=True,
        watch_s=12.0,
    ),
    Case(
        "huge-image.pdf", "pdf", _pdf(_pdf_huge_image), 60.0, loads=True, watch_s=12.0
    ),
    Case("long-outline.pdf", "pdf", _pdf(_pdf_long_outline), loads=True, watch_s=12.0),
    Case("deep-outline.pdf", "pdf", _pdf(_pdf_deep_outline), loads=True, watch_s=12.0),
    # HTML
    Case(
        "open-anchors.html",
        "html",
        _write_text("<html><body>" + "<a " * 10_000),
        loads=True,
    ),
    Case(
        "script-loop.html",
        "html",
        _write_text("<html><script>for(;;){}</script></html>"),
        watch_s=12.0,
    ),
    Case(
        "hex-charset.html",
        "html",
        _write_text('<meta charset="hex"><p>hello</p>'),
        loads=True,
    ),
    # Jupyter notebooks
    Case("huge-output.ipynb", "notebook", _notebook(_huge_output), 60.0, loads=True),
    Case(
        "ten-thousand-cells.ipynb",
        "notebook",
        _notebook(
            # Ids of their own: random ones collide now and then at this count.
            lambda v4: [v4.new_code_cell(f"x = {n}", id=f"c{n}") for n in range(10_000)]
        ),
        60.0,
        loads=True,
    ),
    Case("hostile-outputs.ipynb", "notebook", _notebook(_hostile_outputs), loads=True),
    Case(
        "drawings-everywhere.ipynb",
        "notebook",
        _notebook(_drawings_everywhere),
        60.0,
        loads=True,
    ),
    Case(
        "deep.ipynb",
        "notebook",
        _write_bytes(b'{"cells": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"),
    ),
)


def write_corpus(folder: Path, cases: tuple[Case, ...] = CASES) -> dict[str, Path]:
    """Write every case into ``folder``; their paths by name."""
    folder.mkdir(parents=True, exist_ok=True)
    paths: dict[str, Path] = {}
    for case in cases:
        path = folder / case.name
        case.write(path)
        paths[case.name] = path
    return paths
