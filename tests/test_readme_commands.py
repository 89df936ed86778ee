"""The README's two commands are the ones CI and a new user run."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```sh\n(.+?)\n```", text)


def test_readme_opens_with_the_demo_and_the_test_commands():
    demo, tests = _readme_commands()[:2]
    assert demo.endswith("deliverables demo")
    assert tests.endswith("scripts/check.py")


def test_ci_runs_exactly_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    (command,) = re.findall(r'^TEST_COMMAND="(.+)"$', ci, flags=re.MULTILINE)
    assert command == _readme_commands()[1]
