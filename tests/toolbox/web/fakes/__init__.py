"""Local servers speaking the real HTTP APIs of the web search providers (for the tests)."""
