"""Deterministic PDF, .docx and .zip files for the demo workspace."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Mapping
from typing import Any
from xml.sax.saxutils import escape

# Fixed so that rebuilding the demo gives byte-identical files.
FIXED_DATE_PDF = "D:20250115090000+00'00'"
FIXED_DATE_ZIP = (2025, 1, 15, 9, 0, 0)

_PAGE_WIDTH, _PAGE_HEIGHT = 595, 842  # A4 in points
_MARGIN = 64

# (outline title, body paragraphs); the contents page is built from the titles.
_SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "Executive summary",
        (
            "Revenue for fiscal year 2024 reached 888.3 k$, up 47.1 % from Q1 to Q4. "
            "Every quarter grew on the previous one.",
            "The North region contributed 38 % of revenue. Annual plans, launched in "
            "Q3, raised the average order value by 21 %.",
            "Refunds stayed below 2 % of orders in every month; the March outliers "
            "are listed in the appendix for review with finance.",
        ),
    ),
    (
        "Data and method",
        (
            "Source: the CRM export data/sales.csv (1,231 rows, 1,204 unique orders "
            "after removing retried uploads).",
            "Region names were normalised (for example 'n' and 'north' both map to "
            "North). Customer names keep their punctuation; quoted fields with "
            "commas and line breaks are parsed with the csv module.",
            "Revenue is units times unit price; refunded orders count as zero. "
            "Quarters follow the calendar year.",
        ),
    ),
    (
        "Results by quarter",
        (
            "Q1: 182.4 k$ from 268 orders.",
            "Q2: 205.9 k$ from 291 orders (+12.9 %).",
            "Q3: 231.7 k$ from 305 orders (+12.5 %).",
            "Q4: 268.3 k$ from 340 orders (+15.8 %).",
            "The chart in the HTML report shows the same figures.",
        ),
    ),
    (
        "Results by region",
        (
            "North: 337.6 k$ (38.0 %). East: 213.2 k$ (24.0 %). West: 195.4 k$ "
            "(22.0 %). South: 142.1 k$ (16.0 %).",
            "South is flat quarter over quarter; its two largest customers moved to "
            "annual plans billed through the North entity.",
        ),
    ),
    (
        "Recommendations",
        (
            "1. Extend annual plans to the South region in Q1 2025.",
            "2. Fix the duplicate uploads at the source instead of in the cleaning "
            "script.",
            "3. Add the 2023 baseline to the report once the export is available.",
        ),
    ),
    (
        "Appendix: refund outliers",
        (
            "Order S-10433, 2024-03-07, 12 units, refunded: duplicate charge.",
            "Order S-10457, 2024-03-19, 40 units, refunded: wrong plan selected.",
            "Order S-10462, 2024-03-21, 8 units, refunded: customer cancelled.",
        ),
    ),
)


def _pymupdf() -> Any:
    # Imported on first use because it is heavy; typed Any because pymupdf's API
    # is unannotated, which would otherwise fail strict type checking.
    import pymupdf

    return pymupdf


def report_pdf(chart_png: bytes) -> bytes:
    """Return a six-page report with a contents page, an outline and a GOTO link."""
    pymupdf = _pymupdf()

    doc = pymupdf.open()
    doc.new_page(width=_PAGE_WIDTH, height=_PAGE_HEIGHT)
    toc: list[list[object]] = [[1, "Contents", 1]]
    for number, (title, paragraphs) in enumerate(_SECTIONS, start=2):
        _section_page(doc, number, title, paragraphs)
        toc.append([1, title, number])
    # Fetched after the other pages exist: adding pages detaches earlier Page objects.
    _contents_page(doc[0], chart_png)
    doc.set_toc(toc)
    doc.set_metadata(
        {
            "title": "Quarterly sales analysis",
            "author": "Analysis agent",
            "subject": "Fiscal year 2024 sales",
            "creator": "Deliverables demo",
            "producer": "Deliverables demo",
            "creationDate": FIXED_DATE_PDF,
            "modDate": FIXED_DATE_PDF,
        }
    )
    data: bytes = doc.tobytes(
        garbage=3, deflate=True, no_new_id=True, reproducible=True
    )
    doc.close()
    return data


def _contents_page(page: Any, chart_png: bytes) -> None:
    pymupdf = _pymupdf()

    page.insert_text(
        (_MARGIN, 120), "Quarterly sales analysis", fontsize=26, fontname="hebo"
    )
    page.insert_text(
        (_MARGIN, 150),
        "Fiscal year 2024 - prepared by the analysis agent",
        fontsize=12,
        color=(0.4, 0.45, 0.5),
    )
    page.insert_text((_MARGIN, 210), "Contents", fontsize=16, fontname="hebo")
    for row, (title, _) in enumerate(_SECTIONS):
        baseline = 236 + 22 * row
        page.insert_text(
            (_MARGIN, baseline),
            f"{row + 1}.  {title}",
            fontsize=12,
            color=(0.15, 0.39, 0.92),
        )
        page.insert_text(
            (_PAGE_WIDTH - _MARGIN - 12, baseline), str(row + 2), fontsize=12
        )
        area = pymupdf.Rect(_MARGIN, baseline - 14, _PAGE_WIDTH - _MARGIN, baseline + 6)
        page.insert_link(
            {
                "kind": pymupdf.LINK_GOTO,
                "from": area,
                "page": row + 1,
                "to": pymupdf.Point(_MARGIN, 72),
            }
        )
    chart_top = 236 + 22 * len(_SECTIONS) + 24
    chart_width = _PAGE_WIDTH - 2 * _MARGIN
    page.insert_image(
        pymupdf.Rect(
            _MARGIN,
            chart_top,
            _PAGE_WIDTH - _MARGIN,
            chart_top + chart_width * 500 / 800,
        ),
        stream=chart_png,
    )


def _section_page(
    doc: Any, number: int, title: str, paragraphs: tuple[str, ...]
) -> None:
    pymupdf = _pymupdf()

    page = doc.new_page(width=_PAGE_WIDTH, height=_PAGE_HEIGHT)
    page.insert_text((_MARGIN, 100), title, fontsize=20, fontname="hebo")
    page.draw_line(
        (_MARGIN, 112), (_PAGE_WIDTH - _MARGIN, 112), color=(0.85, 0.88, 0.92)
    )
    top = 136.0
    for paragraph in paragraphs:
        box = pymupdf.Rect(_MARGIN, top, _PAGE_WIDTH - _MARGIN, _PAGE_HEIGHT - 80)
        spare = page.insert_textbox(box, paragraph, fontsize=11, lineheight=1.4)
        top = box.y1 - spare + 12
    page.insert_text(
        (_PAGE_WIDTH / 2 - 4, _PAGE_HEIGHT - 40),
        str(number),
        fontsize=9,
        color=(0.5, 0.5, 0.5),
    )


def deterministic_zip(members: Mapping[str, bytes]) -> bytes:
    """Return a zip of the given members with fixed timestamps and permissions."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            info = zipfile.ZipInfo(name, date_time=FIXED_DATE_ZIP)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)
    return buffer.getvalue()


_XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
_OOXML = "http://schemas.openxmlformats.org"
_WORD_MAIN = "application/vnd.openxmlformats-officedocument.wordprocessingml"

_CONTENT_TYPES = (
    f'{_XML_DECLARATION}<Types xmlns="{_OOXML}/package/2006/content-types">\n'
    '<Default Extension="rels" '
    'ContentType="application/vnd.openxmlformats-package.relationships+xml"/>\n'
    '<Default Extension="xml" ContentType="application/xml"/>\n'
    '<Override PartName="/word/document.xml" '
    f'ContentType="{_WORD_MAIN}.document.main+xml"/>\n'
    "</Types>\n"
)

_RELS = (
    f'{_XML_DECLARATION}<Relationships xmlns="{_OOXML}/package/2006/relationships">\n'
    '<Relationship Id="rId1" '
    f'Type="{_OOXML}/officeDocument/2006/relationships/officeDocument" '
    'Target="word/document.xml"/>\n'
    "</Relationships>\n"
)

_HANDOFF: tuple[tuple[str, str], ...] = (
    ("Title", "Quarterly sales analysis - handoff"),
    ("Heading1", "What you receive"),
    (
        "",
        "The HTML report (report/index.html), the PDF report (docs/report.pdf), "
        "the cleaned metrics (data/metrics.json) and the cleaning script "
        "(analysis/clean_data.py).",
    ),
    ("Heading1", "Open questions"),
    ("", "Three refunds in March need a review with finance."),
    ("", "The 2023 baseline is missing from the export."),
)


def handoff_docx() -> bytes:
    """Return a minimal WordprocessingML document: three parts, no styles part."""
    body = []
    for style, text in _HANDOFF:
        properties = f'<w:pPr><w:pStyle w:val="{style}"/></w:pPr>' if style else ""
        body.append(f"<w:p>{properties}<w:r><w:t>{escape(text)}</w:t></w:r></w:p>")
    document = (
        f'{_XML_DECLARATION}<w:document xmlns:w="{_OOXML}/wordprocessingml/2006/main">'
        "<w:body>" + "".join(body) + "<w:sectPr/></w:body></w:document>\n"
    )
    return deterministic_zip(
        {
            "[Content_Types].xml": _CONTENT_TYPES.encode(),
            "_rels/.rels": _RELS.encode(),
            "word/document.xml": document.encode(),
        }
    )
