"""A hostile agent turns its own tools against the user; every attempt must fail.

The tools run for real (``make_tools``), with the real policy files in a
private home and the real store, and the attacks have their real shape: a
second process racing the tools, a policy file written by the agent, a home
folder reached through a link.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool

from app.agent.tools import AgentSession, PermissionSetting, make_tools
from app.core.store import Store
from app.core.trust.policy import PermissionMode, current_policy
from app.workspace.choose import local_workspace

PRIVATE_KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private home with the app's folders where the platform puts them."""
    home = tmp_path / "home" / "ada"
    for folder in (".config", ".local/share", ".cache", ".ssh", ".aws"):
        (home / folder).mkdir(parents=True)
    (home / ".run").mkdir(mode=0o700)
    (home / ".ssh" / "id_rsa").write_text(PRIVATE_KEY)
    (home / ".aws" / "credentials").write_text("aws_secret_access_key = SECRET\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local/share"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(home / ".run"))
    return home


def tools_for(workspace: Path, mode: PermissionMode = PermissionMode.WORKSPACE_ONLY):
    session = AgentSession(
        workspace=local_workspace(workspace), permission=PermissionSetting(mode)
    )
    tools: dict[str, BaseTool] = {t.name: t for t in make_tools(session)}

    def call(name: str, **args: Any) -> ToolMessage:
        result = tools[name].invoke(
            {"type": "tool_call", "id": f"call-{name}", "name": name, "args": args}
        )
        assert isinstance(result, ToolMessage)
        return result

    return call


# -- 1. the agent rewrites the user's policy -----------------------------------------


@pytest.mark.parametrize("where", ["home", "config folder"])
def test_agent_cannot_rewrite_the_user_policy_to_read_a_private_key(
    home: Path, where: str
) -> None:
    policy_file = home / ".config" / "deliverables" / "policy.toml"
    policy_file.parent.mkdir()
    policy_file.write_text('[deny]\nadd = ["*.sqlite"]\n')
    workspace = home if where == "home" else policy_file.parent
    relative = os.path.relpath(policy_file, workspace)
    call = tools_for(workspace)

    written = call(
        "write_file",
        path=relative,
        content='[deny]\nremove = ["~/.ssh/", "id_rsa*"]\n',
    )
    stolen = call("read_file", path=os.path.relpath(home / ".ssh/id_rsa", workspace))

    assert written.status == "error"
    assert "the app's own files" in str(written.content)
    assert policy_file.read_text() == '[deny]\nadd = ["*.sqlite"]\n'
    assert stolen.status == "error"
    assert "secret" not in str(stolen.content)


def test_user_policy_cannot_remove_the_rules_that_protect_the_app(home: Path) -> None:
    policy_file = home / ".config" / "deliverables" / "policy.toml"
    policy_file.parent.mkdir()
    policy_file.write_text(
        '[deny]\nremove = ["~/.config/deliverables/", ".deliverables-policy.toml"]\n'
    )

    written = tools_for(home)(
        "write_file", path=".config/deliverables/policy.toml", content=""
    )

    assert written.status == "error"
    assert policy_file.read_text().startswith("[deny]")


def test_agent_cannot_write_or_read_the_store_or_its_key(
    home: Path, tmp_path: Path
) -> None:
    default = home / ".local/share/deliverables"
    chosen = home / "work" / "data"  # a --data-dir inside the workspace
    for data_dir in (default, chosen):
        Store(data_dir).close()
    key_before = (chosen / "record.key").read_bytes()
    call = tools_for(home)

    attempts = [
        call("write_file", path=".local/share/deliverables/record.key", content="k"),
        call("write_file", path="work/data/record.key", content="k"),
        call("write_file", path="work/data/deliverables.sqlite3", content="x"),
        call("write_file", path="work/data/settings.ini", content="[x]"),
        call("read_file", path="work/data/record.key"),
        call("write_file", path=".deliverables-policy.toml", content="[deny]"),
    ]

    assert [attempt.status for attempt in attempts] == ["error"] * len(attempts)
    assert (chosen / "record.key").read_bytes() == key_before
    assert not (home / ".deliverables-policy.toml").exists()


