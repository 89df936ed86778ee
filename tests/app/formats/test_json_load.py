"""JSON parsing reports problems instead of raising; the lazy tree builds on demand."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from app.formats import json_load
from app.formats.json_load import (
    JsonDocument,
    JsonProblem,
    JsonStoppedError,
    LazyContainer,
    LazyDocument,
    check_json,
    children,
    load_json,
    load_json_fast,
    load_json_lazy,
    load_json_lines,
    node,
    pretty_json,
)


def test_valid_json_parses_without_warnings():
    result = load_json(b'{"a": [1, 2.5, "x", null, true]}')
    assert result == JsonDocument({"a": [1, 2.5, "x", None, True]}, ())


def test_syntax_error_gives_line_and_column():
    result = load_json(b'{\n  "a": 1,\n  "b": }\n')
    assert isinstance(result, JsonProblem)
    assert (result.line, result.column) == (3, 8)
    assert "Expecting value" in result.message


def test_depth_10000_is_a_problem_not_a_crash():
    result = load_json(b"[" * 10_000 + b"]" * 10_000)
    assert isinstance(result, JsonProblem)
    assert "nested deeper than" in result.message


def test_integer_over_the_digit_limit_is_kept_as_text_with_a_warning():
    digits = "7" * (sys.get_int_max_str_digits() + 1)
    result = load_json(f'{{"big": {digits}, "small": 3}}'.encode())
    assert isinstance(result, JsonDocument)
    assert result.value == {"big": digits, "small": 3}
    assert "kept as text" in result.warnings[0]


def test_nan_and_infinity_are_accepted_with_a_warning():
    result = load_json(b"[NaN, Infinity, -Infinity]")
    assert isinstance(result, JsonDocument)
    assert result.value[1] == float("inf")
    assert result.warnings == (
        "Non-standard values accepted: -Infinity, Infinity, NaN.",
    )


def test_duplicate_keys_keep_the_last_value_and_name_the_path():
    result = load_json(b'{"a": {"b": 1, "b": 2}, "list": [{"k": 0, "k": 1}]}')
    assert isinstance(result, JsonDocument)
    assert result.value == {"a": {"b": 2}, "list": [{"k": 1}]}
    assert sorted(result.warnings) == [
        "Duplicate key $.a.b: the last value is kept.",
        "Duplicate key $.list[0].k: the last value is kept.",
    ]


def test_bom_and_utf16_are_read_and_bad_bytes_are_a_problem():
    assert load_json(b'\xef\xbb\xbf{"a": 1}') == JsonDocument({"a": 1})
    assert load_json('{"é": 1}'.encode("utf-16")) == JsonDocument({"é": 1})
    assert isinstance(load_json(b'{"a": "\xff"}'), JsonProblem)


def test_json_lines_report_each_line_and_skip_blank_ones():
    lines = load_json_lines(b'{"a": 1}\n\n[1,\n"ok"\r\n')
    assert list(lines.numbers) == [1, 3, 4]
    assert lines.line(0) == JsonDocument({"a": 1})
    assert isinstance(lines.line(1), JsonProblem)
    assert list(lines.bad) == [3]
    assert lines.line(2) == JsonDocument("ok")


def test_pretty_print_keeps_non_ascii():
    assert pretty_json({"k": ["é"]}) == '{\n  "k": [\n    "é"\n  ]\n}'


def test_tree_nodes_give_type_and_size_and_children_on_demand():
    value = json.loads(
        '{"items": [1, "two", {"x": null}], "name": "héllo", "ok": false}'
    )
    root = node(value)
    assert (root.kind, root.size, root.key) == ("object", 3, None)
    items, name, ok = children(root)
    assert (items.key, items.kind, items.size, items.has_children) == (
        "items",
        "array",
        3,
        True,
    )
    assert (name.kind, name.size, name.preview()) == ("string", 5, '"héllo"')
    assert (ok.kind, ok.has_children) == ("boolean", False)
    assert [child.key for child in children(items, 1, 5)] == [1, 2]
    assert children(items)[2].preview() == "{1 key}"
    assert children(name) == []


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_as_it_was_after_a_parse_and_a_failure(enabled: bool):
    # Off in the app (its collector runs on the GUI thread): a parse must not
    # turn it on; on in a plain process: a parse must not leave it off.
    import gc

    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        load_json(b'{"a": [1, 2, 3]}')
        assert gc.isenabled() is enabled
        load_json(b'{"a": [1, 2,')
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


def test_the_fast_parse_leaves_duplicate_keys_to_the_check_pass():
    data = b'{"a": {"b": 1, "b": 2}, "list": [{"k": 1, "k": 2}]}'
    fast = load_json_fast(data)
    assert isinstance(fast, JsonDocument) and not fast.checked
    assert fast.value == {"a": {"b": 2}, "list": [{"k": 2}]}
    assert check_json(data) == (
        "Duplicate key $.a.b: the last value is kept.",
        "Duplicate key $.list[0].k: the last value is kept.",
    )
    assert check_json(b'{"a": [1, {"b": 2}]}') == ()


def test_big_documents_are_checked_in_parts_with_the_same_paths(
    monkeypatch: pytest.MonkeyPatch,
):
    monkeypatch.setattr(json_load, "_CHECK_WHOLE", 0)
    data = b'{"a": {"b": 1, "b": 2}, "list": [{"k": 1, "k": 2}], '
    data += b'"z": [[{"q": 1, "q": 1}]]}'
    assert check_json(data) == (
        "Duplicate key $.a.b: the last value is kept.",
        "Duplicate key $.list[0].k: the last value is kept.",
        "Duplicate key $.z[0][0].q: the last value is kept.",
    )
    assert check_json(b"[1, 2, 3]") == ()
    assert check_json(b"[1, 2,") == ()


def test_numbers_past_a_double_or_64_bits_keep_their_value_or_say_so():
    result = load_json(b"[1e400, -1e400, 1.5]")
    assert isinstance(result, JsonDocument)
    assert result.value == [math.inf, -math.inf, 1.5]
    assert any("too large for a double" in note for note in result.warnings)
    big = load_json(b"[18446744073709551617, -9223372036854775809]")
    assert isinstance(big, JsonDocument)
    assert big.value == [2**64 + 1, -(2**63) - 1]  # exact, not rounded


@pytest.mark.parametrize(
    "data",
    [
        b'["\xff"]',
        b'["\xed\xa0\x80"]',
        b"[\x00]",
        b"123\x00",
        b"\xef\xbb",
        b"[1] x",
        b"[1,]",
        b"[" * 100_000,
        b"[" * 5_000 + b"]" * 5_000,
        b'{"a" 1}',
        b"",
    ],
)
def test_invalid_documents_are_a_problem_never_an_exception(data: bytes) -> None:
    assert isinstance(load_json(data), JsonProblem)
    assert isinstance(load_json_lazy(data), JsonProblem)


def test_lone_surrogate_escapes_and_a_bom_are_read():
    assert load_json(b'["\\ud800"]') == JsonDocument(["\ud800"])
    assert load_json(b"\xef\xbb\xbf[1]") == JsonDocument([1])


def _values(container: object) -> list[object]:
    """(key, value) of each child, values as indented text (lazy or built)."""
    root = node(container)
    return [(child.key, pretty_json(child.value)) for child in children(root)]


def _shown(pairs: list[tuple[object, object]]) -> list[object]:
    return [(key, pretty_json(value)) for key, value in pairs]


def test_a_big_document_is_indexed_and_its_children_parsed_on_demand():
    data = b' {"a": [1, 2], "b": {"c": null}, "a": "again", "d": 1e400} '
    lazy = load_json_lazy(data)
    assert isinstance(lazy, LazyDocument)
    assert isinstance(lazy.value, LazyContainer)
    assert _values(lazy.value) == _shown(
        [("a", [1, 2]), ("b", {"c": None}), ("a", "again"), ("d", math.inf)]
    )
    assert "Duplicate key $.a: the last value is kept." in lazy.warnings
    assert any("too large for a double" in note for note in lazy.warnings)
    array_doc = load_json_lazy(b'[{"k": 1, "k": 2}, [], "x"]')
    assert isinstance(array_doc, LazyDocument)
    assert _values(array_doc.value) == _shown([(0, {"k": 2}), (1, []), (2, "x")])
    assert array_doc.warnings == ("Duplicate key $[0].k: the last value is kept.",)
    assert pretty_json(array_doc.value) == pretty_json([{"k": 2}, [], "x"])


def test_a_broken_big_document_names_the_line_and_column():
    problem = load_json_lazy(b"[1,\n 2\n 3]")
    assert isinstance(problem, JsonProblem)
    assert (problem.line, problem.column) == (3, 2)


def test_big_children_are_indexed_too_and_indexing_stops_when_cancelled(
    monkeypatch: pytest.MonkeyPatch,
):
    monkeypatch.setattr(json_load, "LAZY_LIMIT", 10)
    lazy = load_json_lazy(b'{"rows": [[1, 2, 3, 4, 5, 6], 7], "n": 1}')
    assert isinstance(lazy, LazyDocument)
    rows = children(node(lazy.value))[0]
    assert isinstance(rows.value, LazyContainer) and rows.size == 2
    shown = [pretty_json(child.value) for child in children(rows)]
    assert shown == [pretty_json([1, 2, 3, 4, 5, 6]), "7"]
    with pytest.raises(JsonStoppedError):
        load_json_lazy(b"[" + b"1," * 5000 + b"1]", lambda: True)


def test_json_lines_index_huge_lines_and_stop_when_cancelled(
    monkeypatch: pytest.MonkeyPatch,
):
    monkeypatch.setattr(json_load, "_BIG_LINE", 10)
    lines = load_json_lines(b'[1, 2, 3, 4, 5, 6, 7]\n{"a": NaN}\n')
    first = lines.line(0)
    assert isinstance(first, JsonDocument) and isinstance(first.value, LazyContainer)
    assert lines.warnings == ["Line 2: Non-standard values accepted: NaN."]
    with pytest.raises(JsonStoppedError):
        load_json_lines(b"1\n" * 5000, lambda: True)


# The peak resident size of this process (VmHWM starts afresh at exec, where
# ru_maxrss keeps the parent's).
_GROWTH = """
import gc, sys
from pathlib import Path
from app.formats.json_load import LazyDocument, load_json_lazy
def peak():
    status = Path("/proc/self/status").read_text()
    return int(status.split("VmHWM:")[1].split()[0]) * 1024
