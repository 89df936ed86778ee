"""Keeping what the library lists: copies of several items, a conversation exported."""
