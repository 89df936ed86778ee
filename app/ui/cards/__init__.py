"""Deliverable cards: their actions, badges, icons and saved copies."""
