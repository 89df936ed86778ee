"""Host core: no Qt, LangChain or SSH, in packages ordered by a layers contract.

chat > changes > imported > store > serve | channel > trust > filetype: each imports
only those below it (ADR 15).
"""
