"""`CapabilityKind`: the one record that says everything about a kind of capability.

| part | what it is (``storage`` as the example) |
| --- | --- |
| ``name`` | ``"storage"``: its key in `ToolCapabilities.declared`, `BACKEND_SETUP_HINTS`,
``ctx.extra_seams`` |
| ``declaration`` | `StorageCapability`, built by the factory ``storage(...)`` |
| ``context_field`` | ``"kv_store"``; ``None`` for a kind that is not in spec 01 (its seam goes to
``ctx.extra_seams``) |
| ``resolve`` | ``(declaration, Resolution) -> seam | None``: build the seam for one call |
| ``backend`` | reads the backend the kind needs off `CapabilityBackends` (``None``: needs none) |
| ``setup_hint`` | how to provide that backend when it is missing |
| ``implied`` | the declaration the kind takes when the tool did not declare it but others imply it
|

The resolver loops over the table `toolwire.capabilities.KINDS`, then over the kinds of a tool's
other declarations: a new built-in kind is one module (its declaration, factory and this record; its
seam protocol and values in `toolwire.capabilities.seams`) and one row of `KINDS`, and a kind of
your own is one module of yours. A tool reads any kind's seam with ``ctx.seam(KIND)``. Creating a
kind registers its declaration type, so `ToolCapabilities.of` accepts its declarations; a name or a
declaration type belongs to one kind only."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Literal, Protocol, TypeAlias, TypeVar

from toolwire.errors import ToolDefinitionError

if TYPE_CHECKING:
    from toolwire.capabilities._backends import CapabilityBackends, CapabilityScope

__all__ = [
    "EXTRA_SEAMS_FIELD",
    "SEAM_FIELDS",
    "SPEC_SEAM_FIELDS",
    "Capability",
    "CapabilityKind",
    "ContextField",
    "Declarations",
    "Resolution",
    "kind_name",
    "kind_of",
    "non_empty_strings",
]

ContextField: TypeAlias = Literal[
    "kv_store", "secrets_resolver", "scoped_fetch", "scoped_fs", "scoped_process", "attachments"
]
SPEC_SEAM_FIELDS: tuple[ContextField, ...] = (
    "kv_store",
    "secrets_resolver",
    "scoped_fetch",
    "scoped_fs",
    "scoped_process",
    "attachments",
)
"""The typed seam fields of `ToolContext` (spec 01); each belongs to one built-in kind."""

EXTRA_SEAMS_FIELD = "extra_seams"
"""The `ToolContext` field holding the seams of kinds beyond spec 01, by kind name."""

SEAM_FIELDS: tuple[str, ...] = (*SPEC_SEAM_FIELDS, EXTRA_SEAMS_FIELD)
"""Every `ToolContext` attribute a kind fills: clear them all and a tool reaches nothing."""


class Capability:
    """Base of every capability declaration (a frozen dataclass per kind, built by a factory)."""

    __slots__ = ()


D = TypeVar("D", bound=Capability)
S = TypeVar("S")

_KIND_BY_DECLARATION: dict[type, CapabilityKind[Any, Any]] = {}
_KIND_BY_NAME: dict[str, CapabilityKind[Any, Any]] = {}


def kind_of(declaration: object) -> CapabilityKind[Any, Any] | None:
    """The kind ``declaration`` belongs to, or ``None`` when it is not a declaration."""
    return _KIND_BY_DECLARATION.get(type(declaration))


def kind_name(declaration: object) -> str | None:
    """The name of the kind ``declaration`` belongs to, or ``None`` when it is not one."""
    kind = _KIND_BY_DECLARATION.get(type(declaration))
    return None if kind is None else kind.name


def non_empty_strings(what: str, values: Iterable[str]) -> tuple[str, ...]:
    """``values`` as a tuple of non-empty strings (a factory's list argument).

    Raises:
        ToolDefinitionError: a single string instead of a list, or an empty entry.
    """
    if isinstance(values, str):
        raise ToolDefinitionError(
            f"{what} takes a list of strings, not a single string: [{values!r}]"
        )
    out = tuple(values)
    for value in out:
        if not isinstance(value, str) or not value.strip():
            raise ToolDefinitionError(f"{what} entries must be non-empty strings, got {value!r}")
    return out


class Declarations(Protocol):
    """A tool's declarations, by kind (what `ToolCapabilities` is)."""

    def get(self, kind: CapabilityKind[D, Any]) -> D | None:
        """The declaration of ``kind``, or ``None``."""
        ...


@dataclass(frozen=True, kw_only=True, slots=True)
class Resolution:
    """One call being resolved: what every kind's ``resolve`` reads.

    Attributes:
        tool_name: The tool the seams are for.
        capabilities: Its whole declaration (a kind may look at the others').
        scope: Who is calling: session, personality, abort signal, working dir, attachments.
        backends: What seams are built from.
        memo: Values kinds share within this one resolution (the personality's file reach,
            asked once and read by ``fs_reach`` and by ``process`` for its sandbox).
    """

    tool_name: str
    capabilities: Declarations
    scope: CapabilityScope
    backends: CapabilityBackends
    memo: dict[str, object] = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True, kw_only=True, slots=True)
class CapabilityKind(Generic[D, S]):
    """A kind of capability: its declaration, its seam and how the seam is resolved.

    ``D`` is the declaration type, ``S`` the seam a tool gets (``ctx.seam(kind)`` is an
    ``S | None``). See the module docstring for each part.

    Raises:
        ToolDefinitionError: a name that is not an identifier, a declaration type that does not
            derive from `Capability`, or a name or declaration type another kind already has.
    """

    name: str
    declaration: type[D]
    resolve: Callable[[D, Resolution], S | None]
    context_field: ContextField | None = None
    backend: Callable[[CapabilityBackends], object | None] | None = None
    setup_hint: str | None = None
    implied: Callable[[Resolution], D | None] | None = None

    def __post_init__(self) -> None:
        if not self.name.isidentifier():
            raise ToolDefinitionError(f"capability kind name {self.name!r} is not an identifier")
        if not (isinstance(self.declaration, type) and issubclass(self.declaration, Capability)):
            raise ToolDefinitionError(
                f"capability kind {self.name!r}: its declaration type must derive from Capability"
            )
        if self.context_field is not None and self.context_field not in SPEC_SEAM_FIELDS:
            raise ToolDefinitionError(
                f"capability kind {self.name!r}: context_field must be one of spec 01's "
                f"{SPEC_SEAM_FIELDS} or None (the seam then goes to ctx.{EXTRA_SEAMS_FIELD})"
            )
        if self.declaration in _KIND_BY_DECLARATION or self.name in _KIND_BY_NAME:
            raise ToolDefinitionError(
                f"capability kind {self.name!r}: the name or {self.declaration.__name__} already "
                "belongs to a kind"
            )
        _KIND_BY_DECLARATION[self.declaration] = self
        _KIND_BY_NAME[self.name] = self

    def backend_present(self, backends: CapabilityBackends) -> bool:
        """Whether ``backends`` have what this kind needs (always, for a kind that needs none)."""
        return self.backend is None or self.backend(backends) is not None

    def __repr__(self) -> str:
        return f"CapabilityKind({self.name!r})"
