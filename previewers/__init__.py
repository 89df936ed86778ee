"""Previewers: one package per family of files, chosen by one ordered registry.

``registry`` holds the table; ``source``, ``widget``, ``widgets`` and
``context`` are what every family shares; each family package (``text``,
``markdown``, ``json``, ``csv``, ``image``, ``media``, ``pdf``, ``web``,
``fallback``) has its cheap ``Previewer`` in ``__init__`` and its widgets in the
modules beside it. Families never import each other.
"""
