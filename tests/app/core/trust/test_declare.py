"""The present check: every failure reason, atomicity, metadata only."""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path

import pytest

from app.core.trust import declare as declare_module
from app.core.trust.declare import DeclarationError, declare
from app.core.trust.policy import PermissionMode, Policy, Rule, builtin_rules


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "report").mkdir(parents=True)
    (root / "report" / "index.html").write_text("<h1>hi</h1>")
    (root / "notes.md").write_text("# notes")
    (root / "data.csv").write_text("a,b\n1,2\n")
    return root


@pytest.fixture
def policy(tmp_path: Path) -> Policy:
    return Policy(builtin_rules(), home=str(tmp_path / "home"))


def run(workspace: Path, policy: Policy, *files: dict[str, object], **kw: object):
    mode = kw.get("mode", PermissionMode.WORKSPACE_ONLY)
    return declare(
        {"files": list(files)}, workspace=workspace, mode=mode, policy=policy
    )


def entry(path: str, description: str = "a file") -> dict[str, object]:
    return {"path": path, "description": description}


def failure_reasons(error: DeclarationError) -> dict[str, str]:
    return {f.path: f.reason for f in error.failures}


def test_valid_declaration_records_metadata_of_every_file(workspace, policy):
    record = run(workspace, policy, entry("report/index.html"), entry("notes.md"))
    assert record.version == 1
    assert record.workspace == os.path.realpath(workspace)
    html = record.files[0]
    status = os.stat(workspace / "report" / "index.html")
    assert html.path == "report/index.html"
    assert html.resolved == os.path.realpath(workspace / "report" / "index.html")
    assert (html.size, html.mtime_ns) == (status.st_size, status.st_mtime_ns)
    assert (html.device, html.inode) == (status.st_dev, status.st_ino)
    assert html.scope == "workspace"
    assert html.kind == "html"
    assert record.files[1].kind == "markdown"


def test_absolute_path_inside_workspace_is_workspace_scope(workspace, policy):
    record = run(workspace, policy, entry(str(workspace / "notes.md")))
    assert record.files[0].scope == "workspace"


def test_missing_file_fails_whole_call_and_names_every_failure(workspace, policy):
    with pytest.raises(DeclarationError) as caught:
        run(
            workspace,
            policy,
            entry("notes.md"),
            entry("report/indx.html"),
            entry("nope.txt"),
        )
    assert failure_reasons(caught.value) == {
        "report/indx.html": "missing",
        "nope.txt": "missing",
    }
    assert "report/indx.html" in str(caught.value)
    assert "nope.txt" in str(caught.value)


def test_directory_is_refused(workspace, policy):
    with pytest.raises(DeclarationError) as caught:
        run(workspace, policy, entry("report"), entry("report/"))
    assert set(failure_reasons(caught.value).values()) == {"directory"}


def test_final_symlink_is_refused_even_to_a_good_file(workspace, policy):
    (workspace / "link.md").symlink_to(workspace / "notes.md")
    with pytest.raises(DeclarationError) as caught:
        run(workspace, policy, entry("link.md"))
    assert failure_reasons(caught.value) == {"link.md": "symlink"}


def test_symlinked_parent_is_resolved_and_judged_on_real_place(
    workspace, policy, tmp_path
):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("x")
    (workspace / "escape").symlink_to(outside)
    with pytest.raises(DeclarationError) as caught:
        run(workspace, policy, entry("escape/secret.txt"))
    assert failure_reasons(caught.value) == {"escape/secret.txt": "forbidden"}
    record = run(
        workspace,
        policy,
        entry("escape/secret.txt"),
        mode=PermissionMode.ALLOW_EXTERNAL,
    )
    assert record.files[0].scope == "external"
    assert record.files[0].resolved == os.path.realpath(outside / "secret.txt")


def test_symlinked_folder_inside_workspace_stays_workspace_scope(workspace, policy):
    (workspace / "alias").symlink_to(workspace / "report")
    record = run(workspace, policy, entry("alias/index.html"))
    assert record.files[0].scope == "workspace"
    assert record.files[0].resolved.endswith("report/index.html")


def test_external_file_needs_allow_external_mode(workspace, policy, tmp_path):
    other = tmp_path / "elsewhere.txt"
    other.write_text("x")
    with pytest.raises(DeclarationError) as caught:
        run(workspace, policy, entry(str(other)))
    assert failure_reasons(caught.value) == {str(other): "forbidden"}
    record = run(
        workspace, policy, entry(str(other)), mode=PermissionMode.ALLOW_EXTERNAL
    )
    assert record.files[0].scope == "external"


def test_read_deny_policy_names_the_rule(workspace, policy):
    (workspace / ".env").write_text("TOKEN=1")
    (workspace / "id_rsa").write_text("key")
    (workspace / "server.pem").write_text("pem")
    with pytest.raises(DeclarationError) as caught:
        run(workspace, policy, entry(".env"), entry("id_rsa"), entry("server.pem"))
    assert set(failure_reasons(caught.value).values()) == {"forbidden"}
    details = " ".join(f.detail for f in caught.value.failures)
    assert ".env (built-in)" in details
    assert "id_rsa* (built-in)" in details


def test_denied_path_reports_forbidden_before_missing(workspace, policy):
    with pytest.raises(DeclarationError) as caught:
        run(workspace, policy, entry(".env.production"))
    assert failure_reasons(caught.value) == {".env.production": "forbidden"}


