"""Connecting to a real sshd: ssh config, agent, host keys, failures and cancel."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from concurrent.futures import CancelledError, Future
from pathlib import Path

import pytest

from app.remote.manager import RemoteManager
from app.ssh.connect import SshSettings
from app.ssh.errors import Failure, HostKeyChangedError, RemoteError
from app.ssh.prompts import (
    HeadlessPrompter,
    HostKeyDecision,
    HostKeyQuestion,
    answered,
)
from tests.remote.fixtures import SshHome
from tests.remote.sshd import SshAgent, keygen, public_key


class AnsweringPrompter(HeadlessPrompter):
    """Answers host-key questions with ``decision`` and remembers each question."""

    def __init__(self, decision: HostKeyDecision) -> None:
        self.decision = decision
        self.questions: list[HostKeyQuestion] = []

    def ask_host_key(self, question: HostKeyQuestion) -> Future[HostKeyDecision]:
        self.questions.append(question)
        return answered(self.decision)


def failure_of(future: Future[object]) -> RemoteError:
    with pytest.raises(RemoteError) as raised:
        future.result(60)
    return raised.value


def open_with(
    home: SshHome, root: Path, prompter: HeadlessPrompter | None = None
) -> RemoteError | None:
    manager = RemoteManager(prompter=prompter)
    try:
        manager.open_workspace(home.address(root)).result(60)
        return None
    except RemoteError as error:
        return error
    finally:
        manager.close()


def test_connects_through_the_generated_ssh_config(
    workspace, ssh_home: SshHome, remote_root: Path
) -> None:
    # "devbox" exists only in ~/.ssh/config: host name, port, user and key
    # all come from there.
    place = workspace.place
    assert place.host == "devbox"
    assert place.port == ssh_home.server.port
    assert place.user == ssh_home.server.user
    assert place.root == str(remote_root)
    assert place.address == f"ssh://{place.user}@devbox:{place.port}{remote_root}"


def test_connects_with_only_the_agent_and_fails_once_it_is_gone(
    agent: SshAgent, ssh_home: SshHome, remote_root: Path
) -> None:
    assert not ssh_home.key.exists()  # no key on disk: only the agent can log in
    assert open_with(ssh_home, remote_root) is None

    agent.stop()

    error = open_with(ssh_home, remote_root)
    assert error is not None and error.failure is Failure.AUTH
    assert "ssh-add" in str(error)


def test_an_unknown_host_key_is_refused_without_a_person_to_ask(
    ssh_home: SshHome, remote_root: Path
) -> None:
    (ssh_home.ssh / "known_hosts").unlink()

    error = open_with(ssh_home, remote_root)

    assert error is not None and error.failure is Failure.HOST_KEY_UNKNOWN
    fingerprint = keygen_fingerprint(ssh_home.server.host_key)
    assert fingerprint in str(error)
    assert not (ssh_home.ssh / "known_hosts").exists()


def keygen_fingerprint(key: Path) -> str:
    import subprocess

    out = subprocess.run(
        ["ssh-keygen", "-l", "-E", "sha256", "-f", str(key)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return out.split()[1]


def test_an_unknown_key_accepted_once_is_used_and_never_written(
    ssh_home: SshHome, remote_root: Path
) -> None:
    (ssh_home.ssh / "known_hosts").unlink()
    prompter = AnsweringPrompter(HostKeyDecision.ONCE)

    assert open_with(ssh_home, remote_root, prompter) is None

    [question] = prompter.questions
    assert question.fingerprint == keygen_fingerprint(ssh_home.server.host_key)
    assert question.key_type == "ssh-ed25519"
    assert question.port == ssh_home.server.port
    assert question.known_hosts == str(ssh_home.ssh / "known_hosts")
    assert not (ssh_home.ssh / "known_hosts").exists()


def test_an_unknown_key_remembered_goes_into_known_hosts(
    ssh_home: SshHome, remote_root: Path
) -> None:
    (ssh_home.ssh / "known_hosts").unlink()

    assert (
        open_with(ssh_home, remote_root, AnsweringPrompter(HostKeyDecision.REMEMBER))
        is None
    )

    line = (ssh_home.ssh / "known_hosts").read_text()
    assert line == ssh_home.server.host_key_line() + "\n"
    assert (ssh_home.ssh / "known_hosts").stat().st_mode & 0o077 == 0
    # Known now: a headless connection needs no question.
    assert open_with(ssh_home, remote_root) is None


def test_a_changed_host_key_is_refused_and_never_asked_about(
    ssh_home: SshHome, remote_root: Path, tmp_path: Path
) -> None:
    impostor = keygen(tmp_path / "other_host_key")
    recorded = f"[127.0.0.1]:{ssh_home.server.port} ssh-ed25519 {public_key(impostor)}"
    (ssh_home.ssh / "known_hosts").write_text(recorded + "\n")
    prompter = AnsweringPrompter(HostKeyDecision.REMEMBER)

    error = open_with(ssh_home, remote_root, prompter)

    assert isinstance(error, HostKeyChangedError)
    assert "has changed" in str(error) and "ssh-keygen -R" in str(error)
    assert keygen_fingerprint(ssh_home.server.host_key) in str(error)
    assert prompter.questions == []
    assert (ssh_home.ssh / "known_hosts").read_text() == recorded + "\n"


def test_a_config_that_turns_host_checking_off_is_not_followed(
    ssh_home: SshHome, remote_root: Path
) -> None:
    ssh_home.write_config(extra="    UserKnownHostsFile /dev/null\n")
    (ssh_home.ssh / "known_hosts").unlink()

    error = open_with(ssh_home, remote_root)

    assert error is not None and error.failure is Failure.HOST_KEY_UNKNOWN


def test_connects_through_a_proxy_jump_host_with_both_keys_checked(
    ssh_home: SshHome, remote_root: Path
) -> None:
    # The jump host is the same sshd under another name: the target is then
    # reached through a channel of the first connection.
    ssh_home.write_config(
        extra=(
            "Host target\n"
            "    HostName 127.0.0.1\n"
            f"    Port {ssh_home.server.port}\n"
            "    IdentityFile ~/.ssh/id_test\n"
            "    ProxyJump devbox\n"
        )
    )
    manager = RemoteManager()
    try:
        workspace = manager.open_workspace(f"ssh://target{remote_root}").result(60)
        assert workspace.place.host == "target"
        assert workspace.link.route == ("devbox",)
        assert workspace.list_folder(str(remote_root)).result(30).entries
    finally:
        manager.close()


def test_nothing_listening_is_unreachable(ssh_home: SshHome, remote_root: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    manager = RemoteManager()
    try:
        error = failure_of(
            manager.open_workspace(f"ssh://127.0.0.1:{port}{remote_root}")
        )
    finally:
        manager.close()
    assert error.failure is Failure.UNREACHABLE
    assert "refused the connection" in str(error)


def test_a_bad_address_fails_at_once(ssh_home: SshHome) -> None:
    manager = RemoteManager()
    try:
        error = failure_of(manager.open_workspace("ssh://devbox"))
    finally:
        manager.close()
    assert error.failure is Failure.ADDRESS


def test_a_folder_that_is_not_there_is_said_so(
    ssh_home: SshHome, remote_root: Path, manager: RemoteManager
) -> None:
    error = failure_of(manager.open_workspace(ssh_home.address(remote_root / "nope")))
    assert error.failure is Failure.FILE
    error = failure_of(
        manager.open_workspace(ssh_home.address(remote_root / "notes.md"))
    )
    assert error.failure is Failure.FILE and "not a folder" in str(error)


@pytest.fixture
def silent_host() -> Iterator[int]:
    """A port that accepts TCP connections and never says a word."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except OSError:
                return
            accepted.append(connection)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    # shutdown wakes the blocked accept(); close alone would not.
    server.shutdown(socket.SHUT_RDWR)
    server.close()
    for connection in accepted:
        connection.close()
    thread.join(5)


