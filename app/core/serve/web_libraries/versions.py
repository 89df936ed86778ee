"""Version specifiers as CDN URLs write them, and which bundled version answers one.

A URL names an exact version (``4.4.1``, three.js's ``r128``), a range (``4``,
``4.x``, ``3.x.x``, ``^4.2.0``, ``~4.4``) or none at all (no version, or
``latest``). A range is answered by the newest bundled version inside it, no
version by the newest bundled one. A version we do not ship is answered by
the nearest one of its series, and the caller is told so; another series is
not answered at all, since its API differs.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable
from dataclasses import dataclass

Version = tuple[int, int, int]

# "semver": a major version is a series, and below 1.0 each 0.y is one (as a
# caret range reads them). "any": all releases are one series, for three.js,
# whose monthly 0.y releases keep the API a page uses.
VERSIONINGS = ("semver", "any")

_EXACT = re.compile(r"v?(\d+)\.(\d+)\.(\d+)(-[0-9A-Za-z.-]+)?")
_RELEASE = re.compile(r"r(\d+)")  # three.js's own numbering: r128 is 0.128.0
_PARTIAL = re.compile(r"([~^]?)v?(\d+)(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?")
_LATEST = ("", "latest")


class VersionMatch(enum.Enum):
    """How the served version answers the version the URL asked for."""

    EXACT = "exact"  # the URL named this very version
    RANGE = "range"  # the URL named a range or none, and this version is in it
    NEAREST = "nearest"  # the URL named a version we lack; this is the nearest
    STAND_IN = "stand-in"  # the URL's library is served by its successor


@dataclass(frozen=True)
class Spec:
    """A parsed version specifier: an exact version, a range, or anything."""

    text: str
    exact: Version | None = None
    prerelease: bool = False
    low: Version | None = None  # inclusive
    high: Version | None = None  # exclusive

    @property
    def anything(self) -> bool:
        return self.exact is None and self.low is None

    @property
    def anchor(self) -> Version | None:
        """The version the specifier is nearest to, when it names one."""
        return self.exact if self.exact is not None else self.low


def parse_version(text: str) -> Version | None:
    """``"4.6.1"`` as ``(4, 6, 1)``; ``None`` for anything else."""
    found = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)", text)
    return (int(found[1]), int(found[2]), int(found[3])) if found else None


def parse_spec(text: str) -> Spec | None:
    """The specifier a URL wrote, or ``None`` when it is no version we read."""
    if text.lower() in _LATEST:
        return Spec(text)
    if found := _EXACT.fullmatch(text):
        version = (int(found[1]), int(found[2]), int(found[3]))
        return Spec(text, exact=version, prerelease=found[4] is not None)
    if found := _RELEASE.fullmatch(text):
        return Spec(text, exact=(0, int(found[1]), 0))
    found = _PARTIAL.fullmatch(text)
    if found is None:
        return None
    operator, major_text, minor_text, patch_text = found.groups()
    major = int(major_text)
    minor = int(minor_text) if minor_text and minor_text.isdigit() else None
    patch = int(patch_text) if patch_text and patch_text.isdigit() else None
    if minor is None and patch is not None:
        return None  # "4.x.1" names nothing
    low = (major, minor or 0, patch or 0)
    if operator == "~" and minor is not None:
        high = (major, minor + 1, 0)
    elif operator == "^" and major == 0 and minor is not None:
        high = (0, minor + 1, 0)
    elif operator or minor is None:
        high = (major + 1, 0, 0)
    else:
        high = (major, minor + 1, 0)  # "4.4" and "4.4.x" mean 4.4.*
    return Spec(text, low=low, high=high)


def series(version: Version, versioning: str) -> tuple[int, ...]:
    """The versions a page written for ``version`` can run on share this key."""
    if versioning == "any":
        return ()
    return (version[0],) if version[0] else (0, version[1])


@dataclass(frozen=True)
class Choice:
    """The bundled version that answers a specifier, and how well."""

    version: Version
    match: VersionMatch


def choose(spec: Spec, shipped: Iterable[Version], versioning: str) -> Choice | None:
    """The bundled version to serve for ``spec``, or ``None`` if none fits."""
    candidates = sorted(set(shipped), reverse=True)
    if not candidates:
        return None
    if spec.anything:
        return Choice(candidates[0], VersionMatch.RANGE)
    anchor = spec.anchor
    assert anchor is not None
    if spec.exact is not None and not spec.prerelease and spec.exact in candidates:
        return Choice(spec.exact, VersionMatch.EXACT)
    if spec.low is not None and spec.high is not None:
        inside = [v for v in candidates if spec.low <= v < spec.high]
        if inside:
            return Choice(inside[0], VersionMatch.RANGE)
    key = series(anchor, versioning)
    related = [v for v in candidates if series(v, versioning) == key]
    if not related:
        return None
    # Nearest by major, then minor, then patch; the newer wins a tie.
    nearest = min(
        related,
        key=lambda v: (
            tuple(abs(a - b) for a, b in zip(v, anchor, strict=True)),
            [-n for n in v],
        ),
    )
    return Choice(nearest, VersionMatch.NEAREST)


def format_version(version: Version) -> str:
    return ".".join(str(part) for part in version)
