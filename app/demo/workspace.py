"""Build the demo workspace: a small quarterly sales analysis made by an agent."""

from __future__ import annotations

import csv
import io
import json
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from types import MappingProxyType

from app.demo import documents as demo_documents
from app.demo import media as demo_media
from app.resources import resource_path

LOG_TARGET_BYTES = 2_621_440  # 2.5 MiB: just past the 2 MiB whole-load text limit

# Logical name -> path relative to the workspace root, in a stable order.
DEMO_FILES: Mapping[str, str] = MappingProxyType(
    {
        "report_html": "report/index.html",
        "report_css": "report/style.css",
        "report_js": "report/chart.js",
        "report_chart_png": "report/chart.png",
        "notes_md": "notes/summary.md",
        "notes_figure_png": "notes/figure.png",
        "analysis_py": "analysis/clean_data.py",
        "metrics_json": "data/metrics.json",
        "sales_csv": "data/sales.csv",
        "chart_png": "images/chart.png",
        "diagram_svg": "images/diagram.svg",
        "report_pdf": "docs/report.pdf",
        "tone_wav": "media/tone.wav",
        "clip_avi": "media/clip.avi",
        "pipeline_log": "logs/pipeline.log",
        "handoff_docx": "deliverables/handoff.docx",
        "bundle_zip": "deliverables/bundle.zip",
        "logo_png": "public/logo.png",
    }
)


@dataclass(frozen=True)
class DemoWorkspace:
    """A built demo workspace: its root, its files by logical name, and which
    of them this build wrote (the others were already there, byte for byte)."""

    root: Path
    files: Mapping[str, str]
    written: frozenset[str] = frozenset()

    def path(self, name: str) -> Path:
        """Return the absolute path of the file with the given logical name."""
        return self.root / self.files[name]


_REGIONS = ("North", "north", "n", "East", "east", "West", "w", "South", "s")
_CUSTOMERS = (
    "Acme, Inc.",
    "Globex Corporation",
    "Initech",
    "Umbrella Retail",
    "Hooli",
    "Stark Industries",
    "Wayne Enterprises",
    "Tyrell Corp.",
)
_PRICES = (49.0, 99.0, 149.0, 399.0, 990.0)


