"""Authentication for ``toolwire serve --http``: bearer tokens and OAuth 2.1 resource-server
mode, each credential limited to the toolsets and tools it was granted.

- `toolwire.mcp.auth.settings`: the ``[auth]`` table (`AuthSettings`, `OAuthSettings`);
  importable without the MCP SDK; `toolwire.mcp.auth.env`: the ``TOOLWIRE_AUTH_*`` variables
  over it.
- `toolwire.mcp.auth.tokens`: `TokenStore`, the bearer tokens of ``toolwire token``, hashed
  in the configured key-value store.
- `toolwire.mcp.auth.oauth` and `toolwire.mcp.auth.jwks`: JWTs checked against the issuer's
  JWKS; `toolwire.mcp.auth.discovery`: its URL from the issuer's metadata (RFC 8414, OpenID).
- `toolwire.mcp.auth.guard`: the ASGI middleware answering 400/401/403 with
  ``WWW-Authenticate`` (only ``Authorization`` carries a credential);
  `toolwire.mcp.auth.access`: ``tools/list`` and ``tools/call`` per grant;
  `toolwire.mcp.auth.server_auth`: `ServerAuth`, all of it for one endpoint.
- `toolwire.mcp.auth.exposure`: the refusal to serve beyond loopback without authentication.

See ``docs/mcp.md`` (Authentication).
"""
