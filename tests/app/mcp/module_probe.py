"""Runs ``deliverables ARGS...`` and, at exit, writes the modules it imported.

Usage: python module_probe.py OUT ARGS...; the test reads OUT (one module
name a line) to check what the MCP server loaded.
"""

from __future__ import annotations

import atexit
import sys


def _write(path: str) -> None:
    with open(path, "w", encoding="utf-8") as out:
        out.write("\n".join(sorted(sys.modules)))


def main() -> int:
    out, *args = sys.argv[1:]
    atexit.register(_write, out)
    from app.cli import main as deliverables

    return deliverables(args)


if __name__ == "__main__":
    sys.exit(main())
