"""Reading a JSON Schema as it arrived (a built-in tool's, an MCP server's): local `$ref`s and
whether a node admits null.

Both the schema converters (promptc/_emit/schemas/) and the call checker (promptc/_calls/)
read schemas this way. Nothing here recurses on the input: a `$ref` chain is followed in a loop
(a cycle ends it), and `allows_null` walks `anyOf`/`oneOf` with an explicit stack, so a
union nested thousands of levels deep is an answer, not a RecursionError.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from typing import Any

__all__ = ["resolve_ref", "lookup_ref", "allows_null", "nesting_depth", "nesting_size",
           "unwritable_number"]

_DEF_TABLES = ("#/$defs/", "#/definitions/")


def resolve_ref(node: Any, root: Mapping[str, Any]) -> Any:
    """A local `$ref` (`#/$defs/X`, `#/definitions/X`) followed to its target, else the node;
    a cycle of references ends in an empty schema (anything)."""
    seen: set[str] = set()
    while isinstance(node, Mapping) and isinstance(node.get("$ref"), str):
        ref = node["$ref"]
        if ref in seen:
            return {}
        seen.add(ref)
        target = lookup_ref(ref, root)
        if target is None:
            return node
        node = target
    return node


def lookup_ref(ref: str, root: Mapping[str, Any]) -> Any:
    """The definition a local reference names, or None."""
    for prefix in _DEF_TABLES:
        if ref.startswith(prefix):
            table = root.get(prefix[2:-1])
            name = ref[len(prefix):].replace("~1", "/").replace("~0", "~")
            if isinstance(table, Mapping) and isinstance(table.get(name), Mapping):
                return table[name]
    return None


def allows_null(node: Any, root: Mapping[str, Any] | None = None) -> bool:
    """Whether a schema node admits null as it stands: `type` null (or a list with it), an
    `enum` holding null, or an `anyOf`/`oneOf` alternative that does (references followed
    when `root` is given)."""
    stack = [node]
    seen: set[int] = set()
    while stack:
        current = stack.pop()
        if root is not None:
            current = resolve_ref(current, root)
        if not isinstance(current, Mapping) or id(current) in seen:
            continue
        seen.add(id(current))
        kind = current.get("type")
        if kind == "null" or (isinstance(kind, list) and "null" in kind):
            return True
        enum = current.get("enum")
        if isinstance(enum, list) and None in enum:
            return True
        for key in ("anyOf", "oneOf"):
            parts = current.get(key)
            if isinstance(parts, list):
                stack.extend(reversed(parts))
    return False


def nesting_depth(value: Any, limit: int) -> int:
    """How deeply lists and mappings nest in `value` (0 for a scalar), counted without
    recursion and given up past `limit` (the result is then `limit + 1`)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        current, depth = stack.pop()
        if isinstance(current, Mapping):
            children: Any = current.values()
        elif isinstance(current, (list, tuple)):
            children = current
        else:
            continue
        if depth > deepest:
            deepest = depth
            if deepest > limit:
                return limit + 1
        stack.extend((child, depth + 1) for child in children
                     if isinstance(child, (Mapping, list, tuple)))
    return deepest


def nesting_size(value: Any) -> int:
    """How many lists, mappings and scalars `value` holds, itself included (counted without
    recursion)."""
    count = 0
    stack = [value]
    while stack:
        current = stack.pop()
        count += 1
        if isinstance(current, Mapping):
            stack.extend(current.values())
        elif isinstance(current, (list, tuple)):
            stack.extend(current)
    return count


def unwritable_number(value: Any, *, double: bool = False) -> float | int | None:
    """The first number in plain data that no JSON writer can send on (NaN, an infinity: a
    reader turns `1e400` into one) or, with `double`, that a double cannot hold (an int past
    its range, compared exactly); None when there is none. Walked with a stack, at any depth."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, float):
            if not math.isfinite(node):
                return node
        elif isinstance(node, int) and not isinstance(node, bool):
            if double and abs(node) > sys.float_info.max:
                return node
        elif isinstance(node, Mapping):
            stack.extend(node.values())
        elif isinstance(node, (list, tuple)):
            stack.extend(node)
    return None
