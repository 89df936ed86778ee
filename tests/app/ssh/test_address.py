"""ssh:// workspace addresses parse strictly and print the two coordinate forms."""

from __future__ import annotations

import pytest

from app.ssh.address import (
    AddressError,
    Coordinate,
    RemoteAddress,
    is_remote_address,
    parse_address,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ssh://devbox/home/me/work", RemoteAddress("devbox", "/home/me/work")),
        (
            "ssh://me@gpu.example.org:2222/srv/run",
            RemoteAddress("gpu.example.org", "/srv/run", "me", 2222),
        ),
        ("SSH://host/", RemoteAddress("host", "/")),
        ("ssh://[::1]:22/tmp", RemoteAddress("::1", "/tmp", None, 22)),
        ("ssh://h/a/./b/../c//d/", RemoteAddress("h", "/a/c/d")),
        ("ssh://h/with%20space/%C3%A9t%C3%A9", RemoteAddress("h", "/with space/été")),
        ("ssh://us%40er@h/x", RemoteAddress("h", "/x", "us@er")),
    ],
)
def test_addresses_parse_into_their_parts(text: str, expected: RemoteAddress) -> None:
    assert is_remote_address(text)
    assert parse_address(text) == expected


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("/home/me", "starts with ssh://"),
        ("ssh://host", "absolute path"),
        ("ssh:///path", "not a host"),
        ("ssh://-oProxyCommand=x/p", "not a host"),
        ("ssh://-me@host/p", "cannot be used"),
        ("ssh://host:0/p", "port"),
        ("ssh://host:70000/p", "port"),
        ("ssh://host:22a/p", "port"),
        ("ssh://host/a?b", "percent-escaped"),
        ("ssh://host/a#b", "percent-escaped"),
        ("ssh://host/a\nb", "percent-escaped"),
        ("ssh://host/a%2", "broken percent escape"),
        ("ssh://host/a%00b", "NUL"),
        ("ssh://ho st/p", "not a host"),
        ("ssh://[::1/p", "closing ]"),
        ("ssh://host/%ff", "UTF-8"),
    ],
)
def test_bad_addresses_say_what_is_wrong(text: str, words: str) -> None:
    with pytest.raises(AddressError, match=words.replace("?", r"\?")):
        parse_address(text)


def test_an_address_prints_back_to_what_parses_the_same() -> None:
    address = RemoteAddress("h", "/a b/été/x#y", "me", 2200)
    assert parse_address(str(address)) == address
    assert str(RemoteAddress("h", "/p")) == "ssh://h/p"


def test_a_coordinate_has_a_url_form_and_an_scp_form() -> None:
    coordinate = Coordinate("me", "devbox", 2222, "/srv/out/report final.html")
    assert coordinate.url() == "ssh://me@devbox:2222/srv/out/report%20final.html"
    assert coordinate.scp() == "me@devbox:/srv/out/report final.html"
    assert parse_address(coordinate.url()).path == coordinate.path
    assert Coordinate("me", "::1", 22, "/x").url() == "ssh://me@[::1]:22/x"
    assert Coordinate("me", "::1", 22, "/x").scp() == "me@[::1]:/x"
