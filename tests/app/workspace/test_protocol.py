"""One behaviour suite for every ``Workspace``: the local folder and the SSH host.

Each test builds the same tree and runs the same calls against both backends;
the SSH one is a real OpenSSH sshd serving this machine's folder.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.trust.declare import DeclarationError
from app.core.trust.policy import PermissionMode
from app.core.trust.records import FileEntry
from app.core.trust.safeio import SafeOpenError
from app.core.trust.verdicts import DIRECTORY, REGULAR, SYMLINK, Verdict
from app.formats.text_pages import FenceBrokenError
from app.remote.manager import RemoteManager
from app.ssh.address import is_remote_address
from app.workspace.choose import open_workspace
from app.workspace.protocol import PreviewFile, Workspace
from tests.remote.fixtures import SshHome

WAIT = 30
WORKSPACE_ONLY = PermissionMode.WORKSPACE_ONLY


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """The workspace both backends serve, with a secret and links leading out."""
    root = tmp_path / "ws"
    (root / "report").mkdir(parents=True)
    (root / "report" / "index.html").write_text("<h1>Report</h1>")
    (root / "notes.md").write_text("# Notes\n")
    (root / ".env").write_text("API_KEY=secret\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("not for the agent\n")
    (root / "escape").symlink_to(outside / "secret.txt")
    (root / "door").symlink_to(outside)
    (root / "within").symlink_to(root / "report")
    return Path(os.path.realpath(root))


@pytest.fixture(params=["local", "ssh"])
def ws(request: pytest.FixtureRequest, tree: Path) -> Iterator[Workspace]:
    if request.param == "local":
        yield open_workspace(str(tree)).result(WAIT)
        return
    ssh_home: SshHome = request.getfixturevalue("ssh_home")
    manager: RemoteManager = request.getfixturevalue("manager")
    yield open_workspace(ssh_home.address(tree), manager).result(WAIT)


def refusal(ws: Workspace, path: str, limit: int = 1 << 20) -> str:
    with pytest.raises(SafeOpenError) as raised:
        ws.read(path, limit=limit).result(WAIT)
    return raised.value.reason


def presented(ws: Workspace, name: str = "notes.md") -> FileEntry:
    arguments = {"files": [{"path": name, "description": "the notes"}]}
    record = ws.present(arguments, mode=WORKSPACE_ONLY).result(WAIT)
    [entry] = record.files
    return entry


def replace(path: Path, text: str) -> None:
    """Another file at ``path``, swapped in by a rename as editors do."""
    swap = path.with_name(path.name + ".swap")
    swap.write_text(text)
    swap.replace(path)


def test_the_root_is_the_real_folder(ws: Workspace, tree: Path) -> None:
    assert ws.root == str(tree)


def test_only_a_local_workspace_has_a_folder_on_this_computer(
    ws: Workspace, tree: Path
) -> None:
    # The ssh:// one is served from this very folder, yet is another host's.
    expected = None if is_remote_address(ws.address) else str(tree)
    assert ws.local_root == expected


def test_only_a_local_workspace_offers_its_files_to_desktop_apps(
    ws: Workspace,
) -> None:
    # Same folder, same machine: still, a host's path is never handed here.
    assert (ws.native is None) is is_remote_address(ws.address)


def test_a_listing_names_kinds_and_flags_denied_names(ws: Workspace) -> None:
    listing = ws.list().result(WAIT)
    entries = listing.entries
    assert not listing.truncated
    found = {(entry.name, entry.kind, entry.denied_by is not None) for entry in entries}
    assert found == {
        (".env", REGULAR, True),
        ("door", SYMLINK, False),
        ("escape", SYMLINK, False),
        ("notes.md", REGULAR, False),
        ("report", DIRECTORY, False),
        ("within", SYMLINK, False),
    }
    assert [entry.name for entry in entries] == sorted(e.name for e in entries)


def test_a_listing_shows_where_each_link_points_without_following_it(
    ws: Workspace, tree: Path
) -> None:
    targets = {
        entry.name: entry.link_target for entry in ws.list().result(WAIT).entries
    }
    outside = tree.parent / "outside"
    assert targets["escape"] == str(outside / "secret.txt")
    assert targets["door"] == str(outside)
    assert targets["within"] == str(tree / "report")
    assert targets["notes.md"] is None
    assert targets["report"] is None


def test_a_listing_over_its_limit_says_it_was_cut_short(ws: Workspace) -> None:
    listing = ws.list(limit=4).result(WAIT)
    assert listing.truncated
    assert len(listing.entries) == 4
    names = [entry.name for entry in listing.entries]
    assert names == sorted(names)
    assert not ws.list(limit=6).result(WAIT).truncated


def test_a_file_is_named_by_its_path_and_from_elsewhere_by_its_host(
    ws: Workspace, tree: Path
) -> None:
    path = str(tree / "my notes.md")
    found = ws.coordinates(path)
    assert found.path == path
    assert ws.coordinates("my notes.md") == found
    if not is_remote_address(ws.address):
        assert ws.host is None
        assert (found.url, found.scp) == (None, None)
        return
    # The URL escapes the name and always gives the port; scp takes it raw.
    assert found.url == f"{ws.address}/my%20notes.md"
    assert ws.host is not None and f"@{ws.host}:" in ws.address
    assert found.scp is not None
    who, _, where = found.scp.partition(":")
    assert (where, "@" in who) == (path, True)


def test_a_folder_behind_a_link_leading_out_is_not_listed(ws: Workspace) -> None:
    with pytest.raises(SafeOpenError) as raised:
        ws.list("door").result(WAIT)
    assert raised.value.reason == "outside"


def test_a_look_up_does_not_follow_a_final_link(ws: Workspace) -> None:
    assert ws.stat("escape").result(WAIT).kind == SYMLINK
    assert ws.stat(".env").result(WAIT).denied_by is not None
    notes = ws.stat("notes.md").result(WAIT)
    assert (notes.kind, notes.size, notes.denied_by) == (REGULAR, 8, None)


def test_a_workspace_file_is_read_whole(ws: Workspace) -> None:
    assert ws.read("notes.md", limit=1 << 20).result(WAIT) == b"# Notes\n"
    assert ws.read("within/index.html", limit=100).result(WAIT) == b"<h1>Report</h1>"


def test_a_policy_denied_name_is_refused(ws: Workspace) -> None:
    assert refusal(ws, ".env") == "denied"
    with pytest.raises(DeclarationError) as raised:
        presented(ws, ".env")
    assert [failure.reason for failure in raised.value.failures] == ["forbidden"]


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("escape", "symlink"),
        ("door/secret.txt", "outside"),
        ("../outside/secret.txt", "outside"),
        ("report", "not_regular"),
        ("nothing.txt", "missing"),
    ],
)
def test_what_is_no_workspace_file_is_refused(
    ws: Workspace, path: str, reason: str
) -> None:
    assert refusal(ws, path) == reason


def test_a_file_over_the_limit_is_refused(ws: Workspace) -> None:
    assert refusal(ws, "notes.md", limit=3) == "too_large"


def test_present_refuses_links_and_files_outside(ws: Workspace) -> None:
    arguments = {
        "files": [
            {"path": "escape", "description": "a link"},
            {"path": "../outside/secret.txt", "description": "outside"},
        ]
    }
    with pytest.raises(DeclarationError) as raised:
        ws.present(arguments, mode=WORKSPACE_ONLY).result(WAIT)
    assert [failure.reason for failure in raised.value.failures] == [
        "symlink",
        "forbidden",
    ]


def test_a_presented_file_unchanged_is_ok(ws: Workspace) -> None:
    entry = presented(ws)
    check = ws.revalidate(entry, trusted=True, mode=WORKSPACE_ONLY).result(WAIT)
    assert check.verdict is Verdict.OK


def test_an_untrusted_record_is_refused(ws: Workspace) -> None:
    entry = presented(ws)
    check = ws.revalidate(entry, trusted=False).result(WAIT)
    assert check.verdict is Verdict.UNTRUSTED


def test_a_file_swapped_after_present_is_changed(ws: Workspace, tree: Path) -> None:
    entry = presented(ws)
    replace(tree / "notes.md", "# Other notes, longer\n")
    check = ws.revalidate(entry, trusted=True).result(WAIT)
    assert check.verdict is Verdict.CHANGED


def test_a_file_swapped_for_a_link_after_present_is_refused(
    ws: Workspace, tree: Path
) -> None:
    entry = presented(ws)
    (tree / "notes.md").unlink()
    (tree / "notes.md").symlink_to(tree.parent / "outside" / "secret.txt")
    check = ws.revalidate(entry, trusted=True).result(WAIT)
    assert check.verdict is Verdict.SYMLINK


def test_a_file_removed_after_present_is_missing(ws: Workspace, tree: Path) -> None:
    entry = presented(ws)
    (tree / "notes.md").unlink()
    check = ws.revalidate(entry, trusted=True).result(WAIT)
    assert check.verdict is Verdict.MISSING


def test_a_copy_is_saved_of_the_checked_version(ws: Workspace, tmp_path: Path) -> None:
    entry = presented(ws)
    target = tmp_path / "saved.md"
    result = ws.save_copy(entry, str(target), trusted=True).result(WAIT)
    assert result.ok
    assert target.read_bytes() == b"# Notes\n"


def test_a_save_tells_its_progress_up_to_the_whole_file(
    ws: Workspace, tree: Path, tmp_path: Path
) -> None:
    data = os.urandom(3 << 20)
    (tree / "big.bin").write_bytes(data)
    entry = presented(ws, "big.bin")
    heard: list[tuple[int, int]] = []
    target = tmp_path / "big.bin"
    result = ws.save_copy(
        entry, str(target), trusted=True, progress=lambda *told: heard.append(told)
    ).result(WAIT)
    assert result.ok
    assert target.read_bytes() == data
    assert heard and heard[-1] == (len(data), len(data))
    assert [done for done, _total in heard] == sorted(done for done, _ in heard)


def test_a_cancelled_save_leaves_the_target_as_it_was(
    ws: Workspace, tmp_path: Path
) -> None:
    entry = presented(ws)
    (tmp_path / "saves").mkdir()
    target = tmp_path / "saves" / "saved.md"
    target.write_text("kept\n")
    result = ws.save_copy(
        entry, str(target), trusted=True, is_cancelled=lambda: True
    ).result(WAIT)
    assert (result.ok, result.cancelled) == (False, True)
    assert target.read_text() == "kept\n"
    assert os.listdir(tmp_path / "saves") == ["saved.md"]  # no part left


def test_no_copy_is_saved_of_a_file_swapped_for_a_link(
    ws: Workspace, tree: Path, tmp_path: Path
) -> None:
    entry = presented(ws)
    (tree / "notes.md").unlink()
    (tree / "notes.md").symlink_to(tree.parent / "outside" / "secret.txt")
    target = tmp_path / "saved.md"
    with pytest.raises(SafeOpenError) as raised:
        ws.save_copy(entry, str(target), trusted=True).result(WAIT)
    assert raised.value.reason == "symlink"
    assert not target.exists()


def test_a_workspace_file_is_saved_as_the_version_checked_now(
    ws: Workspace, tmp_path: Path
) -> None:
    target = tmp_path / "saved.md"
    heard: list[tuple[int, int]] = []
    result = ws.save_file(
        "within/index.html", str(target), progress=lambda *told: heard.append(told)
    ).result(WAIT)
    assert result.ok
    assert target.read_bytes() == b"<h1>Report</h1>"
    assert heard[-1] == (15, 15)


@pytest.mark.parametrize(
    ("path", "reason"), [(".env", "denied"), ("escape", "symlink"), ("report", None)]
)
def test_a_refused_workspace_file_is_not_saved(
    ws: Workspace, tmp_path: Path, path: str, reason: str | None
) -> None:
    target = tmp_path / "saved"
    with pytest.raises(SafeOpenError) as raised:
        ws.save_file(path, str(target)).result(WAIT)
    if reason is not None:
        assert raised.value.reason == reason
    assert not target.exists()


# -- a file opened for a preview -------------------------------------------------


def opened_for_preview(ws: Workspace, file: str | FileEntry) -> PreviewFile:
    return ws.open_for_preview(file, mode=WORKSPACE_ONLY).result(WAIT)


def preview_refusal(ws: Workspace, file: str | FileEntry) -> SafeOpenError:
    with pytest.raises(SafeOpenError) as raised:
        opened_for_preview(ws, file)
    return raised.value


def test_a_preview_reads_the_head_then_takes_the_version_opened(
    ws: Workspace, tree: Path
) -> None:
    opened = opened_for_preview(ws, "within/index.html")
    assert opened.path == str(tree / "report" / "index.html")
    assert opened.fence.size == 15
    assert opened.read(4, 0) == b"<h1>"
    with opened.whole(15).result(WAIT) as whole:
        assert whole.read() == b"<h1>Report</h1>"
    opened.close()  # handed over: nothing left to close


def test_a_paged_preview_reads_the_version_opened(ws: Workspace) -> None:
    with opened_for_preview(ws, "notes.md").paged() as paged:
        assert paged.read(7, 2) == b"Notes\n"


def test_a_record_opens_for_its_preview_while_unchanged(ws: Workspace) -> None:
    opened = opened_for_preview(ws, presented(ws))
    with opened.whole(1 << 20).result(WAIT) as whole:
        assert whole.read() == b"# Notes\n"


def test_a_file_changed_after_it_was_presented_is_not_previewed(
    ws: Workspace, tree: Path
) -> None:
    entry = presented(ws)
    replace(tree / "notes.md", "# Other notes, longer\n")
    refused = preview_refusal(ws, entry)
    assert refused.reason == "changed"
    assert "since it was presented" in str(refused)


def test_a_presented_file_swapped_for_a_link_is_not_previewed(
    ws: Workspace, tree: Path
) -> None:
    entry = presented(ws)
    (tree / "notes.md").unlink()
    (tree / "notes.md").symlink_to(tree.parent / "outside" / "secret.txt")
    assert preview_refusal(ws, entry).reason == "symlink"


def test_a_file_changed_after_it_was_opened_is_not_read_as_that_version(
    ws: Workspace, tree: Path
) -> None:
    opened = opened_for_preview(ws, "notes.md")
    with (tree / "notes.md").open("a") as notes:
        notes.write("more, on another second\n")
    with pytest.raises(FenceBrokenError):
        opened.read(8, 0)
    with pytest.raises(SafeOpenError) as raised:
        opened.whole(1 << 20).result(WAIT)
    assert raised.value.reason == "changed"


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        (".env", "denied"),
        ("escape", "symlink"),
        ("door/secret.txt", "outside"),
        ("../outside/secret.txt", "outside"),
        ("report", "not_regular"),
        ("nothing.txt", "missing"),
    ],
)
def test_what_a_preview_may_not_show_is_refused(
    ws: Workspace, path: str, reason: str
) -> None:
    assert preview_refusal(ws, path).reason == reason


def test_a_file_over_the_previews_limit_is_refused_in_words(ws: Workspace) -> None:
    opened = opened_for_preview(ws, "notes.md")
    with pytest.raises(SafeOpenError) as raised:
        opened.whole(4).result(WAIT)
    assert raised.value.reason == "too_large"
    assert str(raised.value).startswith("notes.md is 8 bytes, more than the 4 bytes")
    assert "save it to a local folder" in str(raised.value)
