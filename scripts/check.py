"""Run every check the project holds itself to: lint, format, types, layers, tests."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent

# Tests come last so that the test runner's summary closes the output.
CHECKS: list[tuple[str, list[str]]] = [
    ("ruff lint", [str(BIN / "ruff"), "check", "."]),
    ("ruff format", [str(BIN / "ruff"), "format", "--check", "."]),
    ("mypy", [sys.executable, "-m", "mypy"]),
    ("import-linter", [str(BIN / "lint-imports"), "--no-cache"]),
    ("pytest", [sys.executable, "-m", "pytest", *sys.argv[1:]]),
]


def main() -> int:
    env = dict(os.environ)
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    # Caches go to a fresh temporary folder: the checkout may be read-only, and
    # a cache left by another user must never be written into.
    caches = tempfile.mkdtemp(prefix="deliverables-check-")
    env["RUFF_CACHE_DIR"] = os.path.join(caches, "ruff")
    env["MYPY_CACHE_DIR"] = os.path.join(caches, "mypy")
    failed: list[str] = []
    for name, command in CHECKS:
        print(f"== {name}", flush=True)
        if subprocess.run(command, cwd=ROOT, env=env, check=False).returncode != 0:
            failed.append(name)
    shutil.rmtree(caches, ignore_errors=True)
    if failed:
        print(f"FAILED: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
