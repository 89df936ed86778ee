"""The workspace of an imported session: the user's to confirm, never the transcript's.

A transcript says where its session worked (Claude Code's ``cwd``, a Codex
rollout's ``session_meta``), and anyone who can write the file can make it
say ``/`` or the home folder. What Verify checks an imported file against is
a folder the user confirmed; the claim is only shown beside it, and offered as
the default when nothing about it needs a second look.
"""

from __future__ import annotations

import os

from app.core.trust.paths import is_within
from app.core.trust.policy import Policy


class WorkspaceChoiceError(ValueError):
    """A folder that cannot be an imported session's workspace; says why."""


def chosen_workspace(folder: str) -> str:
    """The folder the user chose, resolved, or ``WorkspaceChoiceError``.

    Imported files are checked on this computer, so only an existing local
    folder can be chosen (an ``ssh://`` address is not an absolute path).
    """
    if not folder or "\0" in folder or not os.path.isabs(folder):
        raise WorkspaceChoiceError(
            f"{folder!r} is not a folder on this computer (give an absolute path)"
        )
    real = os.path.realpath(folder)
    if not os.path.isdir(real):
        raise WorkspaceChoiceError(f"{folder} is not a folder")
    return real


def default_workspace(claim: str, policy: Policy, home: str | None = None) -> str:
    """What to offer as the workspace of a session claiming ``claim``; ``""``: none.

    The claim is offered only when it is an existing local folder that holds
    neither the home folder nor ``/`` (a workspace there would take in every
    dotfile) and that the read-deny policy allows. Otherwise the user must
    choose: the app never picks a folder for them.
    """
    try:
        real = chosen_workspace(claim)
    except WorkspaceChoiceError:
        return ""
    own_home = os.path.realpath(home if home is not None else os.path.expanduser("~"))
    if real == os.sep or is_within(own_home, real):
        return ""
    if policy.denying_rule(real) is not None:
        return ""
    return real
