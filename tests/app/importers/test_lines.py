"""Transcript lines: reassembled across chunks, capped, counted."""

from __future__ import annotations

from pathlib import Path

from app.core.trust.safeio import open_verified
from app.importers.lines import LineStats, json_lines, raw_lines


def lines_of(path: Path, **options: int) -> list[tuple[int, bytes | None]]:
    with open_verified(str(path)) as opened:
        return list(raw_lines(opened, **options))


def test_lines_split_across_chunks_come_back_whole(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"first line\nsecond, longer line\n\nlast")

    assert lines_of(path, chunk_size=4) == [
        (1, b"first line"),
        (2, b"second, longer line"),
        (3, b""),
        (4, b"last"),
    ]


def test_a_line_over_the_limit_is_dropped_without_losing_the_next(
    tmp_path: Path,
) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"ok\n" + b"x" * 100 + b"\nafter\n" + b"y" * 50)

    found = lines_of(path, chunk_size=7, max_line=20)

    assert found == [(1, b"ok"), (2, None), (3, b"after"), (4, None)]


def test_json_lines_count_malformed_truncated_and_non_object_lines(
    tmp_path: Path,
) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(
        b'{"type": "a"}\n\n  \n[1, 2]\n{not json\n\xff\xfe\n{"type": "b"}\n{"type": "tr'
    )
    stats = LineStats()
    progress: list[tuple[int, int]] = []
    with open_verified(str(path)) as opened:
        found = list(
            json_lines(
                opened, stats, lambda done, total: progress.append((done, total))
            )
        )

    assert found == [(1, {"type": "a"}), (7, {"type": "b"})]
    assert (stats.lines, stats.skipped, stats.malformed) == (6, 1, 3)
    assert progress[-1] == (path.stat().st_size, path.stat().st_size)


def test_lines_the_fast_parser_refuses_mean_what_they_mean_to_python(
    tmp_path: Path,
) -> None:
    # Past 64 bits (orjson would round it to a float), NaN and a lone surrogate
    # escape (orjson refuses them): Python's parser reads all three as they are.
    lines = [
        b'{"n": 1180591620717411303425}',
        b'{"x": NaN}',
        b'{"s": "\\ud800 half"}',
        '{"t": "caf\u00e9 \u2713"}'.encode(),
    ]
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    stats = LineStats()
    with open_verified(str(path)) as opened:
        found = [value for _, value in json_lines(opened, stats)]

    assert stats.malformed == 0
    assert found[0] == {"n": 2**70 + 1}
    assert found[1]["x"] != found[1]["x"]  # NaN
    assert found[2] == {"s": "\ud800 half"}
    assert found[3] == {"t": "caf\u00e9 \u2713"}
