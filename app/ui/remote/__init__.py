"""Remote workspaces in the window: the address dialog and SSH's questions."""
