"""The data behind the built-in component templates (the prose is in `components/<id>.md`).

Each entry says which context fields the template's data depends on, which keys it provides, how
important the section is when a budget is tight, and computes the values (or None: section absent).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from operator import attrgetter
from typing import Any

import attrs

from ._component import DataFunction
from ._context import PromptContext
from ._frozen import dumps_json, thaw
from ._memo import Memo
from ._placeholders import tool_mode_of
from ._provider import ProviderInfo
from ._tools import catalogue_data, enabled_tools
from ._variant import Variant

__all__ = ["BUILTIN_DATA", "DataDef", "tool_specs_for"]


KeyFunction = Callable[[PromptContext], Hashable]


@attrs.frozen
class DataDef:
    data: DataFunction | None = None
    provides: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()
    key: KeyFunction | None = None
    # (variant) -> (key function, fields read), when they depend on it
    key_factory: Callable[[Variant], tuple[KeyFunction | None, frozenset[str]]] | None = None
    # (variant) -> key by output-determining value (2nd level)
    content_key_factory: Callable[[Variant], KeyFunction] | None = None
    priority: int = 50
    required: bool = False


def _provider(ctx: PromptContext) -> ProviderInfo:
    """The plan's resolved provider: `Plan.canonical` sets it in every context a plan uses."""
    provider = ctx.provider
    if provider is None:
        raise RuntimeError("internal error: built-in component data computed for a context "
                           "without a provider (contexts must pass through Plan.canonical)")
    return provider


def _text_mode(variant: Variant, ctx: PromptContext) -> bool:
    return tool_mode_of(variant, _provider(ctx)) == "text"


def tool_specs_for(variant: Variant, ctx: PromptContext, on_error: Any = None) -> tuple[Any, ...]:
    provider = _provider(ctx)
    return enabled_tools(variant.tool_specs, ctx, provider, tool_mode_of(variant, provider),
                         on_error)


def _tool_use(variant: Variant, ctx: PromptContext) -> Mapping[str, Any] | None:
    return {} if _text_mode(variant, ctx) else None


def _tools(variant: Variant, ctx: PromptContext) -> Mapping[str, Any] | None:
    if not _text_mode(variant, ctx):
        return None  # native variants never compute the text catalogue
    specs = tool_specs_for(variant, ctx, _drop_tool)
    if not specs:
        return None
    return {"tools": catalogue_data(specs, ctx.skills)}


def _drop_tool(_spec: Any, _exc: Exception) -> None:
    """A raising tool condition drops that tool only (Plan.toolset reports it, naming it)."""


def tool_key_for(variant: Variant) -> tuple[Callable[[PromptContext], Hashable] | None,
                                              frozenset[str]]:
    """A memo key for this variant's tool set, and the context fields it depends on: the fields
    its tool conditions read, plus skill names and references when a parameter takes its options
    from them (never skill content). No fields: the tool set is static for the variant."""
    reads = sorted({r for spec in variant.tool_specs for r in spec.when.reads} - {"provider"})
    getters = [attrgetter(r) for r in reads]
    enums = any(p.enum_from for spec in variant.tool_specs for p in spec.parameters)
    fields = frozenset(reads) | ({"skills"} if enums else set())
    if not fields:
        return None, frozenset()

    def key(ctx: PromptContext) -> Hashable:
        values = tuple(g(ctx) for g in getters)
        if enums:
            return values, tuple((s.name, s.references) for s in ctx.skills)
        return values
    return key, fields


def tool_vector_for(variant: Variant) -> Callable[[PromptContext], Hashable]:
    """Which of the variant's tools are offered (one boolean each), plus the skill names and
    references their options come from: the catalogue is rendered once per such combination,
    however many sessions share it."""
    specs = variant.tool_specs
    enums = any(p.enum_from for spec in specs for p in spec.parameters)

    def holds(spec: Any, ctx: PromptContext, mode: str) -> bool:
        try:
            return bool(spec.when.test(ctx, ctx.provider, mode))
        except Exception:  # a raising condition drops its tool (reported with the tool set)
            return False

    def vector(ctx: PromptContext) -> Hashable:
        mode = tool_mode_of(variant, _provider(ctx))
        bits = tuple(holds(spec, ctx, mode) for spec in specs)
        if enums:
            return bits, tuple((s.name, s.references) for s in ctx.skills)
        return bits
    return vector


_schemas = Memo(2048)


def _schema_text(schema: Any) -> str:
    """An input schema as indented JSON, serialized once per distinct schema."""
    if not schema:
        return ""
    text = _schemas.get(schema)
    if text is None:
        # Indentation grows with depth, so a deeply nested schema would come out quadratic in
        # size: past a few levels, write it on one line instead (linear, same content).
        indent = 2 if _depth(schema) <= MAX_INDENTED_DEPTH else None
        text = _schemas.put(schema, dumps_json(thaw(schema), indent=indent))
    return text


MAX_INDENTED_DEPTH = 24


def _depth(value: Any) -> int:
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, d = stack.pop()
        deepest = max(deepest, d)
        if isinstance(node, Mapping):
            stack.extend((v, d + 1) for v in node.values())
        elif isinstance(node, tuple):
            stack.extend((v, d + 1) for v in node)
    return deepest


