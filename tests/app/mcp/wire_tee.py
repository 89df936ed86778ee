"""Runs a command and copies every line it writes to stdout into a log too.

Usage: python wire_tee.py LOG -- COMMAND...; tests wrap the MCP server in it
to record exactly what the server sent on the wire.
"""

from __future__ import annotations

import subprocess
import sys


def main() -> int:
    log_path, separator, *command = sys.argv[1:]
    assert separator == "--"
    with (
        open(log_path, "ab") as log,
        subprocess.Popen(command, stdout=subprocess.PIPE) as child,
    ):
        assert child.stdout is not None
        for line in child.stdout:
            log.write(line)
            log.flush()
            sys.stdout.buffer.write(line)
            sys.stdout.buffer.flush()
    return child.returncode


if __name__ == "__main__":
    sys.exit(main())
