"""The request record: one request's context bound to its variant and resolved provider.

Everything a section may depend on is here, decided once when the request is bound: the effective
date (the client's, else today's, read once), the tool mode, the tools whose conditions hold
(evaluated once, with one error policy), what their option lists come from, and the runtime values
after validation against the variant's inputs. The stages after binding read only this record.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from .._base.frozen import typed_key
from .context import PromptContext
from .provider import ProviderInfo
from .tools import EnumSources, ToolSpec, per_session
from .variant import ActiveToolMode, Variant

__all__ = ["Request"]


@attrs.frozen
class Request:
    context: PromptContext  # as the client gave it (its `provider` is the client's, if any)
    provider: ProviderInfo  # resolved: every capability known
    variant: Variant
    tool_mode: ActiveToolMode
    date: str
    tools: tuple[ToolSpec, ...]  # the variant's tools whose conditions hold, in its order
    enum_sources: EnumSources
    inputs: Mapping[str, str]  # runtime values as text, validated; defaults filled
    # Dynamic placement with native tools (fixed per plan): the tools a session's MCP servers
    # and skills bring are offered in their generic, session-free form (MCP calls through
    # use_mcp_tool, skill names as plain strings), so the tools are the same for every user.
    shared_tools: bool = False

    @property
    def mcp_functions(self) -> bool:
        """Whether the MCP servers' tools are functions of their own (native tools, not
        shared); else they are called through use_mcp_tool."""
        return self.tool_mode == "native" and not self.shared_tools

    def plugin_context(self) -> PromptContext:
        """The context as plugin code sees it: `context.provider` is the resolved provider."""
        return self.context.with_provider(self.provider)

    def read(self, path: str) -> Any:
        """The value of one declared read (`rules`, `features.browser`, `tools`, `date`…)."""
        root, _, sub = path.partition(".")
        if root == "date":
            return self.date
        if root == "provider":
            return self.provider
        if root == "tools":
            return (tuple(t.name for t in self.tools), self.enum_sources)
        if root == "stable_tools":  # the tools whose presence depends on no session value,
            # and which of the tools their parameters depend on are offered
            stable = [t for t in self.tools if not per_session(t)]
            wanted = {d for t in stable for p in t.parameters for d in p.depends_on}
            return (tuple(t.name for t in stable),
                    tuple(t.name for t in self.tools if t.name in wanted))
        value = getattr(self.context, root)
        if sub:
            return typed_key(value.get(sub))
        return value
