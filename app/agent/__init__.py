"""Agent side: LangChain tools, middleware, runner and the scripted demo model (no Qt)."""
