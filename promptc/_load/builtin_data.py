"""The data behind the built-in component templates (the prose is in `components/<id>.md`).

Each entry says which request values the template's data is computed from (`reads`: that is the
whole input, so outputs are memoized by exactly those values), which keys it provides, how
important the section is when a budget is tight, and computes the values (or None: section
absent) from the bound request.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from .._base.frozen import FrozenDict, dumps_json, thaw
from .._base.memo import Memo
from .._model.request import Request
from .._model.context import McpServer
from .._text.fence import attribute, body
from .._model.tools import McpBinding, catalogue_data, mcp_bindings, per_session

__all__ = ["BUILTIN_DATA", "DataDef", "DataCache", "SHARED_TEMPLATES"]

# Components rendered with another component's template file, unless a folder gives them their
# own: the per-session tool catalogue is written exactly like the static one.
SHARED_TEMPLATES = {"session_tools": "tools"}


McpNames = Callable[[Sequence[McpServer]], Sequence[McpBinding]]


class DataCache:
    """Memos the data functions share, owned by one plan (never module-global). `mcp_names`
    gives the function names the plan's tool set sends for the servers' tools (native mode), so
    the MCP section names them exactly as sent."""

    __slots__ = ("_schemas", "mcp_names")

    def __init__(self, size: int = 2048, mcp_names: McpNames | None = None) -> None:
        self._schemas = Memo(size)
        self.mcp_names: McpNames = mcp_names if mcp_names is not None else (
            lambda servers: mcp_bindings(servers, ()))

    def schema_text(self, schema: FrozenDict) -> str:
        """An input schema as one line of minified JSON (fenced: a string in it cannot close an
        element), written once per distinct schema (keyed by its canonical JSON text, which is
        typed and complete)."""
        if not schema:
            return ""
        key = schema.json_text
        text: str | None = self._schemas.get(key)
        if text is None:
            text = self._schemas.put(key, body(dumps_json(thaw(schema), indent=None,
                                                          separators=(",", ":"))))
        return text


Data = Callable[[Request, DataCache], "Mapping[str, Any] | None"]


@attrs.frozen
class DataDef:
    data: Data | None = None
    provides: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()
    priority: int = 50
    required: bool = False


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
    """Every name, URI and description is the server's text: fenced (see promptc._text.fence);
    a native function name is exactly what is sent. `text_mode`: the servers' tools are called
    through use_mcp_tool (text mode, and native mode with shared tools), so each is listed with
    its input schema and no function name; `native_mode`: each is a function of its own."""
    servers = r.context.mcp_servers
    if not servers:
        return None
    text_mode = not r.mcp_functions
    names = iter(() if text_mode else cache.mcp_names(servers))
    return {"servers": [{
        "name": attribute(s.name),
        "command": attribute(s.command or s.url),
        "tools": [{"name": attribute(t.name), "description": body(t.description),
                   "function": "" if text_mode else next(names).native_name,
                   "read_only": t.read_only,
                   "server": attribute(s.name),
                   "schema": cache.schema_text(t.input_schema) if text_mode else ""}
                  for t in s.tools],
        "resources": [{"uri": attribute(x.uri), "name": attribute(x.name),
                       "description": body(x.description), "mime_type": attribute(x.mime_type)}
                      for x in s.resources],
        "resource_templates": [{"uri_template": attribute(x.uri_template),
                                "name": attribute(x.name), "description": body(x.description),
                                "mime_type": attribute(x.mime_type)}
                               for x in s.resource_templates],
    } for s in servers], "text_mode": text_mode, "native_mode": not text_mode,
        "any_resources": any(s.resources or s.resource_templates for s in servers)}


def _editing(r: Request, _c: DataCache) -> Mapping[str, Any]:
    text_mode = r.tool_mode == "text"
    return {"text_mode": text_mode, "native_mode": not text_mode}


def _mode(r: Request, cache: DataCache) -> Mapping[str, Any]:
    """The current mode, and the offered tools it rules out (every mode offers the same tools,
    so that a mode switch keeps the cached prefix: this section says what the mode allows). In
    plan mode an MCP tool is allowed only when its server marks it read-only: natively offered
    ones are named; in text mode the rule is said once (the MCP section marks the read-only
    tools)."""
    mode = r.context.mode
    plan = mode == "plan"
    writable = [(s, t) for s in r.context.mcp_servers for t in s.tools if not t.read_only] \
        if plan else []
    native = r.mcp_functions
    refused_mcp: list[dict[str, str]] = []
    if writable and native:
        functions = {(b.server, b.tool): b.native_name
                     for b in cache.mcp_names(r.context.mcp_servers)}
        refused_mcp = [{"name": functions[(s.name, t.name)]} for s, t in writable
                       if (s.name, t.name) in functions]
    return {"plan": plan, "act": mode == "act",
            "not_now": [{"name": t.name} for t in r.tools if mode not in t.modes],
            "mcp_not_now": refused_mcp,
            "mcp_rule": bool(writable),
            "plan_only": [{"name": t.name} for t in r.tools if t.modes == ("plan",)],
            "act_only": [{"name": t.name} for t in r.tools if t.modes == ("act",)]}


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
    rules = [{"name": attribute(x.name), "origin": attribute(x.origin), "text": body(x.text)}
             for x in r.context.rules if x.text.strip()]
    return {"rules": rules} if rules else None


def _skills(r: Request, _c: DataCache) -> Mapping[str, Any] | None:
    skills = r.context.skills
    if not skills:
        return None
    return {"skills": [{"name": attribute(s.name), "description": body(s.description),
                        "references": attribute(", ".join(s.references))}
                       for s in skills],
            "any_references": any(s.references for s in skills),
            "text_mode": r.tool_mode == "text"}


def _task_progress(r: Request, _c: DataCache) -> Mapping[str, Any] | None:
    return {} if r.context.features.get("task_progress") else None


def _notices(r: Request, _c: DataCache) -> Mapping[str, Any] | None:
    images = [a.name for a in r.context.attachments if a.type.lower().startswith("image/")]
    if not images or r.provider.images:
        return None
    return {"unreadable_images": [{"name": attribute(n)} for n in images]}


# `required`: the core a budget never drops (the role, safety, the mode rule, the tool-call
# format) and every section that documents offered tools (a budget cannot withdraw the tools,
# so it keeps their documentation; it may still use the shorter form).
BUILTIN_DATA: dict[str, DataDef] = {
    "agent_role": DataDef(priority=100, required=True),
    "tool_use": DataDef(_tool_use, reads=("provider",), priority=95, required=True),
    "tool_calling": DataDef(_tool_calling, provides=("parallel", "sequential", "mcp_functions"),
                            reads=("provider",), priority=95, required=True),
    "tools": DataDef(_tools, provides=("tools", "session"), reads=("provider", "stable_tools"),
                     priority=90, required=True),
    "session_tools": DataDef(_session_tools, provides=("tools", "session"),
                             reads=("provider", "tools"), priority=90, required=True),
    "mcp_servers": DataDef(_mcp_servers, provides=("servers", "text_mode", "native_mode",
                                                   "any_resources"),
                           reads=("provider", "mcp_servers"), priority=70, required=True),
    "editing_files": DataDef(_editing, provides=("text_mode", "native_mode"),
                             reads=("provider",), priority=80, required=True),
    "act_vs_plan_mode": DataDef(_mode, provides=("plan", "act", "not_now", "mcp_not_now",
                                                 "mcp_rule", "plan_only", "act_only"),
                                reads=("mode", "tools", "provider", "mcp_servers"), priority=75,
                                required=True),
    "capabilities": DataDef(_capabilities, provides=("browser", "web_fetch", "images"),
                            reads=("provider", "features.browser", "features.web_fetch"),
                            priority=40),
    "rules": DataDef(priority=60),
    "safety": DataDef(priority=99, required=True),
    "system_info": DataDef(_system_info, provides=("os", "shell", "home", "cwd", "ide", "roots",
                                                   "multi_root"),
                           reads=("os", "shell", "home", "cwd", "ide", "workspace_roots"),
                           priority=85),
    "objective": DataDef(priority=65),
    "user_instructions": DataDef(_user_instructions, provides=("rules",), reads=("rules",),
                                 priority=88),
    "skills": DataDef(_skills, provides=("skills", "any_references", "text_mode"),
                      reads=("provider", "skills"), priority=55, required=True),
    "task_progress": DataDef(_task_progress, reads=("features.task_progress",), priority=30,
                             required=True),
    "notices": DataDef(_notices, provides=("unreadable_images",),
                       reads=("provider", "attachments"), priority=92),
    "request_info": DataDef(priority=20),
}
