"""The tests mirror the source tree; where a module has no test of its own name,
``tests/mirror.toml`` says which tests cover it, and both are kept true here."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
SOURCES = ("app", "previewers")
COVERED_BY: dict[str, list[str]] = tomllib.loads(
    (TESTS / "mirror.toml").read_text(encoding="utf-8")
)["covered_by"]


def _has_code(path: Path) -> bool:
    """Whether a module holds more than its docstring."""
    body = ast.parse(path.read_text(encoding="utf-8")).body
    return any(
        not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))
        for node in body
    )


def _modules() -> list[Path]:
    found = []
    for top in SOURCES:
        for path in sorted((ROOT / top).rglob("*.py")):
            if _has_code(path):
                found.append(path.relative_to(ROOT))
    return found


def _own_tests(module: Path) -> list[Path]:
    """The test modules named after ``module`` (a package: its test folder too)."""
    if module.name == "__init__.py":
        package = module.parent
        folder = TESTS / package
        named = TESTS / package.parent / f"test_{package.name}.py"
        return [*sorted(folder.glob("test_*.py")), *([named] if named.exists() else [])]
    named = TESTS / module.parent / f"test_{module.stem}.py"
    return [named] if named.exists() else []


def test_every_module_has_its_own_test_or_a_line_in_the_map() -> None:
    missing = [
        str(module)
        for module in _modules()
        if not _own_tests(module) and str(module) not in COVERED_BY
    ]
    assert missing == [], f"add a test module or a line to tests/mirror.toml: {missing}"


def test_the_map_names_modules_that_exist_and_tests_that_exist() -> None:
    modules = {str(module) for module in _modules()}
    stale = [name for name in COVERED_BY if name not in modules]
    absent = [
        test
        for tests in COVERED_BY.values()
        for test in tests
        if not (ROOT / test).is_file() or not Path(test).name.startswith("test_")
    ]
    assert stale == [] and absent == [], (stale, absent)


def test_no_map_line_is_needed_where_the_module_has_its_own_test() -> None:
    redundant = [name for name in COVERED_BY if _own_tests(Path(name))]
    assert redundant == []


def test_every_mirrored_test_is_named_after_a_module_that_exists() -> None:
    # A test named after a module that is not there sends the reader looking
    # for code that does not exist.
    stray = []
    for top in SOURCES:
        for test in sorted((TESTS / top).rglob("test_*.py")):
            place = test.parent.relative_to(TESTS) / test.stem.removeprefix("test_")
            if not (
                (ROOT / place).with_suffix(".py").is_file()
                or (ROOT / place / "__init__.py").is_file()
            ):
                stray.append(str(test.relative_to(ROOT)))
    assert stray == []
