"""Sending a message from the input runs the agent and shows its turn live."""

from __future__ import annotations

from pathlib import Path

from langchain_core.messages import AIMessage, ToolCall
from PySide6.QtCore import Qt

from app.agent.models import ScriptedChatModel
from app.core.store import Store
from app.ui.window.main_window import MainWindow


def test_a_sent_message_runs_the_model_and_shows_the_deliverable(qtbot, tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "notes.md").write_text("# Notes\n")
    store = Store(tmp_path / "data")
    conversation = store.create_conversation("Live", str(workspace))
    call = ToolCall(
        id="call_1",
        name="present",
        args={"files": [{"path": "notes.md", "description": "My notes"}]},
        type="tool_call",
    )
    script = [AIMessage(content="", tool_calls=[call]), AIMessage(content="Done.")]
    asked: list[str] = []

    def factory(spec: str) -> ScriptedChatModel:
        asked.append(spec)
        return ScriptedChatModel(replies=script)

    window = MainWindow(
        store, tmp_path / "data", model_spec="scripted:test", model_factory=factory
    )
    qtbot.addWidget(window)
    window.show_conversation(conversation.id)
    window.show()
    assert not window.chat_input._edit.isReadOnly()
    window.chat_input._edit.setPlainText("Please write notes")
    window.chat_input._on_edit_submitted()

    def turn_stored() -> bool:
        return len(store.messages(conversation.id)) == 4

    qtbot.waitUntil(turn_stored, timeout=20_000)
    qtbot.waitUntil(lambda: not window.chat_input._stop.isVisible(), timeout=10_000)
    assert asked == ["scripted:test"]
    names = " ".join(
        str(window.chat.model().index(row, 0).data(Qt.ItemDataRole.AccessibleTextRole))
        for row in range(window.chat.model().rowCount())
    )
    assert "notes.md — My notes" in names
    assert "Please write notes" in names
    stored = store.messages(conversation.id)
    assert stored[2].record is not None and stored[2].record.trusted
    window.close()
    store.close()


def test_the_bridge_reports_a_model_that_cannot_be_set_up(qtbot, tmp_path: Path):
    store = Store(tmp_path / "data")
    conversation = store.create_conversation("Live", str(tmp_path))

    def broken(spec: str) -> ScriptedChatModel:
        raise RuntimeError("The nowhere provider is not installed.")

    window = MainWindow(
        store, tmp_path / "data", model_spec="nowhere:x", model_factory=broken
    )
    qtbot.addWidget(window)
    window.show_conversation(conversation.id)
    window.chat_input._edit.setPlainText("hello")
    window.chat_input._on_edit_submitted()
    qtbot.waitUntil(
        lambda: "not installed" in window.notice_bar._text.text(), timeout=10_000
    )
    window.close()
    store.close()


def test_a_policy_file_changed_during_a_turn_is_reported(qtbot, tmp_path, monkeypatch):
    config = tmp_path / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    policy_file = config / "deliverables" / "policy.toml"
    policy_file.parent.mkdir(parents=True)
    policy_file.write_text('[deny]\nadd = ["*.sqlite"]\n')
    workspace = tmp_path / "ws"
    workspace.mkdir()
    store = Store(tmp_path / "data")
    conversation = store.create_conversation("Live", str(workspace))

    class EditingModel(ScriptedChatModel):
        """Stands for another program the agent drives, editing the policy."""

        def _generate(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            policy_file.write_text('[deny]\nremove = ["~/.ssh/"]\n')
            return super()._generate(*args, **kwargs)

    window = MainWindow(
        store,
        tmp_path / "data",
        model_spec="scripted:test",
        model_factory=lambda _spec: EditingModel(replies=[AIMessage(content="Ok.")]),
    )
    qtbot.addWidget(window)
    window.show_conversation(conversation.id)
    window.chat_input._edit.setPlainText("hello")
    window.chat_input._on_edit_submitted()

    qtbot.waitUntil(
        lambda: "changed while the agent was working" in window.notice_bar.text(),
        timeout=20_000,
    )
    assert str(policy_file) in window.notice_bar.text()
    window.close()
    store.close()


def test_what_was_typed_stays_when_the_model_cannot_be_set_up(
    qtbot, tmp_path: Path
) -> None:
    import importlib.util

    import pytest

    if importlib.util.find_spec("langchain_ollama") is not None:
        pytest.skip("langchain-ollama is installed here")
    store = Store(tmp_path / "data")
    conversation = store.create_conversation("Live", str(tmp_path))

    def broken(spec: str) -> ScriptedChatModel:
        from app.agent.models import load_chat_model

        return load_chat_model("ollama:llama3.2")  # type: ignore[return-value]

    window = MainWindow(
        store, tmp_path / "data", model_spec="ollama:llama3.2", model_factory=broken
    )
    qtbot.addWidget(window)
    window.show_conversation(conversation.id)
    window.chat_input._edit.setPlainText("Please write the report")
    window.chat_input._on_edit_submitted()

    qtbot.waitUntil(lambda: window.chat_input.text() != "", timeout=20_000)
    assert window.chat_input.text() == "Please write the report"
    assert store.messages(conversation.id) == []
    window.close()
    store.close()


def test_what_was_typed_stays_when_the_run_fails(qtbot, tmp_path: Path) -> None:
    store = Store(tmp_path / "data")
    conversation = store.create_conversation("Live", str(tmp_path))
    error = ConnectionError("Failed to connect to Ollama.")
    window = MainWindow(
        store,
        tmp_path / "data",
        model_spec="ollama:llama3.2",
        model_factory=lambda _spec: ScriptedChatModel(replies=[error]),
    )
    qtbot.addWidget(window)
    window.show_conversation(conversation.id)
    window.chat_input._edit.setPlainText("hello there")
    window.chat_input._on_edit_submitted()

    qtbot.waitUntil(lambda: window.chat_input.text() != "", timeout=20_000)
    assert window.chat_input.text() == "hello there"
    model = window.chat.chat_model()
    errors = [
        model.block(r).text
        for r in range(model.rowCount())
        if type(model.block(r)).__name__ == "RunErrorBlock"
    ]
    assert errors and "ollama serve" in errors[0]
    window.close()
    store.close()


def test_the_model_in_use_is_shown_under_the_box(qtbot, tmp_path: Path) -> None:
    store = Store(tmp_path / "data")
    window = MainWindow(store, tmp_path / "data", model_spec="ollama:llama3.2")
    qtbot.addWidget(window)
    assert window.chat_input.model_text() == "Model: ollama:llama3.2"
    bare = MainWindow(store, tmp_path / "other")
    qtbot.addWidget(bare)
    assert bare.chat_input.model_text() == "No model chosen"
    window.close()
    bare.close()
    store.close()
