"""Terminal text as HTML: ANSI colours become spans, every other control goes.

Tracebacks and progress bars in notebook outputs carry the escape codes a
terminal would act on. Colours, bold, italic and underline (SGR) are kept as
inline styles, in the colours JupyterLab draws them in; cursor moves, titles
and other controls are dropped, and a carriage return overwrites its line as
a terminal (and Jupyter) shows it. Everything else is escaped text.
"""

from __future__ import annotations

import html
import re

_SGR = re.compile(r"\x1b\[([0-9;:]*)m")
_OTHER_ESCAPES = re.compile(
    r"\x1b(?!\[[0-9;:]*m)"  # any escape but a colour (SGR) ...
    r"(?:\[[0-?]*[ -/]*[@-~]"  # ... a CSI sequence (cursor, erase)
    r"|\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # ... an OSC (titles, links)
    r"|[@-Z\\-_])?"  # ... any other, or a lone ESC
)
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f]")

# JupyterLab's terminal colours: normal, then bright.
_COLOURS = (
    "#3e424d", "#e75c58", "#00a250", "#ddb62b",
    "#208ffb", "#d160c4", "#60c6c8", "#c5c1b4",
    "#282c36", "#b22b31", "#007427", "#b27d12",
    "#0065ca", "#a03196", "#258f8f", "#a1a6b2",
)  # fmt: skip
_CUBE = (0, 95, 135, 175, 215, 255)


def overwrite_lines(text: str) -> str:
    """Text as a terminal leaves it: what follows a carriage return overwrites."""
    text = text.replace("\r\n", "\n")
    if "\r" not in text:
        return text
    return "\n".join(line.rsplit("\r", 1)[-1] for line in text.split("\n"))


def strip_ansi(text: str) -> str:
    """``text`` without escape sequences or control characters (tabs, lines kept)."""
    return _CONTROLS.sub("", _OTHER_ESCAPES.sub("", _SGR.sub("", text)))


def _colour_256(number: int) -> str | None:
    if 0 <= number < 16:
        return _COLOURS[number]
    if 16 <= number < 232:
        cube = number - 16
        red, green, blue = _CUBE[cube // 36], _CUBE[cube // 6 % 6], _CUBE[cube % 6]
        return f"#{red:02x}{green:02x}{blue:02x}"
    if 232 <= number < 256:
        grey = 8 + (number - 232) * 10
        return f"#{grey:02x}{grey:02x}{grey:02x}"
    return None


class _Style:
    """The SGR state: colours and attributes, changed code by code."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.foreground: str | None = None
        self.background: str | None = None
        self.bold = self.italic = self.underline = False

    def apply(self, parameters: str) -> None:
        codes = [
            int(part) if part.isdigit() else 0 for part in re.split("[;:]", parameters)
        ]
        position = 0
        while position < len(codes):
            code = codes[position]
            position += 1
            if code == 0:
                self.reset()
            elif code == 1:
                self.bold = True
            elif code == 3:
                self.italic = True
            elif code == 4:
                self.underline = True
            elif code == 22:
                self.bold = False
            elif code == 23:
                self.italic = False
            elif code == 24:
                self.underline = False
            elif 30 <= code <= 37 or 90 <= code <= 97:
                self.foreground = _COLOURS[code - 30 if code < 90 else code - 82]
            elif 40 <= code <= 47 or 100 <= code <= 107:
                self.background = _COLOURS[code - 40 if code < 100 else code - 92]
            elif code == 39:
                self.foreground = None
            elif code == 49:
                self.background = None
            elif code in (38, 48):
                colour, position = _extended(codes, position)
                if code == 38:
                    self.foreground = colour
                else:
                    self.background = colour

    def css(self) -> str:
        rules = []
        if self.foreground:
            rules.append(f"color:{self.foreground}")
        if self.background:
            rules.append(f"background-color:{self.background}")
        if self.bold:
            rules.append("font-weight:bold")
        if self.italic:
            rules.append("font-style:italic")
        if self.underline:
            rules.append("text-decoration:underline")
        return ";".join(rules)


def _extended(codes: list[int], position: int) -> tuple[str | None, int]:
    """A 256-colour (``5;n``) or true colour (``2;r;g;b``) after 38 or 48."""
    if position < len(codes) and codes[position] == 5 and position + 1 < len(codes):
        return _colour_256(codes[position + 1]), position + 2
    if position < len(codes) and codes[position] == 2 and position + 3 < len(codes):
        red, green, blue = (
            min(value, 255) for value in codes[position + 1 : position + 4]
        )
        return f"#{red:02x}{green:02x}{blue:02x}", position + 4
    return None, len(codes)


def ansi_to_html(text: str) -> str:
    """Escaped ``text`` with its SGR colours as ``<span style>``; no other control."""
    text = _CONTROLS.sub("", _OTHER_ESCAPES.sub("", overwrite_lines(text)))
    style = _Style()
    parts: list[str] = []
    position = 0
    open_span = False
    for match in _SGR.finditer(text):
        piece = text[position : match.start()]
        if piece:
            parts.append(html.escape(piece, quote=False))
        position = match.end()
        style.apply(match.group(1))
        if open_span:
            parts.append("</span>")
            open_span = False
        css = style.css()
        if css:
            parts.append(f'<span style="{css}">')
            open_span = True
    parts.append(html.escape(text[position:], quote=False))
    if open_span:
        parts.append("</span>")
    return "".join(parts)
