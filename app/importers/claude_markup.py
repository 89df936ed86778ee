"""What a person saw of a Claude Code user line written as markup, not as typed text.

Claude Code stores a slash command as ``<command-message>…</command-message>
<command-name>/x</command-name><command-args>…</command-args>``, a ``!`` shell
command as ``<bash-input>…</bash-input>``, and their output as user lines of
``<local-command-stdout>`` or ``<bash-stdout>``. The person typed ``/x …`` or
``! …`` and read the output as the tool's, not as a prompt of theirs.
"""

from __future__ import annotations

import re
from typing import Final

# Only a line made of nothing but these tags is markup; a prompt that merely
# mentions one is what the person typed, and stays as it is.
_TAG: Final = re.compile(
    r"<(command-name|command-message|command-args|bash-input|bash-stdout"
    r"|bash-stderr|local-command-stdout|local-command-stderr"
    r"|local-command-caveat)>(.*?)</\1>",
    re.DOTALL,
)
_OUTPUT: Final = frozenset(
    {
        "bash-stdout",
        "bash-stderr",
        "local-command-stdout",
        "local-command-stderr",
        "local-command-caveat",
    }
)


def typed_text(text: str) -> str | None:
    """The prompt as the person typed it, or ``None`` for a line of output.

    Text that is not wholly markup is returned unchanged.
    """
    if not text.lstrip().startswith("<"):
        return text
    tags: dict[str, str] = {}
    for match in _TAG.finditer(text):
        tags.setdefault(match.group(1), match.group(2).strip())
    if not tags or _TAG.sub("", text).strip():
        return text
    name = tags.get("command-name")
    if name:
        command = name if name.startswith("/") else f"/{name}"
        args = tags.get("command-args", "")
        return f"{command} {args}" if args else command
    if "bash-input" in tags:
        return f"! {tags['bash-input']}"
    if _OUTPUT & tags.keys():
        return None
    # A command's message alone (older sessions): its name is the command.
    message = tags.get("command-message", "")
    word = message.split(" ", 1)[0]
    return f"/{word}" if word else None
