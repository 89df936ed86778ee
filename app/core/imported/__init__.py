"""Sessions imported from other agents: their files, verified against the file now."""
