"""Deliverables: see, open and keep what AI agents made for you."""
