"""A JSON Schema prepared for checking: what its references name, and its patterns compiled, without
ever leaving the schema.

A `$ref` is resolved against the `$id`s and `$anchor`s the schema itself declares (and JSON
pointers into it); nothing is fetched and no file is read, whatever the reference says
(`http://…`, `file:///…`, `urn:…`). A reference that names nothing inside the schema is an
answer too: why it cannot be followed, which the checker reports as a part it could not check.

Patterns (`pattern`, `patternProperties`) run on RE2, whose matching time is linear in the text
(no backtracking), so no pattern and no value can make a match slow. A pattern RE2 cannot run (a
look-around, a back-reference, a repeat count over 1,000) is reported, never replaced by a guess.
ECMA-262's `\\uXXXX` escapes, which RE2 spells `\\x{XXXX}`, are translated.

Everything here is memoized per prepared schema (a schema is prepared once and checked many times)
and works on the schema in a loop or a bounded walk: no recursion on the input.
"""

from __future__ import annotations

import math
import re
import urllib.parse
from collections.abc import Mapping
from typing import Any

__all__ = ["Prepared", "SUBSCHEMA_ONE", "SUBSCHEMA_LIST", "SUBSCHEMA_MAP", "canonical",
           "shown"]

# Where a schema holds subschemas (Draft 2020-12, and the older keywords still met).
SUBSCHEMA_ONE = ("additionalProperties", "additionalItems", "items", "contains", "propertyNames",
                 "not", "if", "then", "else", "unevaluatedItems", "unevaluatedProperties")
SUBSCHEMA_LIST = ("allOf", "anyOf", "oneOf", "prefixItems", "items")
SUBSCHEMA_MAP = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas",
                 "dependencies")
_UNICODE_ESCAPE = re.compile(r"\\(?:u([0-9A-Fa-f]{4})|u\{([0-9A-Fa-f]{1,6})\}|(.))", re.S)
_MAX_PATTERN = 4096  # characters; longer patterns are not compiled (RE2's memory is bounded too)
_MAX_SHOWN = 60


class Prepared:
    """One schema's references and patterns, each worked out once on first need."""

    __slots__ = ("root", "_resources", "_anchors", "_refs", "_patterns", "_joined", "_enums",
                 "uses_unevaluated", "plans")

    def __init__(self, root: Any) -> None:
        self.root = root
        self._resources: dict[str, Any] = {"": root}
        self._anchors: dict[tuple[str, str], Any] = {}
        self._refs: dict[tuple[str, str], tuple[Any, str] | str] = {}
        self._patterns: dict[str, Any] = {}
        self._joined: dict[tuple[str, str], str | None] = {}
        self._enums: dict[int, frozenset[Any] | None] = {}
        self.uses_unevaluated = False
        self.plans: dict[int, tuple[Any, Any]] = {}  # id(node) → (node, the checker's plan)
        self._index(root)

    # --- the walk that finds `$id`s and anchors ------------------------------------------------

    def _index(self, root: Any) -> None:
        stack: list[tuple[Any, str]] = [(root, "")]
        while stack:
            node, base = stack.pop()
            if not isinstance(node, Mapping):
                continue
            ident = node.get("$id")
            if isinstance(ident, str):
                joined = self.join(base, ident)
                if joined is not None:
                    base = _no_fragment(joined)
                    self._resources.setdefault(base, node)
            for key in ("$anchor", "$dynamicAnchor"):
                anchor = node.get(key)
                if isinstance(anchor, str):
                    self._anchors.setdefault((base, anchor), node)
            if "unevaluatedProperties" in node or "unevaluatedItems" in node:
                self.uses_unevaluated = True
            stack.extend((child, base) for child in subschemas(node))

    def join(self, base: str, ref: str) -> str | None:
        """`ref` resolved against `base` as URI text (no I/O: string work), None when it is
        not a URI reference at all."""
        key = (base, ref)
        if key not in self._joined:
            try:
                self._joined[key] = urllib.parse.urljoin(base, ref) if base else ref
            except ValueError:  # e.g. "http://[::1" (an unclosed IPv6 host)
                self._joined[key] = None
        return self._joined[key]

    # --- references ----------------------------------------------------------------------------

    def follow(self, base: str, ref: str) -> tuple[Any, str] | str:
        """(the subschema `ref` names, its base URI), or why it cannot be followed."""
        key = (base, ref)
        found = self._refs.get(key)
        if found is None:
            found = self._refs[key] = self._follow(base, ref)
        return found

    def _follow(self, base: str, ref: str) -> tuple[Any, str] | str:
        if ref.startswith("#"):
            uri, fragment = base, ref[1:]
        else:
            joined = self.join(base, ref)
            if joined is None:
                return f"{shown(ref, 160)} is not a URI reference"
            uri, _, fragment = joined.partition("#")
        resource = self._resources.get(uri)
        if resource is None:
            return (f"{shown(ref, 160)} names something outside the schema, which is never "
                    "fetched or read")
        fragment = urllib.parse.unquote(fragment)
        if not fragment:
            return resource, uri
        if fragment.startswith("/"):
            target = _pointer(resource, fragment)
        else:
            target = self._anchors.get((uri, fragment), _MISSING)
        if target is _MISSING:
            return f"{shown(ref, 160)} names nothing in the schema"
        return target, uri

    # --- patterns ------------------------------------------------------------------------------

    def pattern(self, source: str) -> Any:
        """The compiled RE2 program for an ECMA-262 pattern, or why it cannot be run (str)."""
        found = self._patterns.get(source)
        if found is None:
            found = self._patterns[source] = _compile(source)
        return found

    # --- enums ---------------------------------------------------------------------------------

    def options(self, enum: list[Any]) -> frozenset[Any] | None:
        """An `enum`'s values as canonical forms (one hashing pass per schema), None when one
        of them is not JSON."""
        key = id(enum)
        if key not in self._enums:
            forms = [canonical(v) for v in enum]
            self._enums[key] = None if any(f is None for f in forms) else frozenset(forms)
        return self._enums[key]


