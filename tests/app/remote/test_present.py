"""``present`` on a remote workspace: SFTP metadata only, all or nothing."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import pytest

from app.core.trust.declare import DeclarationError
from app.core.trust.policy import PermissionMode, Policy, load_policy
from app.core.trust.records import REMOTE_RECORD_VERSION, Record, parse_record
from app.remote.workspace import RemoteWorkspace
from tests.remote.fixtures import SshHome
from tests.remote.watch import OpenWatch

WORKSPACE_ONLY = PermissionMode.WORKSPACE_ONLY


def present(
    workspace: RemoteWorkspace,
    files: object,
    mode: PermissionMode = WORKSPACE_ONLY,
    policy: Policy | None = None,
) -> Record:
    arguments = files if isinstance(files, dict) else {"files": files}
    return workspace.present(arguments, mode=mode, policy=policy).result(30)


def failures(
    workspace: RemoteWorkspace, files: object, **kw: object
) -> DeclarationError:
    with pytest.raises(DeclarationError) as raised:
        present(workspace, files, **kw)  # type: ignore[arg-type]
    return raised.value


def entry(path: str, description: str = "d") -> dict[str, str]:
    return {"path": path, "description": description}


def test_a_remote_record_holds_the_coordinate_and_identity(
    workspace: RemoteWorkspace, remote_root: Path, ssh_home: SshHome
) -> None:
    record = present(workspace, [entry("report/index.html", "The report")])

    assert record.version == REMOTE_RECORD_VERSION
    assert record.workspace == workspace.address
    [file] = record.files
    status = os.lstat(remote_root / "report" / "index.html")
    assert file.scope == "remote"
    assert file.resolved == str(remote_root / "report" / "index.html")
    assert (file.size, file.mtime_ns) == (status.st_size, int(status.st_mtime) * 10**9)
    assert file.remote is not None
    assert (file.remote.user, file.remote.host, file.remote.port) == (
        ssh_home.server.user,
        "devbox",
        ssh_home.server.port,
    )
    assert file.remote.mode == status.st_mode
    assert file.kind == "html"
    assert parse_record(record.to_json()) == record


def test_every_failing_entry_is_named_with_its_reason_and_nothing_is_recorded(
    workspace: RemoteWorkspace, remote_root: Path
) -> None:
    (remote_root / "folder").mkdir()
    (remote_root / ".env").write_text("KEY=1")
    (remote_root / "link.md").symlink_to(remote_root / "notes.md")
    os.mkfifo(remote_root / "pipe")
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(remote_root / "sock"))
        error = failures(
            workspace,
            [
                entry("notes.md"),
                entry("missing.md"),
                entry(".env"),
                entry("folder"),
                entry("link.md"),
                entry("pipe"),
                entry("sock"),
                entry("./notes.md"),
            ],
        )
    assert [(e.index, e.path, e.reason) for e in error.failures] == [
        (1, "missing.md", "missing"),
        (2, ".env", "forbidden"),
        (3, "folder", "directory"),
        (4, "link.md", "symlink"),
        (5, "pipe", "not_regular"),
        (6, "sock", "not_regular"),
        (7, "./notes.md", "duplicate"),
    ]
    assert error.to_dict()["error"].startswith(
        "present failed, nothing was recorded. 7 of 8 entries failed: "
    )
    error = failures(
        workspace,
        [
            entry(""),
            {"path": "x.md"},
            entry("/etc/hostname"),
            entry("nowhere/deep/file.md"),
            entry("notes.md"),
        ],
    )
    assert [(e.path, e.reason) for e in error.failures] == [
        ("", "invalid"),
        ("x.md", "invalid"),
        ("/etc/hostname", "forbidden"),
        ("nowhere/deep/file.md", "missing"),
    ]
    assert "workspace-only" in error.failures[2].detail


@pytest.mark.parametrize(
    ("files", "reason"),
    [
        ([], "empty"),
        ([entry(f"{i}.md") for i in range(9)], "too_many"),
        ({"nofiles": 1}, "invalid"),
    ],
)
def test_call_level_failures_match_the_local_check(
    workspace: RemoteWorkspace, files: object, reason: str
) -> None:
    error = failures(workspace, files)
    assert error.reason == reason and error.failures == ()


def test_present_opens_and_reads_nothing(
    workspace: RemoteWorkspace, remote_root: Path
) -> None:
    # A FIFO would hang a server that opened it; every regular entry would
    # show an open to inotify.
    os.mkfifo(remote_root / "report" / "pipe")
    (remote_root / "report" / "data.csv").write_text("a,b\n")
    watch = OpenWatch(remote_root / "report")
    try:
        present(workspace, [entry("report/index.html"), entry("report/data.csv")])
        error = failures(workspace, [entry("report/pipe")])
        assert error.failures[0].reason == "not_regular"
        assert watch.opened() == set()
    finally:
        watch.close()


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file")
def test_a_file_the_session_cannot_read_is_unreadable(
    workspace: RemoteWorkspace, remote_root: Path
) -> None:
    secret = remote_root / "locked.md"
    secret.write_text("x")
    secret.chmod(0)
    error = failures(workspace, [entry("locked.md")])
    assert [(e.reason, e.detail) for e in error.failures] == [
        ("unreadable", "the session cannot read it")
    ]


def test_outside_the_workspace_depends_on_the_permission_mode(
    workspace: RemoteWorkspace, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("x")
    files = [entry(str(outside))]

    assert failures(workspace, files).failures[0].reason == "forbidden"
    record = present(workspace, files, mode=PermissionMode.ALLOW_EXTERNAL)
    assert record.files[0].scope == "remote"
    assert record.files[0].resolved == str(outside)


def test_a_symlinked_folder_is_resolved_by_the_server(
    workspace: RemoteWorkspace, remote_root: Path
) -> None:
    (remote_root / "alias").symlink_to(remote_root / "report")
    record = present(workspace, [entry("alias/index.html")])
    assert record.files[0].resolved == str(remote_root / "report" / "index.html")


def test_the_remote_home_is_the_tilde_of_the_rules(
    workspace: RemoteWorkspace, tmp_path: Path
) -> None:
    home = workspace.home.rstrip("/")
    local_home = os.environ["HOME"]
    # Decided before any lookup: nothing needs to exist at these paths.
    error = failures(
        workspace,
        [entry(f"{home}/.aws/credentials"), entry(f"{local_home}/.aws/credentials")],
        mode=PermissionMode.ALLOW_EXTERNAL,
    )
    assert [(e.reason, "~/.aws/" in e.detail) for e in error.failures] == [
        ("forbidden", True),
        ("missing", False),
    ]


def test_a_remote_env_file_is_denied_whatever_its_folder(
    workspace: RemoteWorkspace, remote_root: Path
) -> None:
    (remote_root / "config").mkdir()
    (remote_root / "config" / ".env.production").write_text("TOKEN=1")
    error = failures(workspace, [entry("config/.env.production")])
    assert error.failures[0].reason == "forbidden"
    assert ".env.* (built-in)" in error.failures[0].detail


def test_the_remote_workspace_policy_file_adds_rules(
    workspace: RemoteWorkspace, remote_root: Path
) -> None:
    (remote_root / ".deliverables-policy.toml").write_text('[deny]\nadd = ["*.md"]\n')
    error = failures(workspace, [entry("notes.md")])
    assert error.failures[0].reason == "forbidden"
    assert "ssh://" in error.failures[0].detail
    assert ".deliverables-policy.toml" in error.failures[0].detail


def test_a_given_policy_is_used_as_is(
    workspace: RemoteWorkspace, tmp_path: Path
) -> None:
    rules = tmp_path / "user.toml"
    rules.write_text('[deny]\nadd = ["index.*"]\n')
    policy = load_policy(user_file=rules, home=workspace.home)
    error = failures(workspace, [entry("report/index.html")], policy=policy)
    assert "index.*" in error.failures[0].detail
    assert (
        json.loads(json.dumps(error.to_dict()))["entries"][0]["reason"] == "forbidden"
    )


def test_reasons_and_details_are_the_local_checks_word_for_word(
    workspace: RemoteWorkspace, remote_root: Path, tmp_path: Path
) -> None:
    from app.core.trust.declare import declare

    (remote_root / "folder").mkdir()
    (remote_root / ".env").write_text("KEY=1")
    (remote_root / "link.md").symlink_to(remote_root / "notes.md")
    os.mkfifo(remote_root / "pipe")
    files = [
        entry("notes.md"),
        entry("missing.md"),
        entry(".env"),
        entry("folder"),
        entry("link.md"),
        entry("pipe"),
        entry("./notes.md"),
        entry(str(tmp_path / "outside.md")),
    ]
    # The server is this machine, so the local check sees the same folder.
    policy = load_policy(user_file=tmp_path / "none.toml", home=workspace.home)
    with pytest.raises(DeclarationError) as local:
        declare(
            {"files": files}, workspace=remote_root, mode=WORKSPACE_ONLY, policy=policy
        )
    remote = failures(workspace, files, policy=policy)

    assert remote.to_dict() == local.value.to_dict()
