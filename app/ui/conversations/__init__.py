"""The conversations pane: the list, its rows and the commands on them."""
