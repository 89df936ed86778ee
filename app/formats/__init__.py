"""Qt-free readers of file formats that previews show: text, CSV, JSON, PDF, media.

They read through a verified file and decide nothing about trust: from
``app.core`` they use only the safe open and the file-type service.
"""
