"""A real OpenSSH sshd for tests, run as the current user on 127.0.0.1."""

from __future__ import annotations

import getpass
import os
import shutil
import signal
import socket
import subprocess
import threading
from pathlib import Path

SSHD = shutil.which("sshd") or (
    "/usr/sbin/sshd" if os.path.exists("/usr/sbin/sshd") else None
)
SSH_KEYGEN = shutil.which("ssh-keygen")
SSH_AGENT = shutil.which("ssh-agent")
SSH_ADD = shutil.which("ssh-add")
SFTP = shutil.which("sftp")
# Where sshd expects its privilege separation folder when started as root;
# a system sshd's service creates it, a bare machine may lack it.
PRIVSEP_DIR = Path("/run/sshd")


def missing_tools() -> str | None:
    """Why the real-sshd tests cannot run here, or None."""
    for name, path in (("sshd", SSHD), ("ssh-keygen", SSH_KEYGEN)):
        if path is None:
            return f"OpenSSH's {name} is not installed (Debian: openssh-server)"
    return None


def keygen(path: Path, kind: str = "ed25519") -> Path:
    assert SSH_KEYGEN is not None
    subprocess.run(
        [SSH_KEYGEN, "-q", "-t", kind, "-N", "", "-C", "test", "-f", str(path)],
        check=True,
    )
    return path


def public_key(path: Path) -> str:
    return path.with_name(path.name + ".pub").read_text().split(" ", 2)[1]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _account_locked_without_pam(user: str) -> bool:
    # sshd without PAM refuses an account whose shadow password starts with
    # "!" (locked), even for key logins. Unprivileged, it sees what getent
    # sees: on systems where nss-systemd supplies "nobody", that is "!*".
    # PAM's account check does not read a locked password as a locked account.
    result = subprocess.run(
        ["getent", "shadow", user], capture_output=True, text=True, check=False
    )
    fields = result.stdout.split(":")
    return len(fields) > 1 and fields[1].startswith("!")


class OpenSshServer:
    """sshd with a generated host key, one authorized client key and internal-sftp."""

    def __init__(self, folder: Path, client_key: Path) -> None:
        self.folder = folder
        self.user = getpass.getuser()
        self.client_key = client_key
        self.host_key = keygen(folder / "host_key")
        self.port = 0
        self.process: subprocess.Popen[str] | None = None
        self._drainer: threading.Thread | None = None
        self.log: list[str] = []
        (folder / "authorized_keys").write_text(
            client_key.with_name(client_key.name + ".pub").read_text()
        )

    def host_key_line(self) -> str:
        kind, data = self.host_key.with_name("host_key.pub").read_text().split()[:2]
        return f"[127.0.0.1]:{self.port} {kind} {data}"

    def _config(self) -> Path:
        pam = "yes" if _account_locked_without_pam(self.user) else "no"
        config = self.folder / "sshd_config"
        config.write_text(
            f"Port {self.port}\n"
            "ListenAddress 127.0.0.1\n"
            f"HostKey {self.host_key}\n"
            f"PidFile {self.folder / 'sshd.pid'}\n"
            f"AuthorizedKeysFile {self.folder / 'authorized_keys'}\n"
            "PasswordAuthentication no\n"
            "KbdInteractiveAuthentication no\n"
            f"UsePAM {pam}\n"
            "StrictModes no\n"
            # internal-sftp logs every open and close with the bytes read:
            # how tests see that a check opened nothing, or a page read little.
            "Subsystem sftp internal-sftp -l INFO\n"
            "AllowTcpForwarding yes\n"
            "LogLevel INFO\n"
        )
        return config

    def start(self) -> None:
        assert SSHD is not None
        if os.geteuid() == 0:
            PRIVSEP_DIR.mkdir(mode=0o755, exist_ok=True)
        for _attempt in range(5):
            self.port = _free_port()
            self.log = []
            process = subprocess.Popen(
                [SSHD, "-D", "-e", "-f", str(self._config())],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            assert process.stderr is not None
            # sshd says when it listens; reading its log line waits exactly that long.
            for line in process.stderr:
                self.log.append(line.rstrip("\n"))
                if "Server listening on" in line:
                    self.process = process
                    self._drainer = threading.Thread(
                        target=self._drain, args=(process,), daemon=True
                    )
                    self._drainer.start()
                    return
            process.wait()
            process.stderr.close()
        raise RuntimeError("sshd did not start:\n" + "\n".join(self.log))

    def _drain(self, process: subprocess.Popen[str]) -> None:
        assert process.stderr is not None
        for line in process.stderr:
            self.log.append(line.rstrip("\n"))

    def sessions(self) -> list[int]:
        """The pids of every process sshd forked for a connection."""
        assert self.process is not None
        parents: dict[int, int] = {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    stat = handle.read()
            except OSError:
                continue
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
        found: list[int] = []
        frontier = [self.process.pid]
        while frontier:
            parent = frontier.pop()
            children = [pid for pid, ppid in parents.items() if ppid == parent]
            found += children
            frontier += children
        return found

    def kill_sessions(self) -> int:
        """Kill every open connection's server side, as a dropped link would."""
        killed = 0
        for pid in self.sessions():
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except ProcessLookupError:
                continue
        return killed

    def stop(self) -> None:
        if self.process is None:
            return
        self.kill_sessions()
        # Stopped by its own pid, never by name: other sshds may run here.
        os.kill(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(10)
        # The drain ends at the log's end, once sshd and its children are gone.
        if self._drainer is not None:
            self._drainer.join(10)
        if self.process.stderr is not None:
            self.process.stderr.close()
        self.process = None


class SshAgent:
    """An ssh-agent holding one key, on a socket of its own; stopped by pid."""

    def __init__(self, folder: Path, key: Path) -> None:
        assert SSH_AGENT is not None and SSH_ADD is not None
        self.socket = folder / "agent.sock"
        self.process = subprocess.Popen(
            [SSH_AGENT, "-D", "-a", str(self.socket)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self.process.stdout is not None
        # With -D the agent prints its environment lines once it listens.
        self.process.stdout.readline()
        subprocess.run(
            [SSH_ADD, "-q", str(key)],
            env={**os.environ, "SSH_AUTH_SOCK": str(self.socket)},
            check=True,
            capture_output=True,
        )

    def stop(self) -> None:
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGTERM)
            self.process.wait(10)
        if self.process.stdout is not None:
            self.process.stdout.close()
