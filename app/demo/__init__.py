"""The built-in demo: a workspace an agent made, played through the real runner.

``workspace`` builds the files (their texts come from ``resources/demo``),
``conversation`` plays the scripted turns into the store.
"""
