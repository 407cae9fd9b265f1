"""Parsing an XML report a test run wrote, refusing what makes XML dangerous.

A test run executes the project's code, so its report is untrusted input. The parser is the
stdlib's expat, driven directly: a document type declaration (``<!DOCTYPE``), and with it every
entity declaration, internal or external, is refused before it can be expanded, so neither an
entity bomb ("billion laughs") nor an external entity (a local file, a URL) gets through.
Element nesting is capped too. The tree is built with ElementTree's `TreeBuilder`.
"""

from __future__ import annotations

import xml.parsers.expat
from xml.etree.ElementTree import Element, TreeBuilder

__all__ = ["MAX_DEPTH", "UnsafeXmlError", "parse_xml"]

MAX_DEPTH = 256
"""The deepest element nesting accepted."""


class UnsafeXmlError(ValueError):
    """The document declares a DTD or entities, nests too deep, or is not well-formed XML."""


def _refuse(what: str) -> UnsafeXmlError:
    return UnsafeXmlError(f"the XML report {what}; refused (reports never need one)")


def parse_xml(data: bytes) -> Element:
    """The root element of ``data``.

    Raises:
        UnsafeXmlError: a ``<!DOCTYPE``, an entity declaration or reference to an undeclared
            entity, nesting deeper than `MAX_DEPTH`, or malformed XML.
    """
    parser = xml.parsers.expat.ParserCreate()
    builder = TreeBuilder()
    depth = 0

    def start(tag: str, attrs: dict[str, str]) -> None:
        nonlocal depth
        depth += 1
        if depth > MAX_DEPTH:
            raise _refuse(f"nests elements more than {MAX_DEPTH} deep")
        builder.start(tag, attrs)

    def end(tag: str) -> None:
        nonlocal depth
        depth -= 1
        builder.end(tag)

    def doctype(*_: object) -> None:
        raise _refuse("declares a document type (<!DOCTYPE>)")

    def entity(*_: object) -> None:
        raise _refuse("declares an entity")

    def external(*_: object) -> int:
        raise _refuse("references an external entity")

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = builder.data
    parser.StartDoctypeDeclHandler = doctype
    parser.EntityDeclHandler = entity
    parser.UnparsedEntityDeclHandler = entity
    parser.ExternalEntityRefHandler = external
    parser.SetParamEntityParsing(xml.parsers.expat.XML_PARAM_ENTITY_PARSING_NEVER)
    try:
        parser.Parse(data, True)
    except xml.parsers.expat.ExpatError as exc:
        raise UnsafeXmlError(f"the XML report is not well-formed: {exc}") from None
    try:
        return builder.close()
    except AssertionError:  # TreeBuilder's own check: no root element was closed
        raise UnsafeXmlError("the XML report has no root element") from None
