"""The trust checks as pure functions: facts a workspace gathered in, a verdict out.

A local folder gathers its facts with ``lstat``, ``access`` and a safe open;
an SSH host with SFTP ``lstat`` and ``realpath``. Neither decides anything:
each hands its facts to the functions here, so a rule changed once changes
for both. Nothing here touches a file system.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from app.core.trust.policy import PermissionMode, Policy, Rule
from app.core.trust.safeio import Identity, SafeOpenError

# What a look-up found at a path, without opening it: a regular file, or one
# of the reasons a safe open refuses (``SafeOpenError.reason``).
REGULAR = "regular"
MISSING = "missing"
UNREADABLE = "unreadable"
SYMLINK = "symlink"
DIRECTORY = "directory"
NOT_REGULAR = "not_regular"

# The present check's reasons beyond what a look-up finds.
FORBIDDEN = "forbidden"

OUTSIDE_PRESENT = "outside the workspace, and the permission mode is workspace-only"
OUTSIDE = "it is outside the workspace and the mode is workspace-only"


class Verdict(StrEnum):
    """The outcome of a check; only ``OK`` and ``CHANGED`` allow an action."""

    OK = "ok"
    CHANGED = "changed"
    MISSING = "missing"
    NOT_REGULAR = "not_regular"
    SYMLINK = "symlink"
    DENIED = "denied"
    UNTRUSTED = "untrusted"


@dataclass(frozen=True)
class Check:
    """A verdict with the plain-text reason shown to the user."""

    verdict: Verdict
    reason: str
    identity: Identity | None = None

    @property
    def allowed(self) -> bool:
        return self.verdict in (Verdict.OK, Verdict.CHANGED)


@dataclass(frozen=True)
class Refusal:
    """Why the present check refuses one entry: its reason and a detail."""

    reason: str
    detail: str


@dataclass(frozen=True)
class Found:
    """What a look-up found at a path: its kind and whether it can be read.

    ``kind`` is ``REGULAR`` or a safe open's refusal reason; ``error`` is why
    a look-up failed for another reason than a missing file or a denial;
    ``pseudo`` names a live system file system (``proc``) the file sits on.
    """

    kind: str
    readable: bool = True
    pseudo: str | None = None
    error: str | None = None


_OPEN_VERDICTS = {
    MISSING: Verdict.MISSING,
    SYMLINK: Verdict.SYMLINK,
    DIRECTORY: Verdict.NOT_REGULAR,
    NOT_REGULAR: Verdict.NOT_REGULAR,
    UNREADABLE: Verdict.DENIED,
}


def denied_by(policy: Policy, names: Iterable[str]) -> str | None:
    """Why ``policy`` denies the first of ``names`` it denies, else ``None``.

    A file is named as given and as it resolves; either being denied denies it.
    """
    for name in dict.fromkeys(names):
        rule = policy.denying_rule(name)
        if rule is not None:
            return f"denied by read-deny rule {rule.describe()}"
    return None


def present_refusal(
    policy: Policy,
    names: Iterable[str],
    *,
    inside: bool | None,
    mode: PermissionMode,
    found: Found,
) -> Refusal | None:
    """Why the present check refuses a declared file, or ``None`` to accept it.

    ``inside`` says whether the file resolves within the workspace; ``None``
    when its folders could not be resolved (``found`` then says why).
    Policy first: a denied path is refused as forbidden whatever else it is,
    so the error never confirms what kind of thing a secret path holds.
    """
    denial = denied_by(policy, names)
    if denial is not None:
        return Refusal(FORBIDDEN, denial)
    if inside is not None and not inside and mode is PermissionMode.WORKSPACE_ONLY:
        return Refusal(FORBIDDEN, OUTSIDE_PRESENT)
    return _found_refusal(found)


def _found_refusal(found: Found) -> Refusal | None:
    if found.kind == MISSING:
        if found.error is not None:
            return Refusal(MISSING, f"cannot be looked up: {found.error}")
        return Refusal(MISSING, "no such file")
    if found.kind == UNREADABLE:
        return Refusal(UNREADABLE, "permission denied while looking it up")
    if found.kind == SYMLINK:
        return Refusal(SYMLINK, "the final path component is a symbolic link")
    if found.kind == DIRECTORY:
        return Refusal(DIRECTORY, "it is a folder, not a file")
    if found.kind != REGULAR:
        return Refusal(NOT_REGULAR, "not a regular file (FIFO, socket or device)")
    if found.pseudo is not None:
        detail = f"a live system file ({found.pseudo} file system), not a document"
        return Refusal(NOT_REGULAR, detail)
    if not found.readable:
        return Refusal(UNREADABLE, "the session cannot read it")
    return None


def access_check(
    policy: Policy,
    names: Iterable[str],
    *,
    inside: bool,
    mode: PermissionMode | None,
) -> Check | None:
    """The refusal before a file is opened: the policy, then the scope.

    ``None`` means the file may be opened and looked at.
    """
    denial = denied_by(policy, names)
    if denial is not None:
        return Check(Verdict.DENIED, denial)
    if not inside and mode is PermissionMode.WORKSPACE_ONLY:
        return Check(Verdict.DENIED, OUTSIDE)
    return None


def open_verdict(reason: str) -> Verdict:
    """The verdict for a file a safe open refused with ``reason``."""
    return _OPEN_VERDICTS.get(reason, Verdict.MISSING)


def opened_check(
    policy: Policy, expected: str, real: str | None, identity: Identity | None = None
) -> Check | None:
    """The refusal for an opened file whose real path is ``real``, or ``None``.

    The leaf is not a link (the open refuses one), so a real path other than
    ``expected`` means a folder on the way was swapped; and the real path is
    itself under the policy.
    """
    if real is None:
        return None
    if real != expected:
        reason = "a folder on its path now leads somewhere else"
        return Check(Verdict.SYMLINK, reason, identity)
    denial = denied_by(policy, (real,))
    if denial is not None:
        return Check(Verdict.DENIED, denial, identity)
    return None


def version_check(
    *, unchanged: bool, same_file: bool, identity: Identity | None = None
) -> Check:
    """The verdict comparing a file now with the version that was presented."""
    if unchanged:
        return Check(Verdict.OK, "unchanged since it was presented", identity)
    if not same_file:
        reason = "it was replaced by another file since it was presented"
    else:
        reason = "it was modified since it was presented"
    return Check(Verdict.CHANGED, reason, identity)


_REFUSED_REASONS = {
    Verdict.MISSING: MISSING,
    Verdict.SYMLINK: SYMLINK,
    Verdict.NOT_REGULAR: NOT_REGULAR,
    Verdict.DENIED: "denied",
    Verdict.UNTRUSTED: "untrusted",
}


def refused(check: Check) -> SafeOpenError:
    """The error that refuses an action ``check`` does not allow, with its reason."""
    return SafeOpenError(_REFUSED_REASONS.get(check.verdict, "denied"), check.reason)


class DeniedPathError(Exception):
    """A path the read-deny policy forbids; ``rule`` says which rule."""

    def __init__(self, rule: Rule) -> None:
        super().__init__(rule.describe())
        self.rule = rule


def refuse_denied(policy: Policy, *paths: str) -> None:
    """``DeniedPathError`` for the first of ``paths`` the policy denies."""
    for path in dict.fromkeys(paths):
        rule = policy.denying_rule(path)
        if rule is not None:
            raise DeniedPathError(rule)
