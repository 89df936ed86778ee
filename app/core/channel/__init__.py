"""The per-user local channel by which other processes tell the window of a change."""