data = Path(sys.argv[1]).read_bytes()
gc.collect()
before = peak()
result = load_json_lazy(data)
assert isinstance(result, LazyDocument), result
print(len(data), peak() - before)
"""


def big_array(path: Path, count: int) -> Path:
    """An array of ``count`` small records, written without building it whole."""
    with path.open("w", encoding="utf-8") as out:
        out.write("[")
        for n in range(count):
            out.write("," if n else "")
            out.write(f'{{"id": {n}, "name": "item {n}", "tags": ["a", "b"], ')
            out.write(f'"v": {n / 7}}}')
        out.write("]")
    return path


def test_a_big_array_grows_the_process_far_less_than_ten_times_its_size(
    tmp_path: Path,
) -> None:
    """The bound: at most 3x the file (its bytes, its text and 16 bytes a child).

    Building the same array as Python objects takes about 15x.
    """
    path = big_array(tmp_path / "big.json", 300_000)
    done = subprocess.run(
        [sys.executable, "-c", _GROWTH, str(path)],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[3],
        timeout=300,
    )
    size, growth = map(int, done.stdout.split())
    print(f"lazy JSON of {size / 1e6:.1f} MB grew the process {growth / 1e6:.1f} MB")
    assert size > json_load.LAZY_LIMIT
    assert growth <= 3 * size, (size, growth)


def test_a_document_without_objects_skips_the_check_pass(
    monkeypatch: pytest.MonkeyPatch,
):
    def no_scan(*_args: object) -> tuple[str, ...]:
        raise AssertionError("scanned a document that has no object")

    monkeypatch.setattr(json_load, "_CHECK_WHOLE", 0)
    monkeypatch.setattr(json_load, "_check_in_parts", no_scan)
    data = json.dumps([f"value {n}" for n in range(10_000)])
    assert check_json(data.encode()) == () and check_json(data) == ()
    # One object anywhere and the pass runs.
    with pytest.raises(AssertionError):
        check_json(b'["{", {"a": 1}]')


@pytest.mark.parametrize(
    "items",
    [
        [
            {"id": n, "tags": ["a", "b"], "kids": [{"k": n}, {"k": -n}]}
            for n in range(40_000)
        ],
        [f'value "{n}", then, {{more}}' for n in range(60_000)],
        [[n, [n, n], {"n": n}] for n in range(50_000)],
        list(range(200_000)),
        [n / 7 for n in range(100_000)] + [None, True, "}, {", {"a": "], ["}],
    ],
    ids=["objects", "strings", "arrays", "integers", "mixed"],
)
def test_a_big_array_parsed_in_parts_is_the_array_one_parse_gives(
    items: list[object], monkeypatch: pytest.MonkeyPatch
):
    import orjson

    data = json.dumps(items, indent=1 if len(items) == 50_000 else None).encode()
    assert len(data) > 2 * json_load._PART_BYTES
    calls: list[int] = []
    real = orjson.loads

    def counting(part: bytes | str) -> object:
        calls.append(len(part))
        return real(part)

    monkeypatch.setattr(json_load.orjson, "loads", counting)
    result = json_load.load_json_fast(data)
    assert isinstance(result, JsonDocument) and result.value == items
    # No one call holds the interpreter lock for the whole document.
    assert len(calls) > 2 and max(calls) < len(data) / 2


@pytest.mark.parametrize(
    "tail",
    [b", 1,]", b", 1] x", b', {"a": 1,}]', b", 1", b", [1, 2]]]"],
)
def test_an_invalid_big_array_is_still_refused_with_its_problem(tail: bytes):
    data = json.dumps(list(range(300_000))).encode()[:-1] + tail
    assert isinstance(json_load.load_json_fast(data), JsonProblem)


def test_a_long_array_is_indented_in_parts_to_the_same_text(
    monkeypatch: pytest.MonkeyPatch,
):
    import orjson

    from app.formats.json_load import pretty_json

    items = [{"n": n, "é": [n, {"deep": None}], "s": "a\nb"} for n in range(4_321)]
    whole = orjson.dumps(items, option=orjson.OPT_INDENT_2).decode()
    calls: list[int] = []
    real = orjson.dumps

    def counting(value: object, **kwargs: object) -> bytes:
        calls.append(len(value) if isinstance(value, list) else 1)
        return real(value, **kwargs)

    monkeypatch.setattr(json_load.orjson, "dumps", counting)
    assert pretty_json(items) == whole
    assert len(calls) == 5 and max(calls) <= json_load._PRETTY_PART
    for short in ([], [1], list(range(json_load._PRETTY_PART))):
        assert pretty_json(short) == real(short, option=orjson.OPT_INDENT_2).decode()


# -- raw children: the top container read by msgspec, children parsed when shown --


def _tree(value: object) -> object:
    """The plain value behind a tree: every node's children walked and rebuilt."""
    parent = node(value)
    if parent.kind == "object":
        return {child.key: _tree(child.value) for child in children(parent)}
    if parent.kind == "array":
        return [_tree(child.value) for child in children(parent)]
    return value


