"""What can go wrong with a workspace file, as the tool errors the agent reads."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from langchain_core.tools import ToolException

from app.core.trust.beneath import OutsideRootError
from app.core.trust.safeio import SafeOpenError
from app.core.trust.verdicts import DeniedPathError
from app.ssh.errors import Failure, RemoteError
from app.tools.specs import outside_text


@contextmanager
def tool_errors(
    given: str,
    unreadable: Callable[[Exception], str],
    *,
    changed_is_unreadable: bool = False,
) -> Iterator[None]:
    """Turn what can go wrong with ``given`` into the tool errors the agent reads.

    The same words whichever workspace the file is in: ``unreadable`` says why
    a path cannot be opened as asked (a file that changed while read can be
    said so too).
    """
    try:
        yield
    except OutsideRootError as error:
        raise ToolException(outside_text(given)) from error
    except DeniedPathError as error:
        raise ToolException(
            f"{given!r} is denied by rule {error.rule.describe()}."
        ) from error
    except SafeOpenError as error:
        raise ToolException(unreadable(error)) from error
    except RemoteError as error:
        if changed_is_unreadable and error.failure is Failure.CHANGED:
            raise ToolException(unreadable(error)) from error
        raise ToolException(
            f"The remote workspace cannot be reached: {error}"
        ) from error