def test_a_host_that_does_not_answer_times_out_with_a_clear_error(
    ssh_home: SshHome, silent_host: int
) -> None:
    manager = RemoteManager(SshSettings(connect_timeout=0.5))
    try:
        error = failure_of(manager.open_workspace(f"ssh://127.0.0.1:{silent_host}/"))
    finally:
        manager.close()
    assert error.failure is Failure.TIMEOUT
    assert "did not answer within 0.5 s" in str(error)


def test_a_wait_on_a_silent_host_can_be_cancelled(
    ssh_home: SshHome, silent_host: int
) -> None:
    manager = RemoteManager(SshSettings(connect_timeout=600))
    try:
        future = manager.open_workspace(f"ssh://127.0.0.1:{silent_host}/")
        assert future.cancel()
        with pytest.raises(CancelledError):
            future.result(10)
        # The loop is free for other work at once.
        other = manager.open_workspace("ssh://devbox")
        assert failure_of(other).failure is Failure.ADDRESS
    finally:
        manager.close()


class WaitingPrompter(HeadlessPrompter):
    """Never answers: the question stays open until the connection gives up."""

    def __init__(self) -> None:
        self.pending: list[Future[HostKeyDecision]] = []
        self.asked = threading.Event()

    def ask_host_key(self, question: HostKeyQuestion) -> Future[HostKeyDecision]:
        future: Future[HostKeyDecision] = Future()
        self.pending.append(future)
        self.asked.set()
        return future


