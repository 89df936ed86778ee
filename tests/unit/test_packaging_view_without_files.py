"""The desktop entry runs ``deliverables view %F``, with no file from the menu."""

from __future__ import annotations

import argparse

import pytest

from app import cli


def test_view_with_no_file_opens_the_window_on_the_conversations(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    opened: list[argparse.Namespace] = []

    def fake_open(args: argparse.Namespace) -> int:
        opened.append(args)
        return 0

    monkeypatch.setattr(cli, "_open", fake_open)
    assert cli.main(["view"]) == 0
    (args,) = opened
    assert args.conversation is None
    assert args.paths == []


def test_view_still_takes_files() -> None:
    args = cli.build_parser().parse_args(["view", "a.txt", "b.md"])
    assert args.paths == ["a.txt", "b.md"]
