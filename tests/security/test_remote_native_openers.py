"""A remote card's file is never handed to anything that opens local paths."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtGui import QGuiApplication
from pytestqt.qtbot import QtBot

from app.core.store import Store
from app.core.store.deliverables import DeliverableRef
from app.core.trust.policy import PermissionMode, current_policy
from app.core.trust.records import Record
from app.remote.workspace import RemoteWorkspace
from app.ui.cards.actions import ACTIONS, FileActions
from tests.remote.fixtures import manager as manager
from tests.remote.fixtures import openers as openers
from tests.remote.fixtures import remote_root as remote_root
from tests.remote.fixtures import ssh_home as ssh_home
from tests.remote.fixtures import sshd as sshd
from tests.remote.fixtures import workspace as workspace


def test_no_action_on_a_remote_card_reaches_a_native_opener(
    qtbot: QtBot,
    workspace: RemoteWorkspace,
    remote_root: Path,
    tmp_path: Path,
    openers: list[tuple[str, tuple[Any, ...]]],
) -> None:
    # The served host is this machine, so the remote path is also a real
    # local file with the recorded size: the tempting wrong file to open.
    record: Record = workspace.present(
        {"files": [{"path": "report/index.html", "description": "The report"}]},
        mode=PermissionMode.WORKSPACE_ONLY,
    ).result(30)
    assert Path(record.files[0].resolved).is_file()
    message = {"type": "tool", "data": {"tool_call_id": "c1", "content": "ok"}}
    store = Store(tmp_path / "data")
    conversation = store.create_conversation("remote", workspace.address)
    store.append_message(conversation.id, message, record.to_json(), "c1")
    ref = DeliverableRef(conversation.id, "c1", 0)
    file_actions = FileActions(
        store,
        lambda _workspace: current_policy(),
        lambda: PermissionMode.ALLOW_EXTERNAL,
    )
    QGuiApplication.clipboard().setText("before")
    refused: list[str] = []
    file_actions.refused.connect(refused.append)
    opened: list[object] = []
    file_actions.openRequested.connect(lambda *args: opened.append(args))
    file_actions.browserRequested.connect(lambda *args: opened.append(args))
    file_actions.revealRequested.connect(lambda *args: opened.append(args))

    results = {spec.id: file_actions.perform(spec.id, ref) for spec in ACTIONS}

    assert not any(results.values())
    assert openers == [] and opened == []
    assert QGuiApplication.clipboard().text() == "before"
    assert len(refused) == len(ACTIONS)
    assert all("over SSH" in reason for reason in refused)
    store.close()
