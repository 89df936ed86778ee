"""One workspace interface, a local folder or an SSH host, chosen where it is opened."""
