"""The import command: JSON report, exit codes, folders, messages on stderr."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import main
from app.core.store import Store

from .transcripts import ClaudeSession, CodexRollout, text, tool_use


def sessions(tmp_path: Path) -> tuple[Path, Path]:
    repo = tmp_path / "repo"
    s = ClaudeSession(str(repo))
    s.user("First prompt")
    for n in range(2):
        target = str(repo / f"f{n}.txt")
        s.assistant(tool_use(f"toolu_{n}", "Write", file_path=target, content="x"))
        s.result(
            f"toolu_{n}", "ok", {"type": "create", "filePath": target, "content": "x"}
        )
    s.assistant(text("Done."))
    s.add({"type": "brand-new-type"})
    s.user("Second prompt")
    s.assistant(text("Also done."))
    claude = s.write(tmp_path / "claude" / "s.jsonl", tail='{"type": "user"')
    r = CodexRollout(str(repo))
    r.user("Patch it")
    r.patch(
        "call_1",
        "*** Begin Patch\n*** Delete File: old.txt\n*** End Patch",
        {str(repo / "old.txt"): {"type": "delete"}},
    )
    r.assistant("Deleted.")
    codex = r.write(tmp_path / "codex" / "rollout-2026-03-02T09-00-00-x.jsonl")
    return claude, codex


def test_import_json_reports_conversations_and_line_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    claude, codex = sessions(tmp_path)
    data = tmp_path / "data"

    code = main(["import", "--data-dir", str(data), "--json", str(claude), str(codex)])

    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert set(out) == {"conversations", "skipped_lines", "malformed_lines"}
    assert [(c["title"], c["turns"], c["files"]) for c in out["conversations"]] == [
        ("First prompt", 2, 2),
        ("Patch it", 1, 1),
    ]
    assert all(
        set(c) == {"id", "title", "turns", "files", "workspace", "claimed_workspace"}
        for c in out["conversations"]
    )
    assert (out["skipped_lines"], out["malformed_lines"]) == (1, 1)

    again = main(
        ["import", "--data-dir", str(data), "--json", str(tmp_path / "claude")]
    )
    repeated = json.loads(capsys.readouterr().out)
    assert again == 0
    assert repeated["conversations"][0]["id"] == out["conversations"][0]["id"]


def test_import_without_json_says_what_it_imported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    claude, _ = sessions(tmp_path)
    assert main(["import", "--data-dir", str(tmp_path / "d"), str(claude)]) == 0
    out = capsys.readouterr().out
    assert "Imported 'First prompt'" in out and "2 turns, 2 files" in out
    assert "Skipped 1 line of unknown types and 1 malformed line." in out


def test_a_missing_path_is_a_bad_argument_and_nothing_is_imported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    claude, _ = sessions(tmp_path)
    data = tmp_path / "data"
    code = main(
        ["import", "--data-dir", str(data), str(claude), str(tmp_path / "nope")]
    )
    assert code == 2
    assert "no such file or folder" in capsys.readouterr().err
    assert not data.exists()


def test_nothing_importable_exits_1_and_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    junk = tmp_path / "notes.jsonl"
    junk.write_text("hello\n")
    assert main(["import", "--data-dir", str(tmp_path / "d"), "--json", str(junk)]) == 1
    captured = capsys.readouterr()
    assert "is not a Claude Code session or a Codex rollout" in captured.err
    # A file not recognised as a transcript is not read as one: no counts.
    assert json.loads(captured.out) == {
        "conversations": [],
        "skipped_lines": 0,
        "malformed_lines": 0,
    }


def test_without_workspace_the_claim_is_not_taken_and_stderr_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    claude, _ = sessions(tmp_path)
    data = tmp_path / "data"
    assert main(["import", "--data-dir", str(data), "--json", str(claude)]) == 0
    captured = capsys.readouterr()
    [conversation] = json.loads(captured.out)["conversations"]
    assert conversation["workspace"] is None
    assert conversation["claimed_workspace"] == str(tmp_path / "repo")
    assert "no workspace is confirmed" in captured.err
    assert f"the session says it worked in {tmp_path / 'repo'}" in captured.err
    assert "--workspace DIR" in captured.err


def test_workspace_confirms_the_folder_the_files_are_verified_in(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    claude, _ = sessions(tmp_path)
    (tmp_path / "repo").mkdir()
    data = tmp_path / "data"
    code = main(
        [
            "import",
            "--data-dir",
            str(data),
            "--json",
            "--workspace",
            str(tmp_path / "repo"),
            str(claude),
        ]
    )
    captured = capsys.readouterr()
    assert code == 0 and captured.err == ""
    [conversation] = json.loads(captured.out)["conversations"]
    assert conversation["workspace"] == str(tmp_path / "repo")
    with Store(data) as store:
        found = store.conversation(conversation["id"]).workspace
    assert found == str(tmp_path / "repo")


@pytest.mark.parametrize("given", ["missing", "ssh://devbox/home/me"])
def test_a_workspace_that_is_no_local_folder_is_a_bad_argument(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], given: str
) -> None:
    claude, _ = sessions(tmp_path)
    data = tmp_path / "data"
    workspace = str(tmp_path / given) if given == "missing" else given
    code = main(
        ["import", "--data-dir", str(data), "--workspace", workspace, str(claude)]
    )
    assert code == 2
    assert "--workspace" in capsys.readouterr().err
    assert not data.exists()
