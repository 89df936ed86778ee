"""The apply_patch format, read as data."""

from __future__ import annotations

from app.importers.patch import PatchOp, extract_patch, parse_patch

PATCH = """*** Begin Patch
*** Add File: docs/new.md
+# New
+
+text
*** Update File: src/app.py
*** Move to: src/main.py
@@ def main():
-    print("old")
+    print("new")
+    return 0
*** Delete File: old.txt
*** End Patch"""


def test_a_patch_lists_its_adds_moves_updates_and_deletes() -> None:
    assert parse_patch(PATCH) == [
        PatchOp("add", "docs/new.md", None, "# New\n\ntext\n", 3, 0),
        PatchOp("update", "src/app.py", "src/main.py", None, 2, 1),
        PatchOp("delete", "old.txt", None, None, 0, 0),
    ]


def test_a_patch_is_found_inside_a_shell_script() -> None:
    script = f"cd repo && apply_patch <<'EOF'\n{PATCH}\nEOF\n"
    assert extract_patch(script) == PATCH
    assert extract_patch("ls -la") is None
