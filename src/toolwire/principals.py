"""`Principal`: who a call is made for — the credential behind the request, or `LOCAL`.

Every call has one (``ToolContext.principal``). A server that authenticates its clients sets
it from the verified credential: its issuer, client and subject (`Principal.of_credential`).
Everything else — a library call, stdio, an HTTP server without authentication — is `LOCAL`.

Per-user state belongs to a principal as well as to its session or personality: background
processes, browser contexts, result handles, tasks, todo lists, memory and boards. The owner
key of such state is `Principal.scoped` of what it was before, which leaves it unchanged for
`LOCAL`: nothing changes for library users, and two credentials never share a key.

```python
from toolwire.principals import LOCAL, Principal

alice = Principal.of_credential(issuer="toolwire", client="alice", subject="3f9c0a1b2d4e")
alice.id                       # 'p-…' (32 hex digits): stable, safe in keys and logs
alice.scoped("session:mcp-1")  # 'session:mcp-1~p-…'
LOCAL.scoped("session:mcp-1")  # 'session:mcp-1'
```
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Literal

__all__ = ["LOCAL", "PRINCIPAL_SEPARATOR", "Principal"]

PRINCIPAL_SEPARATOR = "~"
"""What `Principal.scoped` puts between an owner key and a credential's principal id."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Principal:
    """The credential a request was made with (or `LOCAL`).

    Attributes:
        kind: ``"credential"`` (a verified credential) or ``"local"`` (nobody authenticated).
        issuer: Who issued the credential (``toolwire`` for bearer tokens, the OAuth issuer).
        client: The client it was issued to (a bearer token's name, the OAuth client id).
        subject: Whom it stands for (a bearer token's id, a JWT's ``sub``).
    """

    kind: Literal["credential", "local"] = "credential"
    issuer: str | None = None
    client: str = ""
    subject: str | None = None
    _id: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.kind == "local":
            object.__setattr__(self, "_id", "local")
            return
        seed = json.dumps([self.issuer, self.client, self.subject]).encode()
        object.__setattr__(self, "_id", "p-" + hashlib.sha256(seed).hexdigest()[:32])

    @classmethod
    def of_credential(cls, *, issuer: str | None, client: str, subject: str | None) -> Principal:
        """The principal of a verified credential."""
        return cls(kind="credential", issuer=issuer, client=client, subject=subject)

    @property
    def id(self) -> str:
        """A stable id: ``local``, or ``p-`` and 32 hex digits of the credential's triple."""
        return self._id

    @property
    def is_local(self) -> bool:
        """Whether nobody authenticated (library, stdio, a server without authentication)."""
        return self.kind == "local"

    def scoped(self, key: str) -> str:
        """``key`` as this principal's own: unchanged for `LOCAL`, else ``key~<id>``."""
        return key if self.kind == "local" else f"{key}{PRINCIPAL_SEPARATOR}{self._id}"

    def __str__(self) -> str:
        return self._id


LOCAL = Principal(kind="local", client="local")
"""The principal of every call nobody authenticated."""
