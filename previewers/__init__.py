"""Previewers: one package per family of files, chosen by one ordered registry.

``registry`` holds the table; ``source``, ``widget``, ``widgets``,
``context``, ``highlight`` and ``qimage`` are what every family (and the
window) shares; each family package (``text``,
``markdown``, ``json``, ``csv``, ``image``, ``media``, ``pdf``, ``web``,
``fallback``) has its cheap ``Previewer`` in ``__init__`` and its widgets in the
modules beside it. Families never import each other.
"""
