"""Import a module of packaging/ (a folder of scripts, not a package) by name."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
PACKAGING = ROOT / "packaging"


def load(name: str) -> ModuleType:
    """``packaging/<name>.py`` as a module; its siblings import while it loads."""
    sys.path.insert(0, str(PACKAGING))
    try:
        spec = importlib.util.spec_from_file_location(
            f"packaging_{name}", PACKAGING / f"{name}.py"
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        # Registered first: dataclasses look their module up while it loads.
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        return module
    finally:
        # The module may have put the folder on the path itself.
        while str(PACKAGING) in sys.path:
            sys.path.remove(str(PACKAGING))
