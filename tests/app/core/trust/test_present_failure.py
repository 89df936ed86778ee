"""A failed present reads as one line per entry, never as the model's JSON."""

from __future__ import annotations

import json

from app.core.trust.present_failure import parse_present_failure

RESULT = (
    json.dumps(
        {
            "error": "present failed, nothing was recorded. 2 of 8 entries failed",
            "entries": [
                {"index": 0, "path": "report/indx.html", "reason": "missing",
                 "detail": "no such file"},
                {"index": 3, "path": ".env", "reason": "forbidden",
                 "detail": "denied by .env"},
            ],
        }
    )
    + "\nNothing was presented. Fix or drop every failing entry and call present again."
)  # fmt: skip


def test_each_failing_entry_is_a_readable_line() -> None:
    failure = parse_present_failure(RESULT)
    assert failure is not None
    assert failure.summary() == "2 files could not be presented; nothing was recorded"
    assert failure.lines() == [
        "report/indx.html — not found (no such file)",
        ".env — refused by the read-deny policy (denied by .env)",
    ]
    assert "{" not in failure.text()


def test_a_call_level_failure_says_what_was_wrong() -> None:
    text = json.dumps({"error": "too many", "reason": "too_many", "entries": []})
    failure = parse_present_failure(text)
    assert failure is not None
    assert failure.summary() == "Nothing was presented: more than 8 files were given"


def test_text_that_is_not_the_check_s_json_is_not_a_failure() -> None:
    assert parse_present_failure("present failed: x is missing") is None
    assert parse_present_failure("{not json") is None
    assert parse_present_failure('{"entries": []}') is None


def test_hidden_characters_in_a_path_are_shown() -> None:
    text = json.dumps(
        {"error": "e", "entries": [{"path": "a\u202egnp.exe", "reason": "missing"}]}
    )
    failure = parse_present_failure(text)
    assert failure is not None
    assert "\u202e" not in failure.lines()[0]