def sales_csv() -> bytes:
    """Return ~200 orders; one customer has a comma, one note has a line break."""
    rng = random.Random(2024)  # noqa: S311 - reproducible data, not a secret
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(
        [
            "order_id",
            "date",
            "region",
            "customer",
            "units",
            "unit_price",
            "refunded",
            "notes",
        ]
    )
    first_day = date(2024, 1, 2)
    for index in range(200):
        day = first_day + timedelta(days=index * 363 // 200)
        note = ""
        if index == 17:
            note = "Customer asked for two invoices:\nhardware and support"
        elif index % 23 == 5:
            note = "annual plan"
        writer.writerow(
            [
                f"S-{10400 + index}",
                day.isoformat(),
                rng.choice(_REGIONS),
                # Index 0 guarantees a quoted field with a comma near the top.
                _CUSTOMERS[0] if index == 0 else rng.choice(_CUSTOMERS),
                rng.randint(1, 40),
                f"{rng.choice(_PRICES):.2f}",
                "yes" if rng.random() < 0.02 else "no",
                note,
            ]
        )
    return buffer.getvalue().encode()


def metrics_json() -> bytes:
    """Return nested metrics with every JSON value type."""
    metrics = {
        "report": "Quarterly sales analysis",
        "fiscal_year": 2024,
        "currency": "USD",
        "complete": True,
        "baseline_2023": None,
        "totals": {"revenue_k": 888.3, "orders": 1204, "refund_rate": 0.0174},
        "quarters": [
            {"quarter": "Q1", "revenue_k": 182.4, "orders": 268, "growth": None},
            {"quarter": "Q2", "revenue_k": 205.9, "orders": 291, "growth": 0.129},
            {"quarter": "Q3", "revenue_k": 231.7, "orders": 305, "growth": 0.125},
            {"quarter": "Q4", "revenue_k": 268.3, "orders": 340, "growth": 0.158},
        ],
        "regions": {
            "North": {"share": 0.38, "trend": "up", "flags": []},
            "East": {"share": 0.24, "trend": "up", "flags": []},
            "West": {"share": 0.22, "trend": "up", "flags": ["currency mix"]},
            "South": {"share": 0.16, "trend": "flat", "flags": ["review", "churn"]},
        },
        "checks": {"duplicates_removed": 27, "unknown_regions": 0, "passed": True},
    }
    return (json.dumps(metrics, indent=2) + "\n").encode()


_LOG_EVENTS: tuple[tuple[str, str, str], ...] = (
    ("INFO", "ingest", "loaded batch {n:05d} ({rows} rows) in {ms} ms"),
    ("DEBUG", "ingest", "batch {n:05d} checksum ok, {rows} rows, 0 rejected"),
    ("INFO", "clean", "normalised {rows} region names, {dupes} duplicate order ids"),
    ("DEBUG", "clean", "parse_row: order S-{order} -> quarter Q{q}"),
    ("INFO", "aggregate", "quarter Q{q}: running revenue {rev:.2f} USD"),
    ("WARNING", "clean", "order S-{order}: unit price missing, using list price"),
    ("INFO", "export", "wrote partial metrics for Q{q} ({ms} ms)"),
    ("ERROR", "ingest", "batch {n:05d}: upstream timeout after {ms} ms, retrying"),
)
_LOG_WEIGHTS = (30, 30, 12, 40, 10, 3, 5, 1)


def _clock(elapsed_ms: int) -> str:
    seconds, millis = divmod(elapsed_ms, 1000)
    minutes, seconds = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    return f"2024-12-30 {hours:02d}:{minutes:02d}:{seconds:02d}.{millis:03d}"


def pipeline_log() -> bytes:
    """Return a deterministic pipeline log a little larger than 2.5 MiB."""
    rng = random.Random(7)  # noqa: S311 - reproducible data, not a secret
    lines = ["2024-12-30 06:00:00.000 INFO     [pipeline] run 42 started (seed 7)\n"]
    size = len(lines[0])
    elapsed_ms = 6 * 3_600_000
    n = 0
    # Integer milliseconds and events drawn in blocks keep generation near 0.1 s.
    while size < LOG_TARGET_BYTES:
        events = rng.choices(_LOG_EVENTS, weights=_LOG_WEIGHTS, k=1000)
        steps = rng.choices(range(3, 90), k=1000)
        for (level, source, template), step in zip(events, steps, strict=True):
            n += 1
            elapsed_ms += step
            message = template.format(
                n=n,
                rows=512 + n % 97,
                ms=10 + n % 83,
                dupes=n % 5,
                order=10400 + n % 200,
                q=n % 4 + 1,
                rev=n * 37.5,
            )
            line = f"{_clock(elapsed_ms)} {level:<8} [{source}] {message}\n"
            lines.append(line)
            size += len(line)
    summary = f"run 42 finished: {n} events processed"
    lines.append(f"{_clock(elapsed_ms + 250)} INFO     [pipeline] {summary}\n")
    return "".join(lines).encode()


def source_text(name: str) -> bytes:
    """One of the demo's fixed texts, by its path in the workspace."""
    return resource_path("demo", *DEMO_FILES[name].split("/")).read_bytes()


def _contents(chart: bytes) -> dict[str, Callable[[], bytes]]:
    return {
        "report_html": lambda: source_text("report_html"),
        "report_css": lambda: source_text("report_css"),
        "report_js": lambda: source_text("report_js"),
        "report_chart_png": lambda: chart,
        "notes_md": lambda: source_text("notes_md"),
        "notes_figure_png": lambda: demo_media.bar_chart_png(
            "Orders by quarter",
            (("Q1", 268), ("Q2", 291), ("Q3", 305), ("Q4", 340)),
            unit="",
        ),
        "analysis_py": lambda: source_text("analysis_py"),
        "metrics_json": metrics_json,
        "sales_csv": sales_csv,
        "chart_png": lambda: chart,
        "diagram_svg": lambda: source_text("diagram_svg"),
        "report_pdf": lambda: demo_documents.report_pdf(chart),
        "tone_wav": demo_media.tone_wav,
        "clip_avi": demo_media.clip_avi,
        "pipeline_log": pipeline_log,
        "handoff_docx": demo_documents.handoff_docx,
        "bundle_zip": lambda: demo_documents.deterministic_zip(
            {
                "summary.md": source_text("notes_md"),
                "metrics.json": metrics_json(),
                "clean_data.py": source_text("analysis_py"),
            }
        ),
        "logo_png": demo_media.logo_png,
    }


def _same_bytes(target: Path, data: bytes) -> bool:
    """Whether ``target`` is a regular file holding exactly ``data``."""
    try:
        if not target.is_file() or target.is_symlink():
            return False
        if target.stat().st_size != len(data):
            return False
        return target.read_bytes() == data
    except OSError:
        return False


def build_demo_workspace(root: Path) -> DemoWorkspace:
    """Write the demo files under root, replacing any earlier demo files there.

    A file that already holds the right bytes is left alone, so a second
    ``deliverables demo`` keeps the files, and so the records, of the first.
    """
    chart = demo_media.bar_chart_png("Revenue by quarter (k$)")
    contents = _contents(chart)
    written: set[str] = set()
    for name, relative in DEMO_FILES.items():
        target = root / relative
        data = contents[name]()
        if _same_bytes(target, data):
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.is_symlink():
            target.unlink()
        target.write_bytes(data)
        written.add(name)
    return DemoWorkspace(root=root, files=DEMO_FILES, written=frozenset(written))
