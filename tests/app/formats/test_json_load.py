"""JSON parsing reports problems instead of raising; the lazy tree builds on demand."""

from __future__ import annotations

import json
import sys

from app.formats.json_load import (
    JsonDocument,
    JsonProblem,
    children,
    load_json,
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
    assert [line.number for line in lines] == [1, 3, 4]
    assert lines[0].result == JsonDocument({"a": 1})
    assert isinstance(lines[1].result, JsonProblem)
    assert lines[2].result == JsonDocument("ok")


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
    assert children(items)[2].preview() == "{1 keys}"
    assert children(name) == []


def test_the_garbage_collector_is_back_on_after_a_parse_and_a_failure():
    import gc

    assert gc.isenabled()
    load_json(b'{"a": [1, 2, 3]}')
    assert gc.isenabled()
    load_json(b'{"a": [1, 2,')
    assert gc.isenabled()