def test_fifo_is_refused_at_once_without_opening(workspace, policy):
    os.mkfifo(workspace / "pipe.txt")
    result: list[BaseException] = []

    def attempt() -> None:
        try:
            run(workspace, policy, entry("pipe.txt"))
        except DeclarationError as error:
            result.append(error)

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    worker.join(timeout=5)
    assert not worker.is_alive(), "declaring a FIFO blocked"
    assert failure_reasons(result[0]) == {"pipe.txt": "not_regular"}  # type: ignore[arg-type]


def test_socket_is_not_regular(tmp_path, policy):
    # AF_UNIX paths are limited to about 100 bytes, so use a short folder.
    root = Path(os.path.realpath(tmp_path)) / "s"
    root.mkdir()
    with socket.socket(socket.AF_UNIX) as server:
        try:
            server.bind(str(root / "sock"))
        except OSError as error:
            pytest.skip(f"cannot bind a unix socket here: {error}")
        with pytest.raises(DeclarationError) as caught:
            run(root, policy, entry("sock"))
    assert failure_reasons(caught.value) == {"sock": "not_regular"}


def test_device_is_not_regular(workspace, tmp_path):
    # Without the built-in /dev/ rule (a user may remove it) a device is still
    # refused, for what it is.
    rules = [rule for rule in builtin_rules() if rule.pattern != "/dev/"]
    policy = Policy(rules, home=str(tmp_path / "home"))
    with pytest.raises(DeclarationError) as caught:
        run(workspace, policy, entry("/dev/null"), mode=PermissionMode.ALLOW_EXTERNAL)
    assert failure_reasons(caught.value) == {"/dev/null": "not_regular"}


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read every file")
def test_unreadable_file_is_refused(workspace, policy):
    locked = workspace / "locked.txt"
    locked.write_text("x")
    locked.chmod(0)
    try:
        with pytest.raises(DeclarationError) as caught:
            run(workspace, policy, entry("locked.txt"))
    finally:
        locked.chmod(0o600)
    assert failure_reasons(caught.value) == {"locked.txt": "unreadable"}


def test_two_names_for_one_file_are_a_duplicate(workspace, policy):
    os.link(workspace / "notes.md", workspace / "hardlink.md")
    with pytest.raises(DeclarationError) as caught:
        run(
            workspace,
            policy,
            entry("notes.md"),
            entry("./notes.md"),
            entry("hardlink.md"),
        )
    assert failure_reasons(caught.value) == {
        "./notes.md": "duplicate",
        "hardlink.md": "duplicate",
    }


@pytest.mark.parametrize(
    ("item", "why"),
    [
        (entry(""), "empty"),
        (entry("a\0b"), "NUL"),
        (entry("notes.md", ""), "non-empty"),
        (entry("notes.md", "   "), "non-empty"),
        (entry("notes.md", "x" * 501), "500"),
        ({"path": "notes.md"}, "non-empty"),
        ({"path": 3, "description": "x"}, "empty"),
        ("notes.md", "object"),
        ({"path": "notes.md", "description": "x", "extra": 1}, "unexpected"),
    ],
)
def test_malformed_entries_are_invalid(workspace, policy, item, why):
    with pytest.raises(DeclarationError) as caught:
        declare(
            {"files": [item]},
            workspace=workspace,
            mode=PermissionMode.WORKSPACE_ONLY,
            policy=policy,
        )
    (failure,) = caught.value.failures
    assert failure.reason == "invalid"
    assert why in failure.detail


def test_description_of_exactly_500_characters_is_accepted(workspace, policy):
    record = run(workspace, policy, entry("notes.md", "d" * 500))
    assert record.files[0].description == "d" * 500


@pytest.mark.parametrize(
    ("arguments", "reason"),
    [
        ({"files": []}, "empty"),
        ({"files": [entry(f"f{i}") for i in range(9)]}, "too_many"),
        ({}, "invalid"),
        ([], "invalid"),
        ({"files": "notes.md"}, "invalid"),
    ],
)
def test_call_level_failures(workspace, policy, arguments, reason):
    with pytest.raises(DeclarationError) as caught:
        declare(
            arguments,
            workspace=workspace,
            mode=PermissionMode.WORKSPACE_ONLY,
            policy=policy,
        )
    assert caught.value.reason == reason
    assert caught.value.to_dict()["entries"] == []


def test_eight_files_are_accepted(workspace, policy):
    for i in range(8):
        (workspace / f"f{i}.txt").write_text(str(i))
    record = run(workspace, policy, *(entry(f"f{i}.txt") for i in range(8)))
    assert len(record.files) == 8


def test_declaration_opens_and_reads_no_file(workspace, policy, monkeypatch):
    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"a file was opened: {args}")

    monkeypatch.setattr(os, "open", forbidden)
    monkeypatch.setattr("builtins.open", forbidden)
    monkeypatch.setattr(os, "read", forbidden)
    record = run(workspace, policy, entry("report/index.html"), entry("data.csv"))
    assert len(record.files) == 2


def test_custom_rule_applies_to_resolved_path(workspace, tmp_path):
    policy = Policy([Rule("**/report/**", "test")], home=str(tmp_path))
    with pytest.raises(DeclarationError) as caught:
        run(workspace, policy, entry("report/index.html"))
    assert "**/report/** (test)" in caught.value.failures[0].detail


def test_module_exposes_every_reason_name():
    reasons = {
        declare_module.MISSING,
        declare_module.FORBIDDEN,
        declare_module.DIRECTORY,
        declare_module.SYMLINK,
        declare_module.NOT_REGULAR,
        declare_module.UNREADABLE,
        declare_module.DUPLICATE,
        declare_module.INVALID,
        declare_module.EMPTY,
        declare_module.TOO_MANY,
    }
    assert len(reasons) == 10