def _orders(count: int) -> dict[str, object]:
    return {
        "orders": [
            {
                "id": n,
                "customer": {"name": f"Kunde {n} \u00e9\u212a", "vip": n % 3 == 0},
                "items": [{"sku": f"SKU-{n}-{m}", "price": n * 0.25} for m in range(3)],
                "note": None if n % 2 else 'two\nlines, "quoted"',
            }
            for n in range(count)
        ],
        "count": count,
        "empty": {"list": [], "object": {}},
    }


def test_raw_children_build_the_same_tree_and_text_as_a_full_parse(monkeypatch):
    monkeypatch.setattr(json_load, "_RAW_NESTED", 1024)
    value = _orders(400)
    data = json.dumps(value, ensure_ascii=False).encode()
    result = json_load.load_json_raw(data)
    assert isinstance(result, JsonDocument) and not result.checked
    top = result.value
    assert isinstance(top, json_load.RawContainer)
    assert isinstance(top.value(0), json_load.RawContainer)  # the big array
    assert _tree(top) == value
    assert pretty_json(top) == pretty_json(value)
    assert [child.key for child in children(node(top))] == ["orders", "count", "empty"]


def test_raw_children_of_a_top_array(monkeypatch):
    monkeypatch.setattr(json_load, "_RAW_NESTED", 64)
    value = [_orders(3), [[1, 2], {"a": "b" * 100}], "text", 1.5, None, True]
    data = b"\xef\xbb\xbf " + json.dumps(value).encode() + b"\n"
    result = json_load.load_json_raw(data)
    assert isinstance(result, JsonDocument)
    assert _tree(result.value) == value


@pytest.mark.parametrize(
    "data",
    [
        b"[1, NaN]",
        b"[1, 1e400]",
        b"[1, 12345678901234567890123]",
        b'{"a": [1, 2}',
        b'["\\ud800"]',
        b'"just a string"',
        b"42",
        json.dumps([1, 2]).encode("utf-16"),
    ],
)
def test_what_orjson_would_refuse_or_round_takes_the_checked_path(data):
    assert json_load.load_json_raw(data) is None
    # The path it falls back to still says what is wrong, or warns.
    assert isinstance(load_json(data), (JsonDocument, JsonProblem))


def test_a_repeated_key_under_raw_children_keeps_the_last_and_is_noted():
    data = b'{"a": 1, "b": [1, 2], "a": {"x": 2}}'
    result = json_load.load_json_raw(data)
    assert isinstance(result, JsonDocument)
    assert _tree(result.value) == {"a": {"x": 2}, "b": [1, 2]}
    assert check_json(data) == ("Duplicate key $.a: the last value is kept.",)
