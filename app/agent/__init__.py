"""Agent side: LangChain tools, middleware, runner and the scripted demo (no Qt)."""
