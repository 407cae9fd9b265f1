"""The package version: one source, read by the package root, the MCP client and the server."""

__version__ = "0.1.0"
