"""Real Jupyter notebooks for the tests, written by nbformat and run by a kernel.

``executed(folder)`` writes ``analysis.ipynb`` and has nbclient run it in an
IPython kernel (ipykernel), so its outputs are the ones Jupyter stores:
pandas' HTML table, matplotlib's PNG and SVG figures, a stream with a
carriage return, a warning on stderr, an HTML output whose inline script
notes what it can reach, an error with its coloured traceback and IPython's
``Math`` (LaTeX). The run happens in a child process (its event loop and
warnings stay out of the tests), once per test session.
``python -m tests.data.notebooks FOLDER`` does the same by hand.
``with_drawings(folder)`` writes ``growth.ipynb``, whose Markdown cells hold
math, amounts in dollars and a Mermaid diagram (``DRAWN_CELLS``); Markdown
cells are stored as written, so it needs no kernel.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE_ID = "output-probe"
"""The element the HTML output's own inline script fills with what it could reach."""

CELLS: list[tuple[str, str]] = [
    (
        "markdown",
        "# Quarterly sales\n\n"
        "Sales by **month**, from `sales.csv`; growth is $g = s_t / s_{t-1}$.\n\n"
        "$$\\bar{g} = \\frac{1}{n} \\sum_{t=1}^{n} g_t$$",
    ),
    (
        "code",
        "import matplotlib.pyplot as plt\n"
        "import pandas as pd\n\n"
        "df = pd.DataFrame({'month': ['Jan', 'Feb', 'Mar', 'Apr'],\n"
        "                   'sales': [10, 14, 9, 17]})\n"
        "fig, ax = plt.subplots(figsize=(6, 3.2))\n"
        "ax.bar(df['month'], df['sales'], color='#4c72b0')\n"
        "ax.plot(df['month'], df['sales'], color='#dd8452', marker='o')\n"
        "ax.set_title('Sales by month')\n"
        "ax.set_ylabel('units')\n"
        "plt.show()",
    ),
    ("code", "df.describe().T"),
    (
        "markdown",
        "## Notes\n\n| quarter | target |\n|---|---|\n| Q1 | 33 |\n\n"
        "- cleaned\n- plotted",
    ),
    (
        "code",
        "import sys\n"
        "print(f'Loaded {len(df)} rows')\n"
        "print('warning: 2 rows had no region', file=sys.stderr)",
    ),
    (
        "code",
        "from matplotlib_inline.backend_inline import set_matplotlib_formats\n"
        "set_matplotlib_formats('svg')\n"
        "fig, ax = plt.subplots(figsize=(3, 2))\n"
        "ax.plot([1, 2, 3], [2, 1, 3])\n"
        "plt.show()",
    ),
    (
        "code",
        "for step in range(1, 4):\n    print(f'\\rstep {step} of 3', end='')\nprint()",
    ),
    (
        "code",
        "from IPython.display import HTML, display\n"
        "display(HTML(\n"
        f"    '<p id=\"{PROBE_ID}\">not run</p><script>{{'\n"
        "    'const out = {origin: self.origin,'\n"
        "    ' top: String(window.parent === window)};'\n"
        '    \'try { localStorage.setItem("k", "v"); out.storage = "READ"; }\'\n'
        "    'catch (e) { out.storage = \"blocked \" + e.name; }'\n"
        f"    'document.getElementById(\"{PROBE_ID}\").textContent ='\n"
        "    ' JSON.stringify(out);'\n"
        "    '}</script>'))",
    ),
    ("code", "1 / 0"),
    (
        "code",
        "from IPython.display import Math\n"
        "Math(r'\\sigma^2 = \\frac{1}{n}\\sum_{i=1}^{n} (s_i - \\bar{s})^2')",
    ),
]

DRAWN_CELLS: tuple[str, ...] = (
    "# Growth model\n\n"
    "Each month grows by $g_t = s_t / s_{t-1}$, and over the year by\n\n"
    "$$G = \\prod_{t=1}^{12} g_t = \\frac{s_{12}}{s_0}$$\n\n"
    "The two plans cost $5 and $10 per day.",
    "## Pipeline\n\n"
    "```mermaid\n"
    "flowchart LR\n"
    "  Load[Load sales] --> Clean[Clean rows] --> Plot[Plot growth]\n"
    "```",
)
"""The Markdown cells of ``growth.ipynb``: two formulas, two amounts, a diagram."""


def write_and_execute(folder: Path) -> Path:
    """Write the notebook and run it in a kernel (in this process); its path."""
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    notebook.cells = [
        nbformat.v4.new_markdown_cell(source)
        if kind == "markdown"
        else nbformat.v4.new_code_cell(source)
        for kind, source in CELLS
    ]
    NotebookClient(
        notebook, timeout=300, kernel_name="python3", allow_errors=True
    ).execute()
    path = folder / "analysis.ipynb"
    nbformat.write(notebook, path)
    return path


def with_drawings(
    folder: Path, cells: Sequence[str] = DRAWN_CELLS, name: str = "growth.ipynb"
) -> Path:
    """A notebook of Markdown ``cells`` written in ``folder``; its path."""
    import nbformat

    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_markdown_cell(source) for source in cells]
    path = folder / name
    nbformat.write(notebook, path)
    return path


_made: dict[str, Path] = {}


def executed(folder: Path) -> Path:
    """``analysis.ipynb``, executed once per process in a child process."""
    if "analysis" in _made:
        return _made["analysis"]
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [sys.executable, "-m", "tests.data.notebooks", str(folder)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
        env={**os.environ, "MPLBACKEND": "module://matplotlib_inline.backend_inline"},
        check=False,
    )
    path = folder / "analysis.ipynb"
    if done.returncode != 0 or not path.exists():
        raise RuntimeError(f"the notebook did not run: {done.stderr[-3000:]}")
    _made["analysis"] = path
    return path


if __name__ == "__main__":
    print(write_and_execute(Path(sys.argv[1])))
