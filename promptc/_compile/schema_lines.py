"""An MCP tool's input schema as one line per parameter, for the MCP servers section.

A schema written as minified JSON spends most of its tokens on quotes, braces and the keys
`"type"`, `"description"` and `"properties"`, and the MCP listing is sent with every request
of a session. So a schema of the usual shape (an object whose `properties` are schemas of
their own, with a list of `required` names) is given to the template as rows, one per
parameter: its name, its type, whether it is required, its description, and every other
keyword it has (`enum`, `minimum`, `items`…) as `keyword JSON` pairs. Nothing of the schema is
left out: keywords of the whole object besides `type`, `properties` and `required` are kept
too (`schema_keywords`), and a schema of any other shape (no properties, a property that is
not a schema, a name or a type that is not a plain word) is not split at all: the template
shows its JSON (`schema`). Every text is the server's, fenced (promptc._text.fence).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import attrs

from .._base.frozen import dumps_json
from .._text.fence import body
from .._text.layout import Row

__all__ = ["ParameterLines", "parameter_lines"]

# A parameter name or a type written bare on its line: a plain identifier, nothing a reader
# could take for the line's own punctuation (`(`, `:`, `,`, a space).
_PLAIN = re.compile(r"[A-Za-z_$][A-Za-z0-9_.$-]{0,63}")
_OBJECT = frozenset({"type", "properties", "required"})  # the whole object's, the same


@attrs.frozen
class ParameterLines:
    """The rows of one schema: `parameters` (empty when the schema is shown as JSON) and the
    whole object's other keywords (`schema_keywords`, "" for none). Frozen: one is memoized
    per schema and shared by every render that lists it."""

    parameters: tuple[Row, ...]
    schema_keywords: str


NONE = ParameterLines((), "")


def _json(value: Any) -> str:
    return dumps_json(value, indent=None, separators=(",", ":"))


def keywords(schema: Mapping[str, Any], shown: frozenset[str]) -> str:
    """Every keyword of `schema` but `shown`, as `keyword JSON` pairs joined by `; `."""
    return "; ".join(f"{key if _PLAIN.fullmatch(key) else _json(key)} {_json(value)}"
                     for key, value in schema.items() if key not in shown)


def _type(value: Any) -> str | None:
    """The type as the line writes it (`string`, `string or null`), None when it is not a
    plain word or a list of them (then the schema is shown as JSON)."""
    if isinstance(value, str) and _PLAIN.fullmatch(value):
        return value
    if isinstance(value, list) and value and all(isinstance(v, str) and _PLAIN.fullmatch(v)
                                                 for v in value):
        return " or ".join(value)
    return None


def _splittable(schema: Mapping[str, Any]) -> bool:
    """Whether the schema has the shape the lines can show whole."""
    props, required = schema.get("properties"), schema.get("required", [])
    return (schema.get("type", "object") == "object" and isinstance(props, Mapping)
            and bool(props) and all(isinstance(p, Mapping) for p in props.values())
            and all(isinstance(n, str) and _PLAIN.fullmatch(n) for n in props)
            and isinstance(required, list) and all(isinstance(n, str) for n in required)
            and all(n in props for n in required)
            and all(_type(p["type"]) is not None for p in props.values() if "type" in p))


def parameter_lines(schema: Any, tags: frozenset[str]) -> ParameterLines:
    """`schema` (as a text prompt shows it: numbers JSON can carry) as parameter rows, or
    `NONE` when it has another shape. `tags`: the elements a server's text may not open or
    close."""
    if not isinstance(schema, Mapping) or not _splittable(schema):
        return NONE
    required = set(schema.get("required", []))
    rows = []
    for name, prop in schema["properties"].items():
        kind = _type(prop["type"]) if "type" in prop else ""
        description = prop.get("description")
        shown = frozenset({"type", "description"} if isinstance(description, str)
                          else {"type"})
        rows.append(Row({
            "name": name, "type": kind or "", "required": name in required,
            "description": body(description, tags=tags) if isinstance(description, str)
            else "", "keywords": body(keywords(prop, shown), tags=tags)}))
    return ParameterLines(tuple(rows), body(keywords(schema, _OBJECT), tags=tags))
