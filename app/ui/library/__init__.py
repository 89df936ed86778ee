"""The library: every deliverable of every conversation, beside the conversations."""