_MISSING = object()


def subschemas(node: Mapping[str, Any]) -> list[Any]:
    """The subschemas a schema node holds directly."""
    out: list[Any] = []
    for key in SUBSCHEMA_ONE:
        child = node.get(key)
        if isinstance(child, (Mapping, bool)):
            out.append(child)
    for key in SUBSCHEMA_LIST:
        children = node.get(key)
        if isinstance(children, list):
            out.extend(children)
    for key in SUBSCHEMA_MAP:
        table = node.get(key)
        if isinstance(table, Mapping):
            out.extend(v for v in table.values() if isinstance(v, (Mapping, bool)))
    return out


def _no_fragment(uri: str) -> str:
    return uri.partition("#")[0]


def _pointer(node: Any, fragment: str) -> Any:
    for part in fragment[1:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return _MISSING
    return node


def _compile(source: str) -> Any:
    if len(source) > _MAX_PATTERN:
        return f"the pattern is longer than {_MAX_PATTERN:,} characters"
    translated = _UNICODE_ESCAPE.sub(_re2_escape, source)
    import re2  # google-re2: imported when a schema's pattern is first run

    options = re2.Options()
    options.log_errors = False  # RE2 would print its refusal on stderr
    try:
        return re2.compile(translated, options)
    except Exception as exc:  # re2.error: the pattern is not one RE2 runs
        why = exc.args[0] if exc.args else exc
        why = why.decode("utf-8", "replace") if isinstance(why, bytes) else str(why)
        return f"the pattern {shown(source)} cannot be run in linear time ({why})"


def _re2_escape(m: re.Match[str]) -> str:
    code = m.group(1) or m.group(2)
    if code is not None:
        return "\\x{" + code + "}"
    return m.group(0)


def canonical(value: Any) -> Any:
    """A hashable form of a JSON value under JSON Schema's equality (1 and 1.0 are equal, true
    and 1 are not; key order does not count), or None for what is not JSON (a NaN, a set).
    Linear in the value's size; values reaching here nest at most a few dozen levels."""
    if value is None:
        return ("null",)
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (int, float)):
        if isinstance(value, float) and not math.isfinite(value):
            return None
        return ("number", value)  # 1 == 1.0 and hash(1) == hash(1.0)
    if isinstance(value, str):
        return ("string", str.__str__(value))  # a str subclass by its text, not its name
    if isinstance(value, (list, tuple)):
        items = tuple(canonical(v) for v in value)
        return None if None in items else ("array", items)
    if isinstance(value, Mapping):
        pairs = [(k, canonical(v)) for k, v in value.items()]
        if any(not isinstance(k, str) or v is None for k, v in pairs):
            return None
        return ("object", frozenset(pairs))
    return None


def shown(value: Any, most: int = _MAX_SHOWN) -> str:
    """A value as a message shows it: JSON, cut short."""
    import json
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        try:
            text = repr(value)
        except (ValueError, RecursionError):  # an int past Python's 4,300-digit str limit
            text = f"<{type(value).__name__}>"
    return text if len(text) <= most else text[:most - 1] + "…"
