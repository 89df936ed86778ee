"""The per-turn file-change index: what the host's edits changed, and the diffs."""
