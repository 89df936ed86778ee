"""Host core, no Qt, LangChain or SSH, in layers: chat > changes > imported > store >
serve | channel > trust > filetype (each imports only those below it)."""
