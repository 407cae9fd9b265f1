"""toolwire: the tool layer for Python LLM agents."""
