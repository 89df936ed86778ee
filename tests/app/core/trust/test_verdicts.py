"""The trust checks as pure functions: each table row is facts in, a verdict out."""

from __future__ import annotations

import pytest

from app.core.trust.policy import PermissionMode, Policy, builtin_rules
from app.core.trust.safeio import Identity
from app.core.trust.verdicts import (
    DIRECTORY,
    FORBIDDEN,
    MISSING,
    NOT_REGULAR,
    OUTSIDE,
    REGULAR,
    SYMLINK,
    UNREADABLE,
    Check,
    Found,
    Verdict,
    access_check,
    denied_by,
    open_verdict,
    opened_check,
    present_refusal,
    version_check,
)

HOME = "/home/someone"
POLICY = Policy(builtin_rules(), home=HOME)
WS = PermissionMode.WORKSPACE_ONLY
ALL = PermissionMode.ALLOW_EXTERNAL
SECRET = f"{HOME}/.ssh/id_ed25519"
PLAIN = "/srv/ws/report.md"

# names, inside, mode, found -> reason (None: accepted), a word of the detail
PRESENT_TABLE = [
    ((PLAIN,), True, WS, Found(REGULAR), None, ""),
    ((PLAIN,), False, ALL, Found(REGULAR), None, ""),
    ((PLAIN,), False, WS, Found(REGULAR), FORBIDDEN, "workspace-only"),
    # Policy first: a secret is forbidden whatever sits there.
    ((SECRET,), True, ALL, Found(MISSING), FORBIDDEN, "read-deny"),
    ((SECRET,), True, ALL, Found(SYMLINK), FORBIDDEN, "read-deny"),
    ((SECRET,), True, ALL, Found(DIRECTORY), FORBIDDEN, "read-deny"),
    ((SECRET,), True, ALL, Found(REGULAR, readable=False), FORBIDDEN, "read-deny"),
    ((SECRET,), None, ALL, Found(MISSING), FORBIDDEN, "read-deny"),
    # Either name denies: as given, and as it resolves.
    ((PLAIN, SECRET), True, ALL, Found(REGULAR), FORBIDDEN, "read-deny"),
    ((SECRET, PLAIN), True, ALL, Found(REGULAR), FORBIDDEN, "read-deny"),
    # The scope before what a look-up found, once the folders resolved.
    ((PLAIN,), False, WS, Found(MISSING), FORBIDDEN, "workspace-only"),
    ((PLAIN,), None, WS, Found(MISSING), MISSING, "no such file"),
    ((PLAIN,), None, WS, Found(UNREADABLE), UNREADABLE, "permission denied"),
    ((PLAIN,), True, WS, Found(MISSING), MISSING, "no such file"),
    ((PLAIN,), True, WS, Found(MISSING, error="I/O error"), MISSING, "I/O error"),
    ((PLAIN,), True, WS, Found(UNREADABLE), UNREADABLE, "looking it up"),
    ((PLAIN,), True, WS, Found(SYMLINK), SYMLINK, "symbolic link"),
    ((PLAIN,), True, WS, Found(DIRECTORY), DIRECTORY, "folder"),
    ((PLAIN,), True, WS, Found(NOT_REGULAR), NOT_REGULAR, "FIFO"),
    ((PLAIN,), True, WS, Found(REGULAR, pseudo="proc"), NOT_REGULAR, "proc"),
    ((PLAIN,), True, WS, Found(REGULAR, readable=False), UNREADABLE, "cannot read"),
]


@pytest.mark.parametrize(
    ("names", "inside", "mode", "found", "reason", "detail"), PRESENT_TABLE
)
def test_the_present_verdict_follows_its_table(
    names: tuple[str, ...],
    inside: bool | None,
    mode: PermissionMode,
    found: Found,
    reason: str | None,
    detail: str,
) -> None:
    refusal = present_refusal(POLICY, names, inside=inside, mode=mode, found=found)
    if reason is None:
        assert refusal is None
    else:
        assert refusal is not None
        assert (refusal.reason, detail in refusal.detail) == (reason, True)


# names, inside, mode -> verdict (None: may be opened)
ACCESS_TABLE = [
    ((PLAIN,), True, WS, None),
    ((PLAIN,), False, ALL, None),
    ((PLAIN,), False, None, None),
    ((PLAIN,), False, WS, Verdict.DENIED),
    ((SECRET,), True, ALL, Verdict.DENIED),
    ((SECRET,), True, None, Verdict.DENIED),
    ((PLAIN, SECRET), True, ALL, Verdict.DENIED),
]


@pytest.mark.parametrize(("names", "inside", "mode", "verdict"), ACCESS_TABLE)
def test_the_access_verdict_follows_its_table(
    names: tuple[str, ...],
    inside: bool,
    mode: PermissionMode | None,
    verdict: Verdict | None,
) -> None:
    check = access_check(POLICY, names, inside=inside, mode=mode)
    assert (check.verdict if check else None) == verdict


def test_a_denial_names_the_rule_before_the_scope() -> None:
    check = access_check(POLICY, (SECRET,), inside=False, mode=WS)
    assert check is not None and "read-deny" in check.reason
    outside = access_check(POLICY, (PLAIN,), inside=False, mode=WS)
    assert outside == Check(Verdict.DENIED, OUTSIDE)


@pytest.mark.parametrize(
    ("reason", "verdict"),
    [
        (MISSING, Verdict.MISSING),
        (SYMLINK, Verdict.SYMLINK),
        (DIRECTORY, Verdict.NOT_REGULAR),
        (NOT_REGULAR, Verdict.NOT_REGULAR),
        (UNREADABLE, Verdict.DENIED),
        ("anything else", Verdict.MISSING),
    ],
)
def test_a_refused_open_maps_to_one_verdict(reason: str, verdict: Verdict) -> None:
    assert open_verdict(reason) is verdict
    assert not Check(open_verdict(reason), "").allowed


IDENTITY = Identity(1, 2, 3, 4)


@pytest.mark.parametrize(
    ("real", "verdict"),
    [
        (None, None),
        (PLAIN, None),
        ("/elsewhere/report.md", Verdict.SYMLINK),
    ],
)
def test_an_opened_file_must_be_where_it_was_resolved(
    real: str | None, verdict: Verdict | None
) -> None:
    check = opened_check(POLICY, PLAIN, real, IDENTITY)
    assert (check.verdict if check else None) == verdict


def test_an_opened_file_whose_real_path_is_denied_is_refused() -> None:
    check = opened_check(POLICY, SECRET, SECRET, IDENTITY)
    assert check is not None
    assert (check.verdict, check.identity) == (Verdict.DENIED, IDENTITY)


@pytest.mark.parametrize(
    ("unchanged", "same_file", "verdict", "word"),
    [
        (True, True, Verdict.OK, "unchanged"),
        (True, False, Verdict.OK, "unchanged"),
        (False, True, Verdict.CHANGED, "modified"),
        (False, False, Verdict.CHANGED, "replaced"),
    ],
)
def test_the_version_verdict_follows_its_table(
    unchanged: bool, same_file: bool, verdict: Verdict, word: str
) -> None:
    check = version_check(unchanged=unchanged, same_file=same_file)
    assert check.verdict is verdict and word in check.reason
    assert check.allowed


def test_denied_by_names_nothing_for_ordinary_files() -> None:
    assert denied_by(POLICY, (PLAIN, "/srv/ws/data.csv")) is None
    assert denied_by(POLICY, ()) is None
