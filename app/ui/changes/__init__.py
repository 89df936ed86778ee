"""Imported sessions and their changes: the import dialog, the claimed folder, diffs."""
