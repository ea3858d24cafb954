"""The per-request data behind the built-in component templates (the prose is in
`components/<id>.md`; what each one provides and reads is declared in
promptc/_load/component_defs.py, which the registry reads).

Each function computes a template's values from the bound request (or None: section absent);
it reads nothing but what its component declares, so its output is memoized by exactly those
values.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .._model.request import Request
from .._model.tools import catalogue_data, per_session
from .._text.fence import OWN_TAGS, attribute, body
from .mcp_data import McpValues

__all__ = ["BUILTIN_DATA", "Data", "DataCache"]


class DataCache:
    """Memos the data functions share, owned by one plan (never module-global)."""

    __slots__ = ("mcp",)

    def __init__(self, size: int = 2048, own_tags: frozenset[str] = OWN_TAGS) -> None:
        self.mcp = McpValues(size, own_tags)


Data = Callable[[Request, DataCache], "Mapping[str, Any] | None"]


def _tool_use(r: Request, _c: DataCache) -> Mapping[str, Any] | None:
    return {} if r.tool_mode == "text" else None


def _tool_calling(r: Request, _c: DataCache) -> Mapping[str, Any] | None:
    """The native tool-calling rules, with the parallel-call policy the model supports, and
    whether MCP tools are functions of their own (not with shared tools: use_mcp_tool)."""
    if r.tool_mode != "native":
        return None
    parallel = bool(r.provider.parallel_tools)
    return {"parallel": parallel, "sequential": not parallel, "mcp_functions": r.mcp_functions}


def _tools(r: Request, _c: DataCache) -> Mapping[str, Any] | None:
    """The text catalogue of the tools every session of this client gets (static)."""
    if r.tool_mode != "text":
        return None  # native variants never compute the text catalogue
    if "session_tools" not in r.variant.components:  # then this section lists them all
        return {"tools": catalogue_data(r.tools, r.enum_sources)} if r.tools else None
    stable = [t for t in r.tools if not per_session(t)]
    return {"tools": catalogue_data(stable, r.enum_sources, r.tools)} if stable else None


def _session_tools(r: Request, _c: DataCache) -> Mapping[str, Any] | None:
    """The text catalogue of the tools this session's MCP servers and skills bring: after
    the static part, so that part stays the same in every session."""
    if r.tool_mode != "text":
        return None
    extra = [t for t in r.tools if per_session(t)]
    return {"tools": catalogue_data(extra, r.enum_sources, r.tools),
            "session": True} if extra else None


def _mcp_servers(r: Request, cache: DataCache) -> Mapping[str, Any] | None:
    """The servers, their tools and resources (see mcp_data.py). `text_mode`: the servers'
    tools are called through use_mcp_tool (text mode, and native mode with shared tools), so
    each is listed with its input schema and no function name; `native_mode`: each is a
    function of its own."""
    servers = r.context.mcp_servers
    if not servers:
        return None
    return cache.mcp.values(servers, not r.mcp_functions, r.bindings)


def _editing(r: Request, _c: DataCache) -> Mapping[str, Any]:
    text_mode = r.tool_mode == "text"
    return {"text_mode": text_mode, "native_mode": not text_mode}


def _mode(r: Request, cache: DataCache) -> Mapping[str, Any]:
    """The current mode, and the offered tools it rules out (every mode offers the same tools,
    so that a mode switch keeps the cached prefix: this section says what the mode allows)."""
    mode = r.context.mode
    writable = _writable(r) if mode == "plan" else []
    return {"plan": mode == "plan", "act": mode == "act",
            "not_now": [{"name": t.name} for t in r.tools if mode not in t.modes],
            "mcp_not_now": _refused_mcp(r, writable), "mcp_rule": bool(writable),
            "plan_only": [{"name": t.name} for t in r.tools if t.modes == ("plan",)],
            "act_only": [{"name": t.name} for t in r.tools if t.modes == ("act",)]}


def _writable(r: Request) -> list[tuple[str, str]]:
    """(server, tool) of every MCP tool its server does not mark read-only: plan mode rules
    them out."""
    return [(s.name, t.name) for s in r.context.mcp_servers for t in s.tools
            if not t.read_only]


def _refused_mcp(r: Request, writable: list[tuple[str, str]]) -> list[dict[str, str]]:
    """The MCP tools plan mode rules out, as the model calls them: natively offered ones by
    the function name sent (`function`), the others by the `use_mcp_tool` arguments that name
    them (`server`, `tool`: the servers' own words, escaped as attribute values)."""
    if not writable:
        return []
    if not r.mcp_functions:
        return [{"server": attribute(server), "tool": attribute(tool)}
                for server, tool in writable]
    functions = {(b.server, b.tool): b.native_name for b in r.bindings}
    return [{"function": functions[key]} for key in writable if key in functions]


def _capabilities(r: Request, _c: DataCache) -> Mapping[str, Any]:
    features = r.context.features
    return {"browser": bool(features.get("browser")),
            "web_fetch": bool(features.get("web_fetch")),
            "images": bool(r.provider.images)}


def _system_info(r: Request, _c: DataCache) -> Mapping[str, Any] | None:
    c = r.context
    if not (c.os or c.shell or c.home or c.cwd or c.ide or c.workspace_roots):
        return None
    roots = [{"path": attribute(w.path),
              "name": attribute(w.name or w.path.rstrip("/").rsplit("/", 1)[-1]),
              "vcs": attribute(w.vcs)} for w in c.workspace_roots]
    return {"os": attribute(c.os), "shell": attribute(c.shell), "home": attribute(c.home),
            "cwd": attribute(c.cwd), "ide": attribute(c.ide), "roots": roots,
            "multi_root": len(roots) > 1}


def _user_instructions(r: Request, _c: DataCache) -> Mapping[str, Any] | None:
    tags = r.own_tags
    rules = [{"name": attribute(x.name), "origin": attribute(x.origin),
              "text": body(x.text, tags=tags)} for x in r.context.rules if x.text.strip()]
    return {"rules": rules} if rules else None


def _skills(r: Request, _c: DataCache) -> Mapping[str, Any] | None:
    skills = r.context.skills
    if not skills:
        return None
    return {"skills": [{"name": attribute(s.name),
                        "description": body(s.description, tags=r.own_tags),
                        "references": attribute(", ".join(s.references))}
                       for s in skills],
            "any_references": any(s.references for s in skills),
            "text_mode": r.tool_mode == "text"}


def _task_progress(r: Request, _c: DataCache) -> Mapping[str, Any] | None:
    """The checklist: carried by every call with text tools (see update_task_progress's
    `text_parameter`), a tool of its own with native ones, sent with the next call where the
    model makes several at once."""
    if not r.context.features.get("task_progress"):
        return None
    text_mode = r.tool_mode == "text"
    return {"text_mode": text_mode, "native_mode": not text_mode,
            "parallel": not text_mode and bool(r.provider.parallel_tools)}


def _notices(r: Request, _c: DataCache) -> Mapping[str, Any] | None:
    images = [a.name for a in r.context.attachments if a.type.lower().startswith("image/")]
    if not images or r.provider.images:
        return None
    return {"unreadable_images": [{"name": attribute(n)} for n in images]}


# By component id (the registry marks a built-in id's component with it: `request_data`).
BUILTIN_DATA: dict[str, Data] = {
    "tool_use": _tool_use,
    "tool_calling": _tool_calling,
    "tools": _tools,
    "session_tools": _session_tools,
    "mcp_servers": _mcp_servers,
    "editing_files": _editing,
    "act_vs_plan_mode": _mode,
    "capabilities": _capabilities,
    "system_info": _system_info,
    "user_instructions": _user_instructions,
    "skills": _skills,
    "task_progress": _task_progress,
    "notices": _notices,
}