def _mcp_servers(variant: Variant, ctx: PromptContext) -> Mapping[str, Any] | None:
    if not ctx.mcp_servers:
        return None
    text_mode = _text_mode(variant, ctx)
    servers = []
    for s in ctx.mcp_servers:
        servers.append({
            "name": s.name,
            "command": s.command or s.url,
            "tools": [{"name": t.name, "description": t.description,
                       "schema": _schema_text(t.input_schema) if text_mode else ""}
                      for t in s.tools],
            "resources": [{"uri": r.uri, "name": r.name, "description": r.description,
                           "mime_type": r.mime_type} for r in s.resources],
            "resource_templates": [{"uri_template": r.uri_template, "name": r.name,
                                    "description": r.description, "mime_type": r.mime_type}
                                   for r in s.resource_templates],
        })
    return {"servers": servers, "text_mode": text_mode, "native_mode": not text_mode}


def _editing(variant: Variant, ctx: PromptContext) -> Mapping[str, Any]:
    text_mode = _text_mode(variant, ctx)
    return {"text_mode": text_mode, "native_mode": not text_mode}


def _mode(variant: Variant, ctx: PromptContext) -> Mapping[str, Any]:
    return {"plan": ctx.mode == "plan", "act": ctx.mode == "act"}


def _capabilities(variant: Variant, ctx: PromptContext) -> Mapping[str, Any]:
    return {"browser": bool(ctx.features.get("browser")),
            "web_fetch": bool(ctx.features.get("web_fetch")),
            "mcp": bool(ctx.mcp_servers),
            "images": bool(_provider(ctx).images)}


def _system_info(variant: Variant, ctx: PromptContext) -> Mapping[str, Any] | None:
    if not (ctx.os or ctx.shell or ctx.home or ctx.cwd or ctx.ide or ctx.workspace_roots):
        return None
    roots = [{"path": r.path, "name": r.name or r.path.rstrip("/").rsplit("/", 1)[-1],
              "vcs": r.vcs} for r in ctx.workspace_roots]
    return {"os": ctx.os, "shell": ctx.shell, "home": ctx.home, "cwd": ctx.cwd, "ide": ctx.ide,
            "roots": roots, "multi_root": len(roots) > 1}


def _user_instructions(variant: Variant, ctx: PromptContext) -> Mapping[str, Any] | None:
    rules = [{"name": r.name, "origin": r.origin, "text": r.text}
             for r in ctx.rules if r.text.strip()]
    return {"rules": rules} if rules else None


def _skills(variant: Variant, ctx: PromptContext) -> Mapping[str, Any] | None:
    if not ctx.skills:
        return None
    return {"skills": [{"name": s.name, "description": s.description,
                        "has_references": bool(s.references)} for s in ctx.skills],
            "any_references": any(s.references for s in ctx.skills),
            "text_mode": _text_mode(variant, ctx)}


def _skills_key(ctx: PromptContext) -> Hashable:
    return tuple((s.name, s.description, bool(s.references)) for s in ctx.skills)


def _task_progress(variant: Variant, ctx: PromptContext) -> Mapping[str, Any] | None:
    return {} if ctx.features.get("task_progress") else None


def _notices(variant: Variant, ctx: PromptContext) -> Mapping[str, Any] | None:
    images = [a.name for a in ctx.attachments if a.type.lower().startswith("image/")]
    if not images or _provider(ctx).images:
        return None
    return {"unreadable_images": [{"name": n} for n in images]}


def _notices_key(ctx: PromptContext) -> Hashable:
    return tuple(a.name for a in ctx.attachments if a.type.lower().startswith("image/"))


BUILTIN_DATA: dict[str, DataDef] = {
    "agent_role": DataDef(priority=100, required=True),
    "tool_use": DataDef(_tool_use, reads=("provider",), priority=95, required=True),
    "tools": DataDef(_tools, provides=("tools",), key_factory=tool_key_for,
                     content_key_factory=tool_vector_for, priority=90,
                     required=True, reads=("provider",)),
    "mcp_servers": DataDef(_mcp_servers, provides=("servers", "text_mode", "native_mode"),
                           reads=("provider", "mcp_servers"), priority=70),
    "editing_files": DataDef(_editing, provides=("text_mode", "native_mode"),
                             reads=("provider",), priority=80),
    "act_vs_plan_mode": DataDef(_mode, provides=("plan", "act"), reads=("mode",), priority=75),
    "capabilities": DataDef(_capabilities, provides=("browser", "web_fetch", "mcp", "images"),
                            reads=("provider", "features", "mcp_servers"), priority=40,
                            key=lambda c: (bool(c.features.get("browser")),
                                           bool(c.features.get("web_fetch")),
                                           bool(c.mcp_servers))),
    "rules": DataDef(priority=60),
    "system_info": DataDef(_system_info, provides=("os", "shell", "home", "cwd", "ide", "roots",
                                                   "multi_root"),
                           reads=("os", "shell", "home", "cwd", "ide", "workspace_roots"),
                           priority=85),
    "objective": DataDef(priority=65),
    "user_instructions": DataDef(_user_instructions, provides=("rules",), reads=("rules",),
                                 priority=88),
    "skills": DataDef(_skills, provides=("skills", "any_references", "text_mode"),
                      reads=("provider", "skills"), key=_skills_key, priority=55),
    "task_progress": DataDef(_task_progress, reads=("features",), priority=30,
                             key=lambda c: bool(c.features.get("task_progress"))),
    "notices": DataDef(_notices, provides=("unreadable_images",),
                       reads=("provider", "attachments"), key=_notices_key, priority=92),
    "request_info": DataDef(priority=20),
}
