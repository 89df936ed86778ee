"""PDFs made by the tools agents use: files kept in ``pdf/`` and ones made now.

The kept ones were made by pdfTeX (LaTeX with hyperref, and Texinfo),
Chromium's print to PDF and LibreOffice Writer, from the sources beside them
(``pdf/README.md`` says how). The others are written when a test asks, by
reportlab, matplotlib and fpdf2 at the versions the ``dev`` extra pins. Each
comes with the outline a person should see: (level, title) per entry.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

PDF_DIR = Path(__file__).resolve().parent / "pdf"

Outline = tuple[tuple[int, str], ...]


@dataclass(frozen=True)
class RealPdf:
    """One producer's PDF: how to get it and the outline it must show."""

    name: str
    write: Callable[[Path], Path]
    outline: Outline
    pages: int


def _kept(name: str) -> Callable[[Path], Path]:
    def write(folder: Path) -> Path:
        target = folder / name
        target.write_bytes((PDF_DIR / name).read_bytes())
        return target

    return write


def reportlab_pdf(folder: Path) -> Path:
    """Two pages with headings, a shape and an outline, as reportlab writes them."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen.canvas import Canvas

    path = folder / "reportlab-invoice.pdf"
    canvas = Canvas(str(path), pagesize=A4)
    canvas.setTitle("Invoice 2024-117")
    for number, heading in enumerate(("Invoice", "Terms"), start=1):
        key = f"page{number}"
        canvas.bookmarkPage(key)
        canvas.addOutlineEntry(heading, key, level=0)
        canvas.setFont("Helvetica-Bold", 24)
        canvas.drawString(72, 770, heading)
        canvas.setFont("Helvetica", 12)
        canvas.drawString(
            72, 740, f"Page {number} of the invoice, written by reportlab."
        )
        canvas.setFillColorRGB(0.2, 0.4, 0.7)
        canvas.rect(72, 600, 300, 100, fill=1)
        canvas.showPage()
    canvas.save()
    return path


def matplotlib_pdf(folder: Path) -> Path:
    """A line chart saved by matplotlib's PDF backend (no pyplot, no GUI)."""
    from matplotlib.backends.backend_pdf import FigureCanvasPdf
    from matplotlib.figure import Figure

    path = folder / "matplotlib-chart.pdf"
    figure = Figure(figsize=(6, 4))
    FigureCanvasPdf(figure)
    axes = figure.add_subplot()
    months = list(range(1, 13))
    axes.plot(months, [m * m for m in months], linewidth=3, label="sales")
    axes.bar(months, [m * 8 for m in months], alpha=0.5, label="costs")
    axes.set_title("Sales by month")
    axes.legend()
    figure.savefig(path, format="pdf")
    return path


def fpdf2_pdf(folder: Path) -> Path:
    """A short report with sections (fpdf2 writes them as the outline)."""
    from fpdf import FPDF

    path = folder / "fpdf2-report.pdf"
    pdf = FPDF()
    pdf.set_title("Site survey")
    for heading in ("Summary", "Details"):
        pdf.add_page()
        pdf.set_font("helvetica", "B", 20)
        pdf.start_section(heading)
        pdf.cell(text=heading)
        pdf.ln(14)
        pdf.set_font("helvetica", size=12)
        pdf.multi_cell(0, 8, text=f"The {heading.lower()} of the survey. " * 6)
        pdf.set_fill_color(40, 120, 60)
        pdf.rect(20, 120, 120, 40, style="F")
    pdf.output(str(path))
    return path


REAL_PDFS: tuple[RealPdf, ...] = (
    RealPdf(
        "pdftex-hyperref",
        _kept("pdftex-hyperref.pdf"),
        (
            (1, "1 Introduction"),
            (2, "1.1 Scope"),
            (3, "1.1.1 Limits"),
            (1, "2 Method"),
            (1, "3 Results"),
            (2, "3.1 First finding"),
            (2, "3.2 Second finding"),
        ),
        2,
    ),
    RealPdf(
        "texinfo",
        _kept("texinfo-manual.pdf"),
        ((1, "1 Overview"), (1, "2 Usage"), (2, "Options")),
        4,
    ),
    RealPdf(
        "chromium",
        _kept("chromium-report.pdf"),
        (
            (1, "Quarterly field report"),
            (2, "Method"),
            (2, "Results"),
            (3, "Notes"),
        ),
        1,
    ),
    RealPdf(
        "libreoffice",
        _kept("libreoffice-minutes.pdf"),
        (
            (1, "Meeting minutes"),
            (2, "Attendees"),
            (2, "Decisions"),
            (3, "Open questions"),
        ),
        1,
    ),
    RealPdf("reportlab", reportlab_pdf, ((1, "Invoice"), (1, "Terms")), 2),
    RealPdf("matplotlib", matplotlib_pdf, (), 1),
    RealPdf("fpdf2", fpdf2_pdf, ((1, "Summary"), (1, "Details")), 2),
)
"""Every producer's PDF, the pdfTeX ones first."""
