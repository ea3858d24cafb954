"""Stage 0 of a request: the PromptContext for the client's plain data, memoized.

A client builds a new data dict for every request; equal data gives the same, already validated
context. The key is the data's `marshal` bytes: typed (`1`, `1.0` and `true` differ; `""`, `" "`
and absent differ), complete, and the cheapest complete encoding the standard library has (one
pass in C). When the data is new, the lists that repeat from one session to the next (an MCP
server's tools, resources and resource templates, the skills) are looked up by their own bytes,
so a new session whose servers only changed their names builds none of their records again.
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


class ContextMemo:
    """The contexts one Compiler built from plain data, and the records of their parts."""

    __slots__ = ("_contexts", "_parts", "_features")

    def __init__(self, features: FeatureSet | None, size: int = 512, parts: int = 1024) -> None:
        # Both keep what comes a second time: most new sessions never do.
        self._contexts: Memo[bytes, PromptContext] = Memo(size, second_sight=True)
        self._parts: Memo[tuple[str, bytes], tuple[Any, ...]] = Memo(parts, second_sight=True)
        self._features = features

    def context(self, data: Mapping[str, Any]) -> tuple[PromptContext, bool]:
        """The context, and whether equal data came before (a new one cannot have a result
        kept from an earlier request)."""
        try:
            key = marshal.dumps(data)  # type: ignore[arg-type]  # any Mapping: ValueError
        except ValueError:  # not plain data (a date from TOML, a record): built directly
            return self._checked(context_from_data(data)), False
        hit = self._contexts.get(key)
        if hit is not None:
            return hit, True
        return self._contexts.put(key, self._checked(context_from_data(
            data, None, self._with_parts, (key,)))), False

    def _checked(self, context: PromptContext) -> PromptContext:
        return check_feature_names(context, self._features, None)

    def _with_parts(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        """The constructor's arguments with every part list seen before as its records."""
        servers = kwargs.get("mcp_servers")
        skills = kwargs.get("skills")
        if not (isinstance(servers, list) and servers) and \
                not (isinstance(skills, list) and skills):
            return kwargs
        out = dict(kwargs)
        if isinstance(servers, list):
            out["mcp_servers"] = [self._server(s) for s in servers]
        if isinstance(skills, list) and skills:
            out["skills"] = self._records(Skill, "skills", skills)
        return out

    def _server(self, server: Any) -> Any:
        if not isinstance(server, dict):
            return server
        out = server
        for name, cls in SERVER_PARTS:
            items = server.get(name)
            if isinstance(items, list) and items:
                if out is server:
                    out = dict(server)
                out[name] = self._records(cls, name, items)
        return out

    def _records(self, cls: type, field: str, items: list[Any]) -> Any:
        """The records of one part list, built once per distinct list (a list that is not
        plain data, or does not build, is left as it is, for the normal path to report)."""
        try:
            key = (field, marshal.dumps(items))
        except ValueError:
            return items
        hit = self._parts.get(key)
        if hit is None:
            try:
                hit = self._parts.put(key, records(cls, items, field))
            except (PromptcError, TypeError):
                return items
        return hit
