"""Where the app's own files are: icons, the stylesheet and the demo's sources.

They live in ``resources/`` beside the ``app`` package: at the top of a
checkout (and so of an editable install), and at the top of a frozen bundle,
whose data the build copies there. A wheel carries them inside the package,
as ``app/_resources``, since its top level is shared with every other package.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def resources_folder() -> Path:
    """The folder that holds the app's resources, in whichever layout it runs."""
    packaged = _PACKAGE / "_resources"
    return packaged if packaged.is_dir() else _PACKAGE.parent / "resources"


def resource_path(*parts: str) -> Path:
    """The path of one resource, e.g. ``resource_path("demo", "notes", "summary.md")``.

    Raises ``FileNotFoundError`` naming the path when the resource is missing,
    so a broken install says what it lacks.
    """
    path = resources_folder().joinpath(*parts)
    if not path.is_file():
        raise FileNotFoundError(f"a resource of the app is missing: {path}")
    return path
