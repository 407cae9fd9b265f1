"""Authentication for ``toolwire serve --http``: bearer tokens and OAuth 2.1 resource-server
mode, each credential limited to the toolsets and tools it was granted.

- `toolwire.mcp.server.auth.settings`: the ``[auth]`` table (`AuthSettings`, `OAuthSettings`);
  importable without the MCP SDK; `toolwire.mcp.server.auth._env`: the ``TOOLWIRE_AUTH_*`` variables
  over it.
- `toolwire.mcp.server.auth.tokens`: `TokenStore`, the bearer tokens of ``toolwire token``, hashed
  in the configured key-value store.
- `toolwire.mcp.server.auth._oauth` and `toolwire.mcp.server.auth._jwks`: JWTs checked against the
  issuer's JWKS; `toolwire.mcp.server.auth._discovery`: its URL from the issuer's metadata (RFC
  8414, OpenID).
- `toolwire.mcp.server.auth._guard`: the ASGI middleware answering 400/401/403 with
  ``WWW-Authenticate`` (only ``Authorization`` carries a credential);
  `toolwire.mcp.server.auth.access`: ``tools/list`` and ``tools/call`` per grant;
  `toolwire.mcp.server.auth.server_auth`: `ServerAuth`, all of it for one endpoint.
- `toolwire.mcp.server.auth._exposure`: the refusal to serve beyond loopback without authentication.

See ``docs/mcp.md`` (Authentication).

Also here: ``_credentials.py`` (`GrantedAccessToken`, `TokenRejected`), ``grants.py`` (`Grant`:
what one credential may list and call), ``_verifier.py`` (`CredentialVerifier`: a token or a JWT →
its principal), ``_principals.py`` (the principal of an HTTP request) and ``_fetch.py``
(`fetch_json`: one bounded GET of an issuer's document).
"""
