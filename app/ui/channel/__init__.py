"""The window's end of the channel: requests from other processes, shown live."""
