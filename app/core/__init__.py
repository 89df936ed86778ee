"""Host core: records, checks, policy, safe file access, store; no Qt or LangChain."""
