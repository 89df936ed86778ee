"""Check an installed ``deliverables`` as a user sees it: previews that are not blank.

``python packaging/smoke_test.py [--user UID] [--command PATH]`` writes one
file per kind of preview the package must carry the parts for: an HTML page
whose script paints a box (the sandboxed web engine), a PDF with a coloured
rectangle (MuPDF), a video whose frames hold a coloured block (QtMultimedia
and its FFmpeg), a JPEG and a WebP image (Qt's image plugins) and Python
source (the highlighter's lexers, found by name at run time). It has the
installed app save a screenshot of each (``view FILE --screenshot``,
offscreen) and checks each picture: many colours, and the colour only that
file's content puts there. Page previews need the web engine's sandbox,
which does not run as root, so as root the app runs as ``--user`` (default
65534) with a home of its own. Needs Pillow, pymupdf, pygments and the app's
own modules (the build virtualenv has them all). Exit 0 when every picture
passes.
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

# The colour the page's script gives its box (the page itself says grey), the
# PDF's rectangle, the video's block and the images' fill, as RGB.
SCRIPT_COLOUR = (18, 171, 52)
PDF_COLOUR = (26, 102, 204)
VIDEO_COLOUR = (230, 120, 20)
IMAGE_COLOUR = (150, 40, 160)
MIN_PIXELS = 20_000
MIN_COLOURS = 16
# JPEG, in the video and in the image, moves colours by a few steps.
LOSSY_TOLERANCE = 12
# Lines of source in the code sample; its keywords are the only text of the
# style's keyword colour, a few hundred pixels of it.
CODE_LINES = 40
MIN_KEYWORD_PIXELS = 300

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


@dataclass(frozen=True)
class Sample:
    """A file to preview and what its screenshot must show."""

    path: Path
    colour: tuple[int, int, int]
    min_pixels: int = MIN_PIXELS
    tolerance: int = 0  # per channel


def _pdf(path: Path) -> None:
    import pymupdf

    document = pymupdf.open()
    page = document.new_page()
    page.insert_text((72, 100), "Quarterly report", fontsize=28)
    fill = tuple(channel / 255 for channel in PDF_COLOUR)
    page.draw_rect(pymupdf.Rect(72, 150, 400, 400), color=fill, fill=fill)
    document.save(path)


def _video(path: Path) -> None:
    """Motion JPEG in AVI: Pillow encodes the frames, FFmpeg must decode them."""
    from PIL import Image, ImageDraw

    from app.demo.media import mjpeg_avi

    width, height, fps = 320, 240, 10
    frames = []
    for index in range(fps):
        image = Image.new("RGB", (width, height), (16, 20, 40))
        draw = ImageDraw.Draw(image)
        draw.rectangle((20 + index, 20, 300, 220), fill=VIDEO_COLOUR)
        buffer = io.BytesIO()
        image.save(buffer, "JPEG", quality=95)
        frames.append(buffer.getvalue())
    path.write_bytes(mjpeg_avi(frames, width, height, fps))


def _image(path: Path, fmt: str) -> None:
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (480, 360), (255, 255, 255))
    ImageDraw.Draw(image).rectangle((40, 40, 440, 320), fill=IMAGE_COLOUR)
    options = {"lossless": True} if fmt == "WEBP" else {"quality": 95}
    image.save(path, fmt, **options)


def _code(path: Path) -> tuple[int, int, int]:
    """Python source, and the colour the previewer's light style gives keywords."""
    from pygments.styles import get_style_by_name
    from pygments.token import Keyword

    from previewers.highlight import LIGHT_STYLE

    steps = range(CODE_LINES // 2)
    lines = [f"def step_{n}(value):\n    return value + {n}\n" for n in steps]
    path.write_text("".join(lines), encoding="utf-8")
    colour = get_style_by_name(LIGHT_STYLE).style_for_token(Keyword)["color"]
    return (int(colour[0:2], 16), int(colour[2:4], 16), int(colour[4:6], 16))


def write_samples(folder: Path) -> dict[str, Sample]:
    """The sample files, each with what its screenshot must show."""
    (folder / "report.html").write_text(PAGE, encoding="utf-8")
    (folder / "paint.js").write_text(SCRIPT, encoding="utf-8")
    _pdf(folder / "report.pdf")
    _video(folder / "clip.avi")
    _image(folder / "photo.jpg", "JPEG")
    _image(folder / "drawing.webp", "WEBP")
    keyword = _code(folder / "steps.py")
    return {
        "html": Sample(folder / "report.html", SCRIPT_COLOUR),
        "pdf": Sample(folder / "report.pdf", PDF_COLOUR),
        "video": Sample(folder / "clip.avi", VIDEO_COLOUR, tolerance=LOSSY_TOLERANCE),
        "jpeg": Sample(folder / "photo.jpg", IMAGE_COLOUR, tolerance=LOSSY_TOLERANCE),
        "webp": Sample(folder / "drawing.webp", IMAGE_COLOUR),
        "code": Sample(folder / "steps.py", keyword, MIN_KEYWORD_PIXELS),
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


def check_picture(png: Path, sample: Sample) -> str | None:
    """Why the screenshot looks blank or wrong, or ``None`` when it passes."""
    from PIL import Image

    if not png.is_file():
        return "no screenshot was saved"
    with Image.open(png) as image:
        rgb = image.convert("RGB")
        colours = rgb.getcolors(maxcolors=1 << 24) or []
    if len(colours) < MIN_COLOURS:
        return f"only {len(colours)} colours: the window looks blank"
    pixels = sum(
        count
        for count, value in colours
        if all(
            abs(channel - wanted) <= sample.tolerance
            for channel, wanted in zip(value, sample.colour, strict=True)
        )
    )
    if pixels < sample.min_pixels:
        return f"{pixels} pixels of rgb{sample.colour}: the file's content is not shown"
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
    for name, sample in samples.items():
        png = home / f"{name}.png"
        command = [
            *_as_user(args.user, home),
            args.command,
            "view",
            str(sample.path),
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
            else check_picture(png, sample)
        )
        status = "ok" if problem is None else f"FAILED: {problem}"
        print(f"{name}: {sample.path.name} -> {png.name} in {seconds:.1f} s: {status}")
        if problem is not None:
            failures.append(name)
    if args.keep:
        print(f"pictures kept in {home}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
