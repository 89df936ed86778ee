"""The window: its parts put together, layout, menus, settings and start-up."""
