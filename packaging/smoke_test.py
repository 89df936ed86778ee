"""Check an installed ``deliverables`` as a user sees it: previews that are not blank.

``python packaging/smoke_test.py [--user UID] [--command PATH]`` writes an HTML
page whose script paints a box and a PDF with a coloured rectangle, has the
installed app save a screenshot of each (``view FILE --screenshot``, offscreen)
and checks each picture: many colours, and the colour only the page's script
(or the PDF) puts there. Page previews need the web engine's sandbox, which
does not run as root, so as root the app runs as ``--user`` (default 65534)
with a home of its own. Needs Pillow and pymupdf (the build virtualenv has
both). Exit 0 when both pictures pass.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# The colour the page's script gives its box (the page itself says grey), and
# the PDF's rectangle, as RGB; a picture passes with this many pixels of it.
SCRIPT_COLOUR = (18, 171, 52)
PDF_COLOUR = (26, 102, 204)
MIN_PIXELS = 20_000
MIN_COLOURS = 16

PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>Report</title></head>
<body style="background:#ffffff;font-family:sans-serif">
<h1 id="title">Waiting for the script</h1>
<div id="box" style="width:400px;height:300px;background:#777777"></div>
<script src="paint.js"></script>
</body></html>
"""
SCRIPT = """document.getElementById("box").style.background = "rgb({}, {}, {})";
document.getElementById("title").textContent = "The script ran";
""".format(*SCRIPT_COLOUR)


def write_samples(folder: Path) -> dict[str, tuple[Path, tuple[int, int, int]]]:
    """The sample files, each with the colour its screenshot must show."""
    import pymupdf

    (folder / "report.html").write_text(PAGE, encoding="utf-8")
    (folder / "paint.js").write_text(SCRIPT, encoding="utf-8")
    document = pymupdf.open()
    page = document.new_page()
    page.insert_text((72, 100), "Quarterly report", fontsize=28)
    fill = tuple(channel / 255 for channel in PDF_COLOUR)
    page.draw_rect(pymupdf.Rect(72, 150, 400, 400), color=fill, fill=fill)
    document.save(folder / "report.pdf")
    return {
        "html": (folder / "report.html", SCRIPT_COLOUR),
        "pdf": (folder / "report.pdf", PDF_COLOUR),
    }


def _as_user(uid: int, home: Path) -> list[str]:
    """The command prefix that runs a program as ``uid`` with ``home``."""
    environment = {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local/share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_RUNTIME_DIR": str(home / ".run"),
        "PATH": "/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "QT_QPA_PLATFORM": "offscreen",
        "TMPDIR": tempfile.gettempdir(),
    }
    prefix = ["env", "-i", *(f"{name}={value}" for name, value in environment.items())]
    if os.geteuid() != 0:
        return prefix
    drop = [f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
    return ["setpriv", *drop, *prefix]


def check_picture(png: Path, colour: tuple[int, int, int]) -> str | None:
    """Why the screenshot looks blank or wrong, or ``None`` when it passes."""
    from PIL import Image

    if not png.is_file():
        return "no screenshot was saved"
    with Image.open(png) as image:
        rgb = image.convert("RGB")
        colours = rgb.getcolors(maxcolors=1 << 24) or []
    if len(colours) < MIN_COLOURS:
        return f"only {len(colours)} colours: the window looks blank"
    pixels = sum(count for count, value in colours if value == colour)
    if pixels < MIN_PIXELS:
        return f"{pixels} pixels of rgb{colour}: the file's content is not shown"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--user", type=int, default=65534, help="uid to run as")
    parser.add_argument(
        "--command", default=shutil.which("deliverables") or "deliverables"
    )
    parser.add_argument("--keep", action="store_true", help="keep the pictures")
    args = parser.parse_args(argv)

    work = Path(tempfile.mkdtemp(prefix="deliverables-smoke-"))
    work.chmod(0o755)
    files, home = work / "files", work / "home"
    files.mkdir()
    (home / ".run").mkdir(parents=True, mode=0o700)
    samples = write_samples(files)
    if os.geteuid() == 0:
        for path in (work, *work.rglob("*")):
            os.chown(path, args.user, args.user)

    failures: list[str] = []
    for name, (sample, colour) in samples.items():
        png = home / f"{name}.png"
        command = [
            *_as_user(args.user, home),
            args.command,
            "view",
            str(sample),
            "--screenshot",
            str(png),
            "--wait-ms",
            "30000",
        ]
        started = time.monotonic()
        result = subprocess.run(
            command, capture_output=True, text=True, timeout=180, check=False
        )
        seconds = time.monotonic() - started
        problem = (
            f"exit {result.returncode}: {result.stderr[-2000:]}"
            if result.returncode != 0
            else check_picture(png, colour)
        )
        status = "ok" if problem is None else f"FAILED: {problem}"
        print(f"{name}: {sample.name} -> {png.name} in {seconds:.1f} s: {status}")
        if problem is not None:
            failures.append(name)
    if args.keep:
        print(f"pictures kept in {home}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
