"""``deliverables validate --workspace ssh://…``: the local exit codes and JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .fixtures import SshHome


def validate(
    home: SshHome, workspace: str, files: object, *extra: str
) -> tuple[int, dict]:
    env = dict(os.environ, HOME=str(home.home))
    env.pop("SSH_AUTH_SOCK", None)
    arguments = files if isinstance(files, str) else json.dumps({"files": files})
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "app",
            "validate",
            "--workspace",
            workspace,
            "--args",
            arguments,
            *extra,
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    return result.returncode, json.loads(result.stdout)


def test_success_prints_the_remote_record(ssh_home: SshHome, remote_root: Path) -> None:
    code, out = validate(
        ssh_home,
        ssh_home.address(remote_root),
        [{"path": "report/index.html", "description": "the report"}],
    )
    assert code == 0
    assert out["version"] == 2
    assert out["workspace"].startswith(f"ssh://{ssh_home.server.user}@devbox:")
    [entry] = out["files"]
    assert entry["scope"] == "remote" and entry["kind"] == "html"
    assert entry["resolved"] == str(remote_root / "report" / "index.html")


def test_failure_lists_every_entry_as_locally(
    ssh_home: SshHome, remote_root: Path
) -> None:
    (remote_root / ".env").write_text("K=1")
    files = [
        {"path": "notes.md", "description": "ok"},
        {"path": "missing.md", "description": "d"},
        {"path": ".env", "description": "d"},
        {"path": "report", "description": "d"},
    ]
    code, out = validate(ssh_home, ssh_home.address(remote_root), files)
    local_code, local_out = validate(ssh_home, str(remote_root), files)
    assert (code, out) == (local_code, local_out) == (1, local_out)
    assert [e["reason"] for e in out["entries"]] == [
        "missing",
        "forbidden",
        "directory",
    ]


def test_mode_and_policy_file_are_honoured(
    ssh_home: SshHome, remote_root: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("x")
    entry = [{"path": str(outside), "description": "d"}]
    address = ssh_home.address(remote_root)
    assert validate(ssh_home, address, entry)[0] == 1
    code, out = validate(ssh_home, address, entry, "--mode", "allow-external")
    assert code == 0 and out["files"][0]["scope"] == "remote"
    policy = tmp_path / "policy.toml"
    policy.write_text('[deny]\nadd = ["outside.*"]\n')
    code, out = validate(
        ssh_home, address, entry, "--mode", "allow-external", "--policy", str(policy)
    )
    assert code == 1 and "outside.*" in out["entries"][0]["detail"]
    policy.write_text("[deny\n")
    code, out = validate(ssh_home, address, entry, "--policy", str(policy))
    assert code == 2 and out["reason"] == "invalid"


def test_arguments_that_are_not_json_fail_cleanly(
    ssh_home: SshHome, remote_root: Path
) -> None:
    code, out = validate(ssh_home, ssh_home.address(remote_root), "{not json")
    assert code == 1 and out["reason"] == "invalid"


def test_a_host_that_cannot_be_trusted_or_reached_is_exit_two(
    ssh_home: SshHome, remote_root: Path
) -> None:
    (ssh_home.ssh / "known_hosts").unlink()
    files = [{"path": "notes.md", "description": "d"}]
    code, out = validate(ssh_home, ssh_home.address(remote_root), files)
    assert code == 2 and out["entries"] == []
    assert "not in" in out["error"] and "SHA256:" in out["error"]
    code, out = validate(ssh_home, "ssh://127.0.0.1:1/tmp", files)
    assert code == 2 and "refused the connection" in out["error"]
    code, out = validate(ssh_home, "ssh://devbox", files)
    assert code == 2


def _server_fingerprint(home: SshHome) -> str:
    """The host key's fingerprint as ssh-keygen prints it (what a person checks)."""
    public = home.server.host_key.with_name("host_key.pub")
    listed = subprocess.run(
        ["ssh-keygen", "-l", "-E", "sha256", "-f", str(public)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return listed.split()[1]


def test_a_wrong_host_key_fingerprint_is_refused_and_nothing_is_stored(
    ssh_home: SshHome, remote_root: Path
) -> None:
    known_hosts = ssh_home.ssh / "known_hosts"
    known_hosts.unlink()
    files = [{"path": "notes.md", "description": "d"}]
    right = _server_fingerprint(ssh_home)
    wrong = "SHA256:" + "A" * 43

    code, out = validate(
        ssh_home, ssh_home.address(remote_root), files, "--accept-host-key", wrong
    )

    assert code == 2 and out["entries"] == []
    assert right in out["error"] and "nothing was stored" in out["error"]
    assert not known_hosts.exists()


def test_the_host_key_the_server_shows_is_accepted_and_remembered(
    ssh_home: SshHome, remote_root: Path
) -> None:
    known_hosts = ssh_home.ssh / "known_hosts"
    known_hosts.unlink()
    files = [{"path": "notes.md", "description": "d"}]
    address = ssh_home.address(remote_root)
    code, out = validate(ssh_home, address, files)
    assert code == 2
    fingerprint = _server_fingerprint(ssh_home)
    assert f"--accept-host-key {fingerprint}" in out["error"]

    code, out = validate(ssh_home, address, files, "--accept-host-key", fingerprint)

    assert code == 0, out
    assert out["files"][0]["path"] == "notes.md"
    # Remembered: the next run needs no confirmation.
    assert validate(ssh_home, address, files)[0] == 0
    assert known_hosts.read_text().count("\n") == 1


def test_chat_on_a_remote_workspace_opens_the_window_connecting_there(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from app import cli

    asked: list[dict[str, object]] = []

    def run_window(*_args: object, **kwargs: object) -> int:
        asked.append(kwargs)
        return 0

    monkeypatch.setattr(cli, "_run_window", run_window)
    data = ["--data-dir", str(tmp_path / "data")]
    code = cli.main(
        ["chat", *data, "--model", "ollama:x", "--workspace", "ssh://devbox/srv"]
    )
    assert code == 0
    assert len(asked) == 1 and asked[0]["remote"] == "ssh://devbox/srv"
    assert asked[0]["model_spec"] == "ollama:x"

    code = cli.main(
        ["chat", *data, "--model", "ollama:x", "--workspace", "ssh://devbox:99999/srv"]
    )
    assert code == 2 and len(asked) == 1
    assert "this address cannot be used" in capsys.readouterr().err