def test_cancelling_a_connection_cancels_its_open_question(
    ssh_home: SshHome, remote_root: Path
) -> None:
    (ssh_home.ssh / "known_hosts").unlink()
    prompter = WaitingPrompter()
    manager = RemoteManager(prompter=prompter)
    try:
        future = manager.open_workspace(ssh_home.address(remote_root))
        assert prompter.asked.wait(30)
        [question] = prompter.pending
        # A window watches its dialog's future with a callback, to close it.
        closed = threading.Event()
        question.add_done_callback(lambda _future: closed.set())
        future.cancel()
        with pytest.raises(CancelledError):
            future.result(10)
        assert closed.wait(10)
        assert question.cancelled()
    finally:
        manager.close()


def test_an_unanswered_question_times_out_as_a_refusal(
    ssh_home: SshHome, remote_root: Path
) -> None:
    (ssh_home.ssh / "known_hosts").unlink()
    prompter = WaitingPrompter()
    manager = RemoteManager(SshSettings(prompt_timeout=0.2), prompter=prompter)
    try:
        error = failure_of(manager.open_workspace(ssh_home.address(remote_root)))
    finally:
        manager.close()
    assert error.failure is Failure.HOST_KEY_UNKNOWN
    assert prompter.pending[0].cancelled()


def test_work_submitted_while_the_loop_closes_is_never_left_unawaited() -> None:
    import inspect
    import time as clock

    from app.ssh.loop import LoopThread

    loop = LoopThread("closing")

    async def busy() -> None:
        clock.sleep(0.3)  # holds the loop thread, so what follows queues up

    async def late() -> str:
        return "ran"

    loop.submit(busy(), timeout=5, what="Busy")
    coroutine = late()
    queued = loop.submit(coroutine, timeout=5, what="Late")
    loop.close()
    # Scheduled before the stop: it ran, or it was cancelled and its coroutine
    # closed, never dropped unstarted (which warns, "never awaited").
    assert queued.cancelled() or queued.result(5) == "ran"
    assert inspect.getcoroutinestate(coroutine) == inspect.CORO_CLOSED
    refused = loop.submit(late(), timeout=5, what="After")
    with pytest.raises(RemoteError) as raised:
        refused.result(5)
    assert raised.value.failure is Failure.CANCELLED
