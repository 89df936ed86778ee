"""The collector pause: held from any thread, the collector's state put back."""

from __future__ import annotations

import gc
import threading

import pytest

from app.formats.collection import collector_paused, paused


@pytest.mark.parametrize("enabled", [True, False])
def test_a_pause_turns_collection_off_and_puts_it_back(enabled: bool) -> None:
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        assert not paused()
        with collector_paused():
            assert paused() and not gc.isenabled()
        assert not paused() and gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


def test_collection_stays_off_until_the_last_pause_in_any_thread_ends() -> None:
    was = gc.isenabled()
    gc.enable()
    entered, leave = threading.Event(), threading.Event()

    def hold() -> None:
        with collector_paused():
            entered.set()
            leave.wait(5)

    other = threading.Thread(target=hold)
    try:
        other.start()
        assert entered.wait(5)
        with collector_paused():
            pass
        assert paused() and not gc.isenabled()  # the other thread still holds one
        leave.set()
        other.join(5)
        assert not paused() and gc.isenabled()
    finally:
        leave.set()
        (gc.enable if was else gc.disable)()
