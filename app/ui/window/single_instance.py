"""One window per store: a second ``open`` or ``view`` hands its request over."""

from __future__ import annotations

import sys
from pathlib import Path

from app.core.channel.files import ChannelError
from app.core.channel.notify import MessageError, Request, send


def hand_over(data_dir: Path, request: object) -> bool:
    """Give ``request`` to the window already showing this store.

    True when that window carried it out, so this process can exit; False
    when there is none (or it refused), so this process opens its own. The
    window applies its own checks to what is asked; nothing here needs Qt.
    """
    if not isinstance(request, Request):
        raise TypeError(f"not a channel request: {request!r}")
    try:
        reply = send(data_dir, request)
    except (ChannelError, MessageError, OSError) as error:
        print(f"deliverables: not using the open window: {error}", file=sys.stderr)
        return False
    if reply is None:
        return False
    if not reply.accepted:
        print(f"deliverables: the open window refused: {reply.error}", file=sys.stderr)
        return False
    return True
