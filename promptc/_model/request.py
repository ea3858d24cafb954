"""The request record: one request's context bound to its variant and resolved provider.

Everything a section may depend on is here, decided once when the request is bound: the effective
date (the client's, else today's, read once), the tool mode, the tools whose conditions hold
(evaluated once, with one error policy), what their option lists come from, and the runtime values
after validation against the variant's inputs. The stages after binding read only this record.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from operator import attrgetter
from typing import Any

import attrs

from .._base.frozen import typed_key
from .._text.fence import OWN_TAGS
from .context import PromptContext
from .provider import ProviderInfo
from .tools import EnumSources, McpBinding, ToolSpec
from .variant import ActiveToolMode, Variant

__all__ = ["Request", "reader"]


@attrs.frozen
class Request:
    context: PromptContext  # as the client gave it (its `provider` is the client's, if any)
    provider: ProviderInfo  # resolved: every capability known
    variant: Variant
    tool_mode: ActiveToolMode
    date: str
    tools: tuple[ToolSpec, ...]  # the variant's tools whose conditions hold, in its order
    enum_sources: EnumSources
    # runtime values, validated, defaults filled: text (neutralised unless trusted), a switch
    # for a boolean, a structured list or object
    inputs: Mapping[str, Any]
    # Dynamic placement with native tools (fixed per plan): the tools a session's MCP servers
    # and skills bring are offered in their generic, session-free form (MCP calls through
    # use_mcp_tool, skill names as plain strings), so the tools are the same for every user.
    shared_tools: bool
    # native mode (not shared): every MCP tool's function name (`mcp__<server>__<tool>`)
    bindings: tuple[McpBinding, ...]
    # The read `tools`: which tools are offered, and what their option lists come from.
    offered: tuple[tuple[str, ...], EnumSources] = attrs.field(eq=False, repr=False)
    # The read `stable_tools`: the offered tools whose presence depends on no session value,
    # and which of the offered tools their parameters depend on.
    stable: Hashable = attrs.field(eq=False, repr=False)
    # The elements outside text may not open or close (the compiler's; fixed per plan).
    own_tags: frozenset[str] = attrs.field(default=OWN_TAGS, eq=False, repr=False)

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
        return _getter(path)(self)


# Reads that are the request's own fields; every other root is a context field.
_OWN = {"tools": "offered", "stable_tools": "stable", "date": "date", "provider": "provider"}


def _path(root: str) -> str:
    return _OWN.get(root, "context." + root)


def _plan_servers(r: Request) -> Any:
    """The read `mcp_servers_in_plan`: what plan mode rules out depends on the servers' tools,
    and nothing does in act mode."""
    return r.context.mcp_servers if r.context.mode == "plan" else ()


def _getter(path: str) -> Callable[[Request], Any]:
    root, _, sub = path.partition(".")
    if sub:  # `features.browser`, `runtime.TEAM`: one typed value of a table
        return lambda r: typed_key(getattr(r.context, root).get(sub))
    if root == "mcp_servers_in_plan":
        return _plan_servers
    return attrgetter(_path(root))


def reader(reads: tuple[str, ...]) -> Callable[[Request], Hashable]:
    """One function giving the values of `reads` for a request, as a key, made once per step so
    a request pays no dispatch (plain fields: one C-level `attrgetter`, which gives a tuple)."""
    if len(reads) > 1 and not any("." in path or path == "mcp_servers_in_plan"
                                  for path in reads):
        return attrgetter(*(_path(path) for path in reads))
    getters = [_getter(path) for path in reads]
    return lambda r: tuple([g(r) for g in getters])
