"""Previewers, one module per file family, chosen through one ordered registry."""
