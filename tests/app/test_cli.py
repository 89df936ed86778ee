"""`deliverables validate` runs the present check from the command line."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from app import cli
from tests.data.real_pdfs import PDF_DIR


def validate(
    workspace: Path, files: object, *extra: str, home: Path | None = None
) -> tuple[int, dict]:
    env = dict(os.environ)
    if home is not None:
        env["HOME"] = str(home)
        env["XDG_CONFIG_HOME"] = str(home / ".config")
    arguments = json.dumps(files if isinstance(files, dict) else {"files": files})
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "app",
            "validate",
            "--workspace",
            str(workspace),
            "--args",
            arguments,
            *extra,
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    return result.returncode, json.loads(result.stdout)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "report.html").write_text("<p>hi</p>")
    (root / "folder").mkdir()
    (root / ".env").write_text("SECRET=1")
    (root / "link.html").symlink_to(root / "report.html")
    os.mkfifo(root / "pipe")
    return root


def test_success_prints_the_record_and_writes_nothing(workspace, tmp_path):
    before = sorted(p.name for p in workspace.iterdir())
    code, out = validate(
        workspace,
        [{"path": "report.html", "description": "the report"}],
        home=tmp_path / "home",
    )
    assert code == 0
    assert out["version"] == 1
    assert out["files"][0]["kind"] == "html"
    assert out["files"][0]["resolved"] == str((workspace / "report.html").resolve())
    assert sorted(p.name for p in workspace.iterdir()) == before
    assert not (tmp_path / "home").exists()


def test_failure_lists_every_entry_with_its_reason(workspace, tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("x")
    files = [
        {"path": "report.html", "description": "ok"},
        {"path": "missing.html", "description": "d"},
        {"path": ".env", "description": "d"},
        {"path": "folder", "description": "d"},
        {"path": "link.html", "description": "d"},
        {"path": "pipe", "description": "d"},
        {"path": "./report.html", "description": "d"},
        {"path": "", "description": "d"},
    ]
    code, out = validate(workspace, files, home=tmp_path / "home")
    assert code == 1
    assert [(e["path"], e["reason"]) for e in out["entries"]] == [
        ("missing.html", "missing"),
        (".env", "forbidden"),
        ("folder", "directory"),
        ("link.html", "symlink"),
        ("pipe", "not_regular"),
        ("./report.html", "duplicate"),
        ("", "invalid"),
    ]
    assert "error" in out


@pytest.mark.parametrize(
    ("files", "reason"),
    [
        ([], "empty"),
        ([{"path": f"{i}", "description": "d"} for i in range(9)], "too_many"),
        ({"nofiles": 1}, "invalid"),
    ],
)
def test_call_level_failures(workspace, tmp_path, files, reason):
    code, out = validate(workspace, files, home=tmp_path / "home")
    assert code == 1
    assert out["reason"] == reason
    assert out["entries"] == []


def test_mode_and_policy_file_are_honoured(workspace, tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("x")
    entry = [{"path": str(outside), "description": "d"}]
    code, _ = validate(workspace, entry, home=tmp_path / "home")
    assert code == 1
    code, out = validate(
        workspace, entry, "--mode", "allow-external", home=tmp_path / "home"
    )
    assert code == 0
    assert out["files"][0]["scope"] == "external"
    policy = tmp_path / "policy.toml"
    policy.write_text('[deny]\nadd = ["outside.*"]\n')
    code, out = validate(
        workspace,
        entry,
        "--mode",
        "allow-external",
        "--policy",
        str(policy),
        home=tmp_path / "home",
    )
    assert code == 1
    assert out["entries"][0]["reason"] == "forbidden"
    assert "outside.*" in out["entries"][0]["detail"]


def test_arguments_that_are_not_json_fail_cleanly(workspace, tmp_path):
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "app",
            "validate",
            "--workspace",
            str(workspace),
            "--args",
            "{not json",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1
    assert json.loads(result.stdout)["reason"] == "invalid"


def test_a_store_that_cannot_be_opened_is_explained_not_a_traceback(tmp_path, capsys):
    from app.cli import main

    data = tmp_path / "data"
    data.mkdir()
    (tmp_path / "planted.key").write_bytes(b"k" * 32)
    (data / "record.key").symlink_to(tmp_path / "planted.key")

    code = main(["open", "--data-dir", str(data)])

    assert code == 2
    error = capsys.readouterr().err
    assert error.startswith("deliverables: ")
    assert "record.key" in error


# -- view with no file: the desktop entry runs "deliverables view %F" -----------
def test_view_with_no_file_opens_the_window_on_the_conversations(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    opened: list[argparse.Namespace] = []

    def fake_open(args: argparse.Namespace) -> int:
        opened.append(args)
        return 0

    monkeypatch.setattr(cli, "_open", fake_open)
    assert cli.main(["view"]) == 0
    (args,) = opened
    assert args.conversation is None
    assert args.paths == []


def test_view_still_takes_files() -> None:
    args = cli.build_parser().parse_args(["view", "a.txt", "b.md"])
    assert args.paths == ["a.txt", "b.md"]


def run_cli(*args: str, timeout: int = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        check=False,
    )


def test_version_prints_the_version_and_exits_zero() -> None:
    result = run_cli("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"deliverables {cli.app_version()}"
    assert cli.app_version()[0].isdigit()


def test_view_of_a_refused_file_says_why_on_stderr_and_exits_one(
    workspace: Path, tmp_path: Path
) -> None:
    png = tmp_path / "env.png"
    result = run_cli(
        "view",
        str(workspace / ".env"),
        "--data-dir",
        str(tmp_path / "data"),
        "--screenshot",
        str(png),
    )
    assert result.returncode == 1
    assert "Cannot open .env: denied by read-deny rule" in result.stderr
    assert png.exists()


def test_view_of_one_good_and_one_missing_file_says_why_and_exits_one(
    workspace: Path, tmp_path: Path
) -> None:
    result = run_cli(
        "view",
        str(workspace / "report.html"),
        str(workspace / "nowhere.txt"),
        "--data-dir",
        str(tmp_path / "data"),
        "--screenshot",
        str(tmp_path / "two.png"),
    )
    assert result.returncode == 1, result.stderr
    assert "Cannot open nowhere.txt" in result.stderr
    assert (tmp_path / "two.png").exists()  # the good file was shown


def _view_shot(tmp_path: Path, *paths: Path) -> subprocess.CompletedProcess[str]:
    return run_cli(
        "view",
        *map(str, paths),
        "--data-dir",
        str(tmp_path / "data"),
        "--screenshot",
        str(tmp_path / "view.png"),
    )


def _damaged_pdf(folder: Path) -> Path:
    path = folder / "spec.pdf"
    path.write_bytes(b"%PDF-1.7\n" + b"\x00garbage" * 200)
    return path


def _good_csv(folder: Path) -> Path:
    path = folder / "ok.csv"
    path.write_text("name,count\nalpha,1\nbeta,2\n")
    return path


def test_view_of_a_damaged_pdf_says_why_and_exits_one(
    workspace: Path, tmp_path: Path
) -> None:
    result = _view_shot(tmp_path, _damaged_pdf(workspace))
    assert result.returncode == 1, result.stderr
    assert "deliverables: Could not load spec.pdf: the PDF is damaged" in result.stderr


def test_a_damaged_pdf_in_a_tab_behind_the_front_one_exits_one(
    workspace: Path, tmp_path: Path
) -> None:
    result = _view_shot(tmp_path, _damaged_pdf(workspace), _good_csv(workspace))
    assert result.returncode == 1, result.stderr
    assert "Could not load spec.pdf" in result.stderr
    assert "ok.csv" not in result.stderr


def test_view_of_a_good_file_and_a_refused_one_exits_one(
    workspace: Path, tmp_path: Path
) -> None:
    result = _view_shot(tmp_path, _good_csv(workspace), workspace / ".env")
    assert result.returncode == 1, result.stderr
    assert "Cannot open .env: denied by read-deny rule" in result.stderr


def test_view_of_files_that_all_show_exits_zero_and_says_nothing(
    workspace: Path, tmp_path: Path
) -> None:
    pdf = workspace / "manual.pdf"
    pdf.write_bytes((PDF_DIR / "pdftex-hyperref.pdf").read_bytes())
    result = _view_shot(tmp_path, _good_csv(workspace), pdf)
    assert result.returncode == 0, result.stderr
    assert "deliverables:" not in result.stderr


def test_view_refusing_every_file_exits_one_at_once_without_a_window(
    workspace: Path, tmp_path: Path
) -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "no-such-platform"}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "app",
            "view",
            str(workspace / ".env"),
            str(workspace / "nowhere.txt"),
            "--data-dir",
            str(tmp_path / "data"),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    # A window would need the platform plugin, which does not exist.
    assert result.returncode == 1, result.stderr
    assert result.stderr.splitlines() == [
        "deliverables: Cannot open .env: denied by read-deny rule .env (built-in).",
        "deliverables: Cannot open nowhere.txt: the file no longer exists.",
    ]


def test_a_screenshot_that_cannot_be_written_exits_non_zero_with_the_reason(
    workspace: Path, tmp_path: Path
) -> None:
    result = run_cli(
        "view",
        str(workspace / "report.html"),
        "--data-dir",
        str(tmp_path / "data"),
        "--screenshot",
        str(tmp_path / "no-such-folder" / "shot.png"),
    )
    assert result.returncode == 2
    assert "cannot save the screenshot" in result.stderr
    assert "No such file or directory" in result.stderr


def test_the_refusals_a_viewer_would_give(workspace: Path) -> None:
    refusals = cli.view_refusals(
        [str(workspace / "report.html"), str(workspace / ".env")], workspace
    )
    assert len(refusals) == 1
    assert refusals[0].startswith("Cannot open .env: denied")


def test_the_command_starts_without_modules_only_some_commands_need() -> None:
    # The present check is for "validate" only; the package metadata for
    # "--version" only: a window's start reads neither.
    probe = (
        "import sys; from app import cli; cli.build_parser().parse_args(['demo']);"
        "print(sorted(m for m in ('app.core.trust.declare', 'importlib.metadata')"
        " if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert result.stdout.strip() == "[]"


def test_a_first_paint_screenshot_shows_the_conversation_and_when_it_was_painted(
    tmp_path: Path,
) -> None:
    import time

    from PySide6.QtGui import QImage

    from app.ui.window.screenshot import FIRST_PAINT_KEY

    data = tmp_path / "data"
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from pathlib import Path; from app.core.store import Store;"
            "from app.demo.conversation import play_demo;"
            "d = Path(sys.argv[1]); play_demo(Store(d), d / 'demo-workspace')",
            str(data),
        ],
        check=True,
        timeout=120,
    )
    png = tmp_path / "first.png"
    started = time.time_ns()
    result = run_cli(
        "open", "--data-dir", str(data), "--screenshot", str(png), "--first-paint"
    )
    assert result.returncode == 0, result.stderr
    image = QImage(str(png))
    assert (image.width(), image.height()) == (1440, 900)
    painted = int(image.text(FIRST_PAINT_KEY))
    assert started < painted < time.time_ns()


# -- help ------------------------------------------------------------------------
def test_bare_command_shows_the_help_and_the_demo_hint_and_exits_zero() -> None:
    result = run_cli()
    assert result.returncode == 0, result.stderr
    assert "the following arguments are required" not in result.stderr
    assert result.stdout.startswith("usage: deliverables")
    assert "deliverables demo" in result.stdout.splitlines()[-1]
    for command in ("demo", "open", "view", "chat", "mcp", "validate", "import"):
        assert f"    {command} " in result.stdout


def _subcommand_help(command: str, capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as exit_:
        cli.build_parser().parse_args([command, "--help"])
    assert exit_.value.code == 0
    return capsys.readouterr().out


@pytest.mark.parametrize(
    "command", ["demo", "open", "view", "chat", "mcp", "validate", "import"]
)
def test_each_command_help_starts_with_what_it_does(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _subcommand_help(command, capsys)
    # The first paragraph after the usage lines is the description.
    description = text.split("\n\n")[1]
    assert not description.startswith(("options:", "positional arguments:"))
    assert description[0].isupper()


@pytest.mark.parametrize("command", ["chat", "mcp", "validate"])
def test_mode_has_help(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    text = " ".join(_subcommand_help(command, capsys).split())
    assert "--mode {workspace-only,allow-external} which files may be" in text


@pytest.mark.parametrize("command", ["chat", "mcp"])
def test_workspace_help_names_ssh(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    text = " ".join(_subcommand_help(command, capsys).split())
    assert "or ssh://[user@]host[:port]/absolute/path" in text


def test_view_whose_every_file_the_window_refuses_shows_no_window(
    qapp: Any, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PySide6.QtCore import QTimer

    from app.ui.window.main_window import MainWindow

    # The file is checked by the command, then gone before the window opens it.
    monkeypatch.setattr(cli, "view_refusals", lambda paths, root: [])
    shown: list[MainWindow] = []
    monkeypatch.setattr(MainWindow, "show", lambda window: shown.append(window))
    # Without the fix the loop would run until the user quits: quit it at once.
    quit_ = QTimer()
    quit_.setSingleShot(True)
    quit_.timeout.connect(qapp.quit)
    quit_.start(0)
    try:
        code = cli.main(
            ["view", str(workspace / "gone.txt"), "--data-dir", str(tmp_path / "d")]
        )
    finally:
        quit_.stop()

    assert code == 1
    assert shown == []
