"""The tools of one request: which are offered, how, and their native JSON per provider."""

from __future__ import annotations

from typing import Any, Literal

import attrs

from ._context import Skill
from ._frozen import thaw
from ._tools import (FunctionList, McpBinding, ToolSpec, functions_for, to_anthropic, to_gemini,
                     to_openai, to_openai_responses)
from ._variant import ActiveToolMode

__all__ = ["ToolSet"]


@attrs.frozen
class ToolSet:
    """Enabled tool specs (+ natively offered MCP tools). JSON is built on first use, then kept."""

    mode: ActiveToolMode
    specs: tuple[ToolSpec, ...]
    mcp: tuple[McpBinding, ...] = ()
    skills: tuple[Skill, ...] = attrs.field(default=(), repr=False)
    _memo: dict[str, Any] = attrs.field(factory=dict, eq=False, repr=False, alias="_memo")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.specs) + tuple(b.native_name for b in self.mcp)

    def functions(self) -> FunctionList:
        fns = self._memo.get("functions")
        if fns is None:
            fns = self._memo["functions"] = functions_for(self.specs, self.mcp, self.skills)
        return fns

    def _wrapped(self, fmt: str) -> list[dict[str, Any]]:
        out = self._memo.get(fmt)
        if out is None:
            wrap = {"openai": to_openai, "openai-responses": to_openai_responses,
                    "anthropic": to_anthropic, "gemini": to_gemini}[fmt]
            out = self._memo[fmt] = wrap(self.functions())
        return thaw(out)  # a fresh copy: callers may edit it without touching the shared one

    def openai(self, api: Literal["chat", "responses"] = "chat") -> list[dict[str, Any]]:
        """OpenAI `tools`: Chat Completions shape, or the flat Responses API shape."""
        return self._wrapped("openai" if api == "chat" else "openai-responses")

    def anthropic(self) -> list[dict[str, Any]]:
        return self._wrapped("anthropic")

    def gemini(self) -> list[dict[str, Any]]:
        return self._wrapped("gemini")

    def mcp_target(self, native_name: str) -> tuple[str, str] | None:
        """(server, tool) an MCP function name routes to, for the client's dispatcher."""
        for b in self.mcp:
            if b.native_name == native_name:
                return b.server, b.tool
        return None
