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
from .._model.tools import McpBinding, catalogue_data, mcp_bindings

__all__ = ["BUILTIN_DATA", "DataDef", "DataCache", "MAX_INDENTED_DEPTH"]


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
        """An input schema as indented JSON, written once per distinct schema (keyed by its
        canonical JSON text, which is typed and complete)."""
        if not schema:
            return ""
        key = schema.json_text
        text: str | None = self._schemas.get(key)
        if text is None:
            value = thaw(schema)
            # Indentation grows with depth, so a deeply nested schema would come out quadratic
            # in size: past a few levels, write it on one line instead (linear, same content).
            indent = 2 if _depth(value) <= MAX_INDENTED_DEPTH else None
            text = self._schemas.put(key, dumps_json(value, indent=indent))
        return text


Data = Callable[[Request, DataCache], "Mapping[str, Any] | None"]


@attrs.frozen
class DataDef:
    data: Data | None = None
    provides: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()
    priority: int = 50
    required: bool = False


MAX_INDENTED_DEPTH = 24


def _depth(value: Any) -> int:
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, d = stack.pop()
        deepest = max(deepest, d)
        if isinstance(node, dict):
            stack.extend((v, d + 1) for v in node.values())
        elif isinstance(node, list):
            stack.extend((v, d + 1) for v in node)
    return deepest


def _tool_use(r: Request, _c: DataCache) -> Mapping[str, Any] | None:
    return {} if r.tool_mode == "text" else None


def _tool_calling(r: Request, _c: DataCache) -> Mapping[str, Any] | None:
    return {} if r.tool_mode == "native" else None


def _tools(r: Request, _c: DataCache) -> Mapping[str, Any] | None:
    if r.tool_mode != "text" or not r.tools:
        return None  # native variants never compute the text catalogue
    return {"tools": catalogue_data(r.tools, r.enum_sources)}


def _mcp_servers(r: Request, cache: DataCache) -> Mapping[str, Any] | None:
    servers = r.context.mcp_servers
    if not servers:
        return None
    text_mode = r.tool_mode == "text"
    names = iter(() if text_mode else cache.mcp_names(servers))
    return {"servers": [{
        "name": s.name,
        "command": s.command or s.url,
        "tools": [{"name": t.name, "description": t.description,
                   "function": "" if text_mode else next(names).native_name,
                   "server": s.name,
                   "schema": cache.schema_text(t.input_schema) if text_mode else ""}
                  for t in s.tools],
        "resources": [{"uri": x.uri, "name": x.name, "description": x.description,
                       "mime_type": x.mime_type} for x in s.resources],
        "resource_templates": [{"uri_template": x.uri_template, "name": x.name,
                                "description": x.description, "mime_type": x.mime_type}
                               for x in s.resource_templates],
    } for s in servers], "text_mode": text_mode, "native_mode": not text_mode}


def _editing(r: Request, _c: DataCache) -> Mapping[str, Any]:
    text_mode = r.tool_mode == "text"
    return {"text_mode": text_mode, "native_mode": not text_mode}


def _mode(r: Request, _c: DataCache) -> Mapping[str, Any]:
    return {"plan": r.context.mode == "plan", "act": r.context.mode == "act"}


def _capabilities(r: Request, _c: DataCache) -> Mapping[str, Any]:
    features = r.context.features
    return {"browser": bool(features.get("browser")),
            "web_fetch": bool(features.get("web_fetch")),
            "mcp": bool(r.context.mcp_servers),
            "images": bool(r.provider.images)}


def _system_info(r: Request, _c: DataCache) -> Mapping[str, Any] | None:
    c = r.context
    if not (c.os or c.shell or c.home or c.cwd or c.ide or c.workspace_roots):
        return None
    roots = [{"path": w.path, "name": w.name or w.path.rstrip("/").rsplit("/", 1)[-1],
              "vcs": w.vcs} for w in c.workspace_roots]
    return {"os": c.os, "shell": c.shell, "home": c.home, "cwd": c.cwd, "ide": c.ide,
            "roots": roots, "multi_root": len(roots) > 1}


def _user_instructions(r: Request, _c: DataCache) -> Mapping[str, Any] | None:
    rules = [{"name": x.name, "origin": x.origin, "text": x.text}
             for x in r.context.rules if x.text.strip()]
    return {"rules": rules} if rules else None


def _skills(r: Request, _c: DataCache) -> Mapping[str, Any] | None:
    skills = r.context.skills
    if not skills:
        return None
    return {"skills": [{"name": s.name, "description": s.description,
                        "has_references": bool(s.references)} for s in skills],
            "any_references": any(s.references for s in skills),
            "text_mode": r.tool_mode == "text"}


def _task_progress(r: Request, _c: DataCache) -> Mapping[str, Any] | None:
    return {} if r.context.features.get("task_progress") else None


def _notices(r: Request, _c: DataCache) -> Mapping[str, Any] | None:
    images = [a.name for a in r.context.attachments if a.type.lower().startswith("image/")]
    if not images or r.provider.images:
        return None
    return {"unreadable_images": [{"name": n} for n in images]}


BUILTIN_DATA: dict[str, DataDef] = {
    "agent_role": DataDef(priority=100, required=True),
    "tool_use": DataDef(_tool_use, reads=("provider",), priority=95, required=True),
    "tool_calling": DataDef(_tool_calling, reads=("provider",), priority=95, required=True),
    "tools": DataDef(_tools, provides=("tools",), reads=("provider", "tools"), priority=90,
                     required=True),
    "mcp_servers": DataDef(_mcp_servers, provides=("servers", "text_mode", "native_mode"),
                           reads=("provider", "mcp_servers"), priority=70),
    "editing_files": DataDef(_editing, provides=("text_mode", "native_mode"),
                             reads=("provider",), priority=80),
    "act_vs_plan_mode": DataDef(_mode, provides=("plan", "act"), reads=("mode",), priority=75),
    "capabilities": DataDef(_capabilities, provides=("browser", "web_fetch", "mcp", "images"),
                            reads=("provider", "features.browser", "features.web_fetch",
                                   "mcp_servers"), priority=40),
    "rules": DataDef(priority=60),
    "system_info": DataDef(_system_info, provides=("os", "shell", "home", "cwd", "ide", "roots",
                                                   "multi_root"),
                           reads=("os", "shell", "home", "cwd", "ide", "workspace_roots"),
                           priority=85),
    "objective": DataDef(priority=65),
    "user_instructions": DataDef(_user_instructions, provides=("rules",), reads=("rules",),
                                 priority=88),
    "skills": DataDef(_skills, provides=("skills", "any_references", "text_mode"),
                      reads=("provider", "skills"), priority=55),
    "task_progress": DataDef(_task_progress, reads=("features.task_progress",), priority=30),
    "notices": DataDef(_notices, provides=("unreadable_images",),
                       reads=("provider", "attachments"), priority=92),
    "request_info": DataDef(priority=20),
}
