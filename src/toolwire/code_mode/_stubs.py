"""Typed stubs: the tools a program may call, as the ``async`` Python functions it awaits.

Each tool becomes ``async def name(*, param: type, ...) -> ReturnType`` with its description
as the docstring. An MCP tool ``mcp__github__create_issue`` is ``github.create_issue`` (its
server is a namespace the program reaches with ``import github``, which ``run_code`` adds);
names that are not Python identifiers have ``-`` replaced by ``_``. The return type is a
``TypedDict`` built from the tool's output schema when it has one, ``Any`` otherwise: the
program receives the tool's ``structured`` result when it returns one, its text otherwise.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from toolwire.tools import Tool

__all__ = ["CallableTool", "callable_tools", "render_stubs", "type_of"]

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SCALARS = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}


@dataclass(frozen=True, kw_only=True, slots=True)
class CallableTool:
    """One tool as the program sees it.

    Attributes:
        python_name: What the program calls: ``read_file`` or ``github.create_issue``.
        namespace: The module it lives in (``github``), or ``None`` for a plain function.
        params: The parameter names in stub order (positional arguments bind to these).
        tool: The registered tool.
    """

    python_name: str
    namespace: str | None
    params: tuple[str, ...]
    tool: Tool


def _identifier(text: str) -> str | None:
    name = text.replace("-", "_")
    if not _IDENT.fullmatch(name) or keyword.iskeyword(name):
        return None
    return name


def callable_tools(tools: Iterable[Tool]) -> dict[str, CallableTool]:
    """The tools a program may call, by the name it calls them by (a later tool whose name
    would clash with an earlier one is left out)."""
    found: dict[str, CallableTool] = {}
    for tool in tools:
        namespace: str | None = None
        if tool.is_mcp and tool.mcp_server:
            namespace = _identifier(tool.mcp_server)
            base = _identifier(tool.name.split("__", 2)[2]) if namespace else None
            python_name = f"{namespace}.{base}" if namespace and base else None
        else:
            python_name = _identifier(tool.name)
        if python_name is None or python_name in found:
            continue
        found[python_name] = CallableTool(
            python_name=python_name,
            namespace=namespace,
            params=_param_order(tool.schema),
            tool=tool,
        )
    return found


def _param_order(schema: Mapping[str, Any]) -> tuple[str, ...]:
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return ()
    required = set(schema.get("required") or ())
    names = [str(name) for name in properties]
    return tuple(sorted(names, key=lambda name: name not in required))


def type_of(schema: Any, depth: int = 0) -> str:
    """The Python annotation for a JSON schema (``Any`` where the schema says too little)."""
    if not isinstance(schema, Mapping) or depth > 6:
        return "Any"
    if "enum" in schema and isinstance(schema["enum"], list) and schema["enum"]:
        return f"Literal[{', '.join(repr(value) for value in schema['enum'])}]"
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list) and options:
            return " | ".join(dict.fromkeys(type_of(option, depth + 1) for option in options))
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(type_of({**schema, "type": one}, depth + 1) for one in kind)
    if kind in _SCALARS:
        return _SCALARS[kind]
    if kind == "array":
        return f"list[{type_of(schema.get('items'), depth + 1)}]"
    if kind == "object":
        extra = schema.get("additionalProperties")
        value = type_of(extra, depth + 1) if isinstance(extra, Mapping) else "Any"
        return f"dict[str, {value}]"
    return "Any"


def _class_name(python_name: str) -> str:
    parts = re.split(r"[._]", python_name)
    return "".join(part[:1].upper() + part[1:] for part in parts if part) + "Result"


def _result_type(entry: CallableTool, classes: list[str]) -> str:
    schema = entry.tool.output_schema
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(properties, Mapping) or not properties:
        return "dict[str, Any]" if schema else "Any"
    name = _class_name(entry.python_name)
    lines = [f"class {name}(TypedDict, total=False):"]
    for prop, prop_schema in properties.items():
        if _identifier(str(prop)) == str(prop):
            lines.append(f"    {prop}: {type_of(prop_schema)}")
    classes.append("\n".join(lines))
    return name


def _signature(entry: CallableTool, result: str, indent: str) -> str:
    schema = entry.tool.schema
    properties = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    params = []
    for name in entry.params:
        annotation = type_of(properties.get(name))
        if name in required:
            params.append(f"{name}: {annotation}")
            continue
        prop = properties.get(name)
        shown = repr(prop["default"]) if isinstance(prop, Mapping) and "default" in prop else "..."
        params.append(f"{name}: {annotation} = {shown}")
    inner = ", ".join(["*", *params]) if params else ""
    base = entry.python_name.rsplit(".", 1)[-1]
    lines = [f"{indent}async def {base}({inner}) -> {result}:"]
    doc = entry.tool.description.strip() or entry.tool.name
    documented = [
        f"{indent}        {name}: {' '.join(str(properties[name].get('description', '')).split())}"
        for name in entry.params
        if isinstance(properties.get(name), Mapping) and properties[name].get("description")
    ]
    text = "\n".join(f"{indent}    {line}".rstrip() for line in doc.splitlines())
    if documented and "Args:" not in doc:
        text += f"\n\n{indent}    Args:\n" + "\n".join(documented)
    lines.append(f'{indent}    """{text.lstrip()}\n{indent}    """')
    return "\n".join(lines)


def render_stubs(entries: Mapping[str, CallableTool]) -> str:
    """The stubs a model reads: every callable tool as an ``async def`` (namespaces as
    classes standing for the modules ``run_code`` imports)."""
    classes: list[str] = []
    plain: list[str] = []
    spaces: dict[str, list[str]] = {}
    for entry in entries.values():
        result = _result_type(entry, classes)
        if entry.namespace is None:
            plain.append(_signature(entry, result, ""))
        else:
            spaces.setdefault(entry.namespace, []).append(_signature(entry, result, "    "))
    parts = ["from typing import Any, Literal, TypedDict", *classes, *plain]
    for namespace, functions in spaces.items():
        parts.append(f"class {namespace}:  # module, already imported\n" + "\n\n".join(functions))
    return "\n\n".join(parts) + "\n"
