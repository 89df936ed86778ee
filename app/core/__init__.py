"""Host core: records, declaration checks, policy, safe file access, store (no Qt, no LangChain)."""