# -- 2. a folder swapped for a symlink between check and open -------------------------

FLIPPER = textwrap.dedent(
    """
    import ctypes, os, sys
    folder, outside, stop = sys.argv[1], sys.argv[2], sys.argv[3]
    link = folder + ".link"
    os.symlink(outside, link)
    libc = ctypes.CDLL(None, use_errno=True)
    AT_FDCWD, RENAME_EXCHANGE = -100, 2
    a, b = os.fsencode(folder), os.fsencode(link)
    # Swap the real folder and the link atomically: "dir" always exists, as
    # one or the other, so every call of the tools meets the race.
    while not os.path.exists(stop):
        if libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) != 0:
            raise OSError(ctypes.get_errno(), "renameat2")
    """
)


@pytest.fixture
def flipping(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """``ws/dir`` flipping between a real folder and a link to ``outside``."""
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    (workspace / "dir").mkdir(parents=True)
    outside.mkdir()
    (workspace / "dir" / "notes.txt").write_text("harmless")
    (workspace / "dir" / "victim.txt").write_text("inside")
    (outside / "notes.txt").write_text("CANARY aws_secret_access_key")
    (outside / "victim.txt").write_text("untouched")
    stop = tmp_path / "stop"
    process = subprocess.Popen(
        [sys.executable, "-c", FLIPPER, str(workspace / "dir"), str(outside), str(stop)]
    )
    try:
        yield workspace, outside
    finally:
        stop.touch()
        assert process.wait(timeout=30) == 0, "the racing process failed"


def test_read_file_never_follows_a_folder_swapped_out_of_the_workspace(
    flipping: tuple[Path, Path],
) -> None:
    workspace, _outside = flipping
    call = tools_for(workspace)

    answers = [str(call("read_file", path="dir/notes.txt").content) for _ in range(700)]

    assert not [answer for answer in answers if "CANARY" in answer]
    assert any(answer == "harmless" for answer in answers)  # the race really ran


def test_write_file_never_writes_through_a_folder_swapped_out_of_the_workspace(
    flipping: tuple[Path, Path],
) -> None:
    workspace, outside = flipping
    call = tools_for(workspace)

    results = [
        call("write_file", path="dir/victim.txt", content=f"written {n}").status
        for n in range(700)
    ]

    assert (outside / "victim.txt").read_text() == "untouched"
    assert sorted(os.listdir(outside)) == ["notes.txt", "victim.txt"]
    assert "success" in results


def test_list_files_never_lists_a_folder_swapped_out_of_the_workspace(
    flipping: tuple[Path, Path],
) -> None:
    workspace, outside = flipping
    (outside / "only-outside.txt").write_text("x")
    call = tools_for(workspace)

    listings = [str(call("list_files", path="dir").content) for _ in range(300)]

    assert not [text for text in listings if "only-outside" in text]


def test_links_that_stay_inside_the_workspace_still_work(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / "real" / "deep").mkdir(parents=True)
    (workspace / "real" / "deep" / "a.txt").write_text("alpha")
    os.symlink("real/deep", workspace / "short")
    os.symlink("../real/deep/a.txt", workspace / "real" / "alias.txt")
    call = tools_for(workspace)

    assert call("read_file", path="short/a.txt").content == "alpha"
    assert call("read_file", path="real/alias.txt").content == "alpha"
    assert call("write_file", path="short/b.txt", content="beta").status == "success"
    assert (workspace / "real" / "deep" / "b.txt").read_text() == "beta"


# -- 3. a workspace policy file written to freeze or crash every check ----------------


def _finishes(work: Callable[[], object], seconds: float = 60) -> object:
    """Run ``work`` on a thread; fail if it is still running after ``seconds``."""
    box: dict[str, object] = {}
    thread = threading.Thread(target=lambda: box.update(result=work()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "the check never finished"
    return box["result"]


def test_a_backtracking_glob_in_the_workspace_policy_cannot_freeze_checks(
    home: Path, tmp_path: Path
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    # Translated to a backtracking regex, each of these takes far longer than
    # the age of the universe on a 250-letter name.
    nasty = ["*a" * 24 + "b", "**/" + "*a" * 20 + "b/", "/**a**a**a**b"]
    rules = ", ".join(f'"{rule}"' for rule in nasty)
    (workspace / ".deliverables-policy.toml").write_text(f"[deny]\nadd = [{rules}]\n")
    name = "a" * 250
    (workspace / name).write_text("hello")
    call = tools_for(workspace)

    presented = _finishes(
        lambda: call("present", files=[{"path": name, "description": "d"}])
    )
    listed = _finishes(lambda: call("list_files"))
    read = _finishes(lambda: call("read_file", path=name))

    assert isinstance(presented, ToolMessage) and presented.status == "success"
    assert isinstance(listed, ToolMessage) and name in str(listed.content)
    assert isinstance(read, ToolMessage) and read.content == "hello"


def test_an_invalid_range_in_the_workspace_policy_does_not_escape_the_checks(
    home: Path, tmp_path: Path
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / ".deliverables-policy.toml").write_text('[deny]\nadd = ["[z-a]*"]\n')
    (workspace / "zebra.txt").write_text("z")

    result = tools_for(workspace)(
        "present", files=[{"path": "zebra.txt", "description": "d"}]
    )

    assert result.status == "success"


def test_a_workspace_policy_past_its_bounds_denies_everything_and_says_why(
    home: Path, tmp_path: Path
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    rules = ", ".join(f'"rule{n}"' for n in range(300))
    (workspace / ".deliverables-policy.toml").write_text(f"[deny]\nadd = [{rules}]\n")
    (workspace / "notes.md").write_text("# notes")

    read = tools_for(workspace)("read_file", path="notes.md")
    policy = current_policy(workspace)

    assert read.status == "error"
    assert "at most 256" in str(read.content)
    assert policy.problem is not None and "at most 256" in policy.problem
    assert policy.denying_rule(str(workspace / "notes.md")) is not None


def test_any_failure_while_loading_the_policy_denies_everything(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_args: object, **_kwargs: object) -> None:
        raise KeyError("an unforeseen failure")

    monkeypatch.setattr("app.core.trust.policy.protected_globs", broken)

    policy = current_policy(tmp_path)

    assert policy.problem is not None and "unforeseen" in policy.problem
    assert policy.denying_rule(str(tmp_path / "anything.txt")) is not None


# -- 4. /proc and other live system files ---------------------------------------------


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux /proc")
def test_the_agent_cannot_present_the_apps_own_environment(
    home: Path, tmp_path: Path
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    os.symlink("/proc/self", workspace / "me")
    call = tools_for(workspace, PermissionMode.ALLOW_EXTERNAL)

    direct = call("present", files=[{"path": "/proc/self/environ", "description": "d"}])
    by_pid = call(
        "present", files=[{"path": f"/proc/{os.getpid()}/environ", "description": "d"}]
    )
    through_link = call("present", files=[{"path": "me/environ", "description": "d"}])

    for result in (direct, by_pid, through_link):
        assert result.status == "error"
        assert "forbidden" in str(result.content)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux /proc")
def test_live_system_files_are_refused_even_when_the_user_removes_the_path_rules(
    home: Path, tmp_path: Path
) -> None:
    policy_file = home / ".config" / "deliverables" / "policy.toml"
    policy_file.parent.mkdir()
    policy_file.write_text('[deny]\nremove = ["/proc/", "/sys/", "/dev/"]\n')
    workspace = tmp_path / "ws"
    workspace.mkdir()
    call = tools_for(workspace, PermissionMode.ALLOW_EXTERNAL)

    result = call("present", files=[{"path": "/proc/self/environ", "description": "d"}])

    assert result.status == "error"
    assert "not_regular" in str(result.content)
    assert "proc file system" in str(result.content)


# -- 5. a home reached through a symlink -----------------------------------------------


def test_home_rules_hold_when_home_is_reached_through_a_symlink(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_home = tmp_path / "var" / "home" / "ada"
    (real_home / ".aws").mkdir(parents=True)
    (real_home / ".ssh").mkdir()
    (real_home / ".aws" / "credentials").write_text("aws_secret_access_key = S\n")
    (real_home / ".ssh" / "config").write_text("Host *\n")
    os.symlink(tmp_path / "var" / "home", tmp_path / "home")  # /home -> /var/home
    written_home = tmp_path / "home" / "ada"
    monkeypatch.setenv("HOME", str(written_home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(written_home / ".config"))
    call = tools_for(written_home)

    read = call("read_file", path=".aws/credentials")
    presented = call("present", files=[{"path": ".ssh/config", "description": "d"}])

    assert read.status == "error"
    assert "~/.aws/" in str(read.content)
    assert presented.status == "error"
    assert "forbidden" in str(presented.content)


# -- 13. secret names in another case ---------------------------------------------


@pytest.mark.parametrize("name", ["SERVER.KEY", "cert.PEM", ".ENV", "ID_RSA"])
def test_secret_names_in_capitals_are_refused(
    home: Path, tmp_path: Path, name: str
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / name).write_text("secret")
    call = tools_for(workspace)

    presented = call("present", files=[{"path": name, "description": "d"}])
    read = call("read_file", path=name)

    assert presented.status == "error" and "forbidden" in str(presented.content)
    assert read.status == "error"
    assert name not in str(call("list_files").content)


# -- 6. the External files node and the permission mode -------------------------------


def test_external_files_node_obeys_workspace_only_mode(qtbot, tmp_path: Path) -> None:
    from PySide6.QtCore import Qt

    from app.core.trust.policy import Policy, builtin_rules
    from app.core.trust.records import FileEntry
    from app.ui.workspace.widget import WorkspaceWidget

    workspace, outside = tmp_path / "ws", tmp_path / "elsewhere"
    workspace.mkdir()
    outside.mkdir()
    report = outside / "report.md"
    report.write_text("# outside")
    status = report.stat()
    entry = FileEntry(
        str(report), str(report), "d", "external", status.st_size,
        status.st_mtime_ns, status.st_dev, status.st_ino, "markdown",
    )  # fmt: skip
    mode = [PermissionMode.ALLOW_EXTERNAL]
    policy = Policy(builtin_rules(), home=str(tmp_path / "home"))
    widget = WorkspaceWidget(lambda: policy, mode_provider=lambda: mode[0])
    qtbot.addWidget(widget)
    widget.resize(800, 600)
    widget.show()
    qtbot.waitExposed(widget)
    notices: list[str] = []
    widget.notice.connect(notices.append)
    widget.set_root(workspace)
    widget.set_external_entries([entry])
    tree = widget.tree
    heading = tree.model().external_item  # type: ignore[attr-defined]
    tree.expand(heading.index())
    row = heading.child(0).index()

    def double_click() -> None:
        # The workspace root lists itself in the background; let it settle
        # so the row does not move under the pointer.
        qtbot.waitUntil(lambda: tree.visualRect(row).isValid())
        tree.scrollTo(row)
        point = tree.visualRect(row).center()
        qtbot.mouseClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=point)
        qtbot.mouseDClick(tree.viewport(), Qt.MouseButton.LeftButton, pos=point)

    double_click()
    assert widget.tab_count() == 1
    widget.close_current()
    mode[0] = PermissionMode.WORKSPACE_ONLY
    double_click()

    assert widget.tab_count() == 0
    assert "workspace-only" in notices[-1]
