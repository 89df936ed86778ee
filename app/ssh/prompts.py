"""Questions the connection asks a person (host keys, passwords) and how they answer."""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol, TypeVar

_T = TypeVar("_T")


class HostKeyDecision(StrEnum):
    """What the user said about a host key that ``known_hosts`` does not hold."""

    ONCE = "once"  # trust it for this run of the app only
    REMEMBER = "remember"  # append it to known_hosts
    REFUSE = "refuse"


@dataclass(frozen=True)
class HostKeyQuestion:
    """An unknown host key, with what a person needs to check it."""

    host: str  # the name the key is filed under in known_hosts
    port: int
    key_type: str  # e.g. "ssh-ed25519"
    fingerprint: str  # "SHA256:..." as ssh-keygen -l prints it
    known_hosts: str  # the file REMEMBER appends to


@dataclass(frozen=True)
class PasswordRequest:
    """The server asks for the user's password (attempt counts from 1)."""

    user: str
    host: str
    port: int
    attempt: int


@dataclass(frozen=True)
class KbdintPrompt:
    """One question of a keyboard-interactive challenge."""

    text: str
    echo: bool  # False for secrets: the dialog must not show what is typed


@dataclass(frozen=True)
class KbdintRequest:
    """A keyboard-interactive challenge (one-time codes, PAM questions)."""

    user: str
    host: str
    port: int
    name: str
    instructions: str
    prompts: tuple[KbdintPrompt, ...]


class Prompter(Protocol):
    """Answers the connection's questions; every method returns without blocking.

    The connection layer never shows anything: it calls these on its loop
    thread and awaits the returned future, with a timeout. The window answers
    by showing a dialog (reached through a queued signal) and setting the
    future's result from the GUI thread; a headless caller answers at once.
    Cancelling the connection cancels the future, so a dialog can close itself
    from a done-callback. ``None`` as a password or answer list means "give up
    on this method". Nothing answered is stored: a password lives only for the
    authentication attempt it was asked for.
    """

    def ask_host_key(self, question: HostKeyQuestion) -> Future[HostKeyDecision]: ...

    def ask_password(self, request: PasswordRequest) -> Future[str | None]: ...

    def ask_kbdint(self, request: KbdintRequest) -> Future[tuple[str, ...] | None]: ...


def answered(value: _T) -> Future[_T]:
    """A future that already holds ``value``: for prompters that need no wait."""
    future: Future[_T] = Future()
    future.set_result(value)
    return future


class HeadlessPrompter:
    """For the command line and tests: refuses unknown keys and asks no secrets.

    Known hosts, keys and the ssh agent still work; everything that would need
    a person is declined, so the error explains what to do instead. An unknown
    key whose fingerprint is exactly ``accept_host_key`` (the user read it and
    confirmed it on the command line) is remembered in ``known_hosts``; any
    other is refused and nothing is stored.
    """

    def __init__(self, accept_host_key: str | None = None) -> None:
        self._accepted = (
            None if accept_host_key is None else same_fingerprint(accept_host_key)
        )
        self.refused: list[HostKeyQuestion] = []
        """The unknown keys declined, for a caller to say which one to check."""

    def ask_host_key(self, question: HostKeyQuestion) -> Future[HostKeyDecision]:
        if self._accepted is not None and self._accepted == same_fingerprint(
            question.fingerprint
        ):
            return answered(HostKeyDecision.REMEMBER)
        self.refused.append(question)
        return answered(HostKeyDecision.REFUSE)

    def ask_password(self, request: PasswordRequest) -> Future[str | None]:
        return answered(None)

    def ask_kbdint(self, request: KbdintRequest) -> Future[tuple[str, ...] | None]:
        return answered(None)


def same_fingerprint(text: str) -> str:
    """A SHA256 fingerprint as compared: "SHA256:" optional, padding dropped.

    The digest's base64 is case-sensitive, so nothing else is folded.
    """
    text = text.strip()
    if text[:7].upper() == "SHA256:":
        text = text[7:]
    return "SHA256:" + text.rstrip("=")
