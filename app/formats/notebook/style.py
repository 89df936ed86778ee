"""The notebook page's style sheet, light or dark, written into the page."""

from __future__ import annotations

from app.formats.diagram_page import PageColors, drawing_style

_COLOURS = {
    False: {
        "text": "#1f2328",
        "page": "#ffffff",
        "muted": "#59636e",
        "input": "#f6f8fa",
        "border": "#d1d9e0",
        "prompt_in": "#303f9f",
        "prompt_out": "#d84315",
        "error": "#fdecea",
        "stderr": "#fff5f5",
        "notice": "#fff8c5",
        "notice_border": "#d4a72c",
        "link": "#0969da",
        "stripe": "#f6f8fa",
        "hover": "#e8f0fe",
    },
    True: {
        "text": "#e6edf3",
        "page": "#0d1117",
        "muted": "#9198a1",
        "input": "#161b22",
        "border": "#3d444d",
        "prompt_in": "#8c9eff",
        "prompt_out": "#ff8a65",
        "error": "#3c1618",
        "stderr": "#2d1a1a",
        "notice": "#3b2f0b",
        "notice_border": "#9e6a03",
        "link": "#4493f8",
        "stripe": "#151b23",
        "hover": "#1f2a3a",
    },
}

_STYLE = """
html{{background:{page};color:{text}}}
body{{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI","Noto Sans",
"Helvetica Neue",Arial,sans-serif;color:{text};background:{page}}}
main.notebook{{max-width:1040px;margin:0 auto;padding:16px 24px 48px}}
pre,code{{font-family:ui-monospace,"SFMono-Regular","DejaVu Sans Mono",Menlo,
Consolas,monospace;font-size:13px}}
pre{{margin:0;white-space:pre-wrap;overflow-wrap:anywhere}}
a{{color:{link}}}
.cell{{margin:0 0 12px}}
.markdown-cell{{padding:0 0 0 96px}}
.markdown img{{max-width:100%}}
.markdown h1,.markdown h2{{border-bottom:1px solid {border};padding-bottom:.3em}}
.markdown pre{{background:{input};border-radius:6px;padding:12px;overflow:auto;
white-space:pre}}
.markdown code{{background:{input};border-radius:4px;padding:.1em .3em}}
.markdown pre code{{background:none;padding:0}}
.markdown table,.output-html table{{border-collapse:collapse;margin:8px 0}}
.markdown th,.markdown td{{border:1px solid {border};padding:4px 10px}}
.input,.output{{display:flex;align-items:flex-start}}
.prompt{{flex:0 0 88px;padding:6px 8px 0 0;text-align:right;font-family:
ui-monospace,"DejaVu Sans Mono",monospace;font-size:12px;color:{prompt_in};
user-select:none}}
.output .prompt{{color:{prompt_out}}}
pre.source{{flex:1;min-width:0;background:{input};border:1px solid {border};
border-radius:6px;padding:8px 12px;white-space:pre;overflow-x:auto}}
.output-body{{flex:1;min-width:0;padding:6px 0 0;overflow-x:auto}}
.output-stream,.output-text,.output-error{{padding:2px 0}}
.output-stream.stderr{{background:{stderr};padding:4px 8px;border-radius:4px}}
.output-error{{background:{error};padding:6px 8px;border-radius:4px}}
.output-image{{max-width:100%;height:auto;display:block}}
.output-html table{{border:none;font-size:13px;font-variant-numeric:tabular-nums}}
.output-html th,.output-html td{{border:none;padding:4px 10px;text-align:right;
vertical-align:middle}}
.output-html thead th{{border-bottom:1px solid {border};font-weight:600}}
.output-html tbody tr:nth-child(odd){{background:{stripe}}}
.output-html tbody tr:hover{{background:{hover}}}
.raw-cell{{padding-left:96px}}
pre.raw{{color:{muted};border-left:3px solid {border};padding:4px 12px}}
.notice{{background:{notice};border:1px solid {notice_border};border-radius:6px;
padding:6px 10px;margin:6px 0;font-size:13px}}
.missing{{color:{muted};font-style:italic}}
"""


def page_style(dark: bool) -> str:
    """The style sheet of a page drawn on a dark (or light) background.

    Formulas and diagrams are styled as in a Markdown document's page.
    """
    colours = _COLOURS[dark]
    drawn = PageColors(
        text=colours["text"],
        background=colours["page"],
        muted=colours["muted"],
        link=colours["link"],
        code_background=colours["input"],
        border=colours["border"],
    )
    return _STYLE.format(**colours).replace("\n", "") + drawing_style(drawn)
