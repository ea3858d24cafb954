"""Stage 0 of a request: the PromptContext for the client's plain data, memoized.

A client builds a new data dict for every request; equal data gives the same, already validated
context. The key is the data's `marshal` bytes: typed (`1`, `1.0` and `true` differ; `""`, `" "`
and absent differ), complete, and the cheapest complete encoding the standard library has (one
pass in C). The lists that repeat from one session to the next (an MCP server's tools,
resources and resource templates, the skills) are written on their own, their places in the
data as None: their bytes are part of the key, and when the data is new they look up the
lists' records, so a new session whose servers only changed their names builds none of their
records again, and no list is written twice.
"""

from __future__ import annotations

import marshal
from collections.abc import Mapping
from typing import Any

from .._base.errors import PromptcError
from .._base.memo import Memo
from .._model.context import (McpResource, McpResourceTemplate, McpTool, PromptContext, Skill,
                              check_feature_names, context_from_data, records)
from .._model.features import FeatureSet

__all__ = ["ContextMemo"]

# The lists of a server whose records are kept on their own.
SERVER_PARTS: tuple[tuple[str, type], ...] = (
    ("tools", McpTool), ("resources", McpResource),
    ("resource_templates", McpResourceTemplate))

# A context's memo key: the data's bytes with each part list written as None, and each part
# list's place (server index and field; -1 and "skills" for the skills) and bytes.
Key = tuple[bytes, tuple[tuple[int, str, bytes], ...]]


class ContextMemo:
    """The contexts one Compiler built from plain data, and the records of their parts."""

    __slots__ = ("_contexts", "_parts", "_features")

    def __init__(self, features: FeatureSet | None, size: int = 512, parts: int = 1024) -> None:
        # Both keep what comes a second time: most new sessions never do.
        self._contexts: Memo[Key, PromptContext] = Memo(size, second_sight=True)
        self._parts: Memo[tuple[str, bytes], tuple[Any, ...]] = Memo(parts, second_sight=True)
        self._features = features

    def context(self, data: Mapping[str, Any]) -> tuple[PromptContext, bool]:
        """The context, and whether equal data came before (a new one cannot have a result
        kept from an earlier request)."""
        try:
            key, parts = _written(data)
        except ValueError:  # not plain data (a date from TOML, a record): built directly
            return self._checked(context_from_data(data)), False
        hit = self._contexts.get(key)
        if hit is not None:
            return hit, True
        return self._contexts.put(key, self._checked(context_from_data(
            data, None, lambda kwargs: self._with_parts(kwargs, parts),
            (key[0], *parts.values())))), False

    def _checked(self, context: PromptContext) -> PromptContext:
        return check_feature_names(context, self._features, None)

    def _with_parts(self, kwargs: dict[str, Any], parts: dict[tuple[int, str], bytes]
                    ) -> dict[str, Any]:
        """The constructor's arguments with every part list seen before as its records
        (`parts`: each list's bytes, written with the key)."""
        if not parts:
            return kwargs
        out = dict(kwargs)
        servers = kwargs.get("mcp_servers")
        if isinstance(servers, list):
            out["mcp_servers"] = [self._server(i, s, parts) for i, s in enumerate(servers)]
        skills = parts.get((-1, "skills"))
        if skills is not None:
            out["skills"] = self._records(Skill, "skills", kwargs["skills"], skills)
        return out

    def _server(self, i: int, server: Any, parts: dict[tuple[int, str], bytes]) -> Any:
        out = server
        for name, cls in SERVER_PARTS:
            written = parts.get((i, name))
            if written is not None:
                if out is server:
                    out = dict(server)
                out[name] = self._records(cls, name, server[name], written)
        return out

    def _records(self, cls: type, field: str, items: list[Any], written: bytes) -> Any:
        """The records of one part list, built once per distinct list (`written`: its
        marshal bytes; a list that does not build is left as it is, for the normal path to
        report)."""
        key = (field, written)
        hit = self._parts.get(key)
        if hit is None:
            try:
                hit = self._parts.put(key, records(cls, items, field))
            except (PromptcError, TypeError):
                return items
        return hit


def _written(data: Mapping[str, Any]) -> tuple[Key, dict[tuple[int, str], bytes]]:
    """The memo key of plain data, and the bytes of its part lists by (server, field) (-1:
    the skills). Each part list (a non-empty list where one is expected) is written once, on
    its own, and its place in the data is written as None; the key is the rest's bytes and
    each list's place and bytes, so it says the data exactly (typed, complete), and the
    lists' bytes key the parts memo too, without writing them a second time. ValueError:
    not marshal's kind of data."""
    if type(data) is not dict:  # as marshal itself: a Mapping of another type is built
        raise ValueError("not a dict")
    parts: dict[tuple[int, str], bytes] = {}
    rest: Any = data
    servers = data.get("mcp_servers")
    if type(servers) is list and servers:
        copied = list(servers)
        for i, server in enumerate(servers):
            if type(server) is dict:
                for name, _cls in SERVER_PARTS:
                    items = server.get(name)
                    if type(items) is list and items:
                        if copied[i] is server:
                            copied[i] = dict(server)
                        copied[i][name] = None
                        parts[i, name] = marshal.dumps(items)
        if parts:
            rest = dict(data)
            rest["mcp_servers"] = copied
    skills = data.get("skills")
    if type(skills) is list and skills:
        if rest is data:
            rest = dict(data)
        rest["skills"] = None
        parts[-1, "skills"] = marshal.dumps(skills)
    whole = marshal.dumps(rest)  # a value of another type than plain data: ValueError
    return (whole, tuple((i, name, b) for (i, name), b in parts.items())), parts

