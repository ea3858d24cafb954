"""The data the commands print with `--format json` or `--json`, built here once so that
`promptc serve` answers with exactly what the command line prints."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

import attrs

from .._base.errors import NoVariantError
from .._calls.records import ToolCall
from .._compile.compiled import CompiledPrompt, prompt_to_dict
from .._emit.payloads import PayloadOptions, native_tools, payload
from .._model.formats import DOORS
from .._model.provider import ProviderInfo, capability_sources, resolve_provider

if TYPE_CHECKING:
    import argparse

    from .._compile.compiler import Compiler
    from .._emit.toolset import ToolSet
    from .._model.context import PromptContext
    from .._model.routing import Resolution

__all__ = ["PayloadOptions", "payload_options", "render_data", "payload", "native_tools",
           "tools_text_data", "PAYLOAD_FORMATS",
           "Explained", "explain_data", "variant_rows", "parse_data"]


def payload_options(args: argparse.Namespace) -> PayloadOptions:
    """The payload options the command line gives (`--breakpoints`, `--openai-api`,
    `--strict-tools`, `--gemini-schema`)."""
    return PayloadOptions(breakpoints=getattr(args, "breakpoints", 2),
                          openai_api=args.openai_api, strict_tools=args.strict_tools == "yes",
                          gemini_schema=args.gemini_schema)


def render_data(prompt: CompiledPrompt) -> dict[str, Any]:
    """`render --format json`: the prompt, and the budget report when a budget changed it."""
    data = prompt_to_dict(prompt)
    if prompt.dropped:
        from .budget_report import budget_summary
        data["budget_report"] = budget_summary(prompt)[2]
    return data


PAYLOAD_FORMATS = DOORS  # the names `--format` takes for a payload or native tools


def tools_text_data(prompt: CompiledPrompt) -> dict[str, Any]:
    """`tools --format text` as data: the tools section's text (None for a variant that sends
    tools natively) and the names offered."""
    section = prompt.section("tools")
    return {"tool_mode": prompt.tools.mode, "text": section.text if section else None,
            "names": list(prompt.tools.names)}


@attrs.frozen
class Explained:
    """`explain --json`'s data, with the prompt and resolution the table view also reads."""

    data: dict[str, Any]
    prompt: CompiledPrompt
    resolution: Resolution


_PROVIDER_FACTS = ("provider", "model", "family", "context_window", "native_tools", "images",
                   "prompt_caching", "cache_min_tokens", "encoding")


def explain_data(compiler: Compiler, info: ProviderInfo, ctx: PromptContext,
                 variant: str | None) -> Explained:
    """Why this variant (every one tried), where each section and tool came from."""
    families, user = compiler.registry.families, compiler.registry.user_models
    resolved = resolve_provider(info, families, user)
    try:
        resolution = compiler.resolve(resolved, full_trace=True)
    except NoVariantError:
        if variant is None:
            raise
        resolution = compiler.registry.variant_for(variant)  # pinned: nothing else to try
    prompt = compiler.compile(info, ctx, variant=variant, count_tokens=True, strict=False)
    v = prompt.variant
    choice = prompt.tools.choice
    data: dict[str, Any] = {
        "provider": {k: getattr(resolved, k) for k in _PROVIDER_FACTS},
        "normalized_model": resolved.normalized_model,
        "capabilities": {name: {"value": value, "source": source}
                         for name, (value, source) in
                         capability_sources(info, families, user).items()},
        "variant": {"id": v.id, "family": v.family, "source": v.source, "path": v.path,
                    "extends": v.extends, "chosen_by": "id" if variant else resolution.by,
                    "tool_mode": prompt.tools.mode,
                    # the `extends` chain, this variant first, and each section edit
                    "chain": [{"id": vid, "source": src, "path": path}
                              for vid, src, path in v.lineage],
                    "edits": [e.to_dict() for cid in v.edits for e in v.edits[cid]]},
        "tool_mode": {"mode": prompt.tools.mode} if choice is None else choice.to_dict(),
        "trace": [t.to_dict() for t in resolution.trace],
        "sections": [s.to_dict() for s in prompt.sections],
        "tools": _tool_origins(prompt.tools),
        "placeholders": dict(sorted(prompt.placeholders.items())),
        "sources": [{"layer": layer, "path": path} for layer, path in compiler.sources],
        "overrides_not_used": [f.to_dict() for f in unused_overrides(compiler, v.id)],
        "diagnostics": [d.to_dict() for d in prompt.diagnostics],
    }
    return Explained(data, prompt, resolution)


def unused_overrides(compiler: Compiler, vid: str) -> list[Any]:
    """Override files that do not reach this variant (see promptc._load.noops)."""
    return [f for f in compiler.registry.findings
            if f.code == "override-unused" and f"variant {vid!r}:" in f.message]


def _tool_origins(tools: ToolSet) -> list[dict[str, Any]]:
    """Each offered tool, where it came from (a source and file, or an MCP server's tool)."""
    return [{"name": t.name, "source": t.source, "origin": t.origin} for t in tools.specs] + \
        [{"name": b.native_name, "source": f"mcp:{b.server}", "origin": b.tool}
         for b in tools.mcp]


def variant_rows(compiler: Compiler) -> list[dict[str, Any]]:
    """`variants --json`: every registered variant in the order they are tried, with the
    runtime inputs each declares."""
    from .catalogue import input_rows
    reg = compiler.registry
    order = {v.id: i for i, v in enumerate(reg.order)}
    overrides = [f.message for f in reg.findings if f.code == "overridden"]
    rows = []
    for v in sorted(reg.variants.values(), key=lambda v: (order.get(v.id, 1 << 30), v.id)):
        # what another source replaced in this variant: the variant itself, its own files, or a
        # shared component or tool it uses
        mine = [m for m in overrides if f"variant {v.id!r}" in m or any(
            m.startswith((f"component {c!r} ", f"tool {c!r} "))
            for c in (*v.components, *v.tools))]
        rows.append({"id": v.id, "family": v.family, "priority": v.priority, "source": v.source,
                     "extends": v.extends, "fallback": v.fallback, "tool_mode": v.tool_mode,
                     "match": v.matcher.description, "path": v.path,
                     "description": v.description, "overrides": mine,
                     "inputs": input_rows(v.inputs)})
    return rows


def parse_data(prompt: CompiledPrompt, reply: str, mode: Literal["plan", "act"] | None = None
               ) -> tuple[dict[str, Any], bool]:
    """`parse`'s JSON for a reply (checked in `mode`, default the context's), and whether any
    call in it has errors."""
    parsed = prompt.tools.parse(reply, mode=mode)
    data = {"tool_mode": prompt.tools.mode,
            "parts": [p if isinstance(p, str) else
                      {"call" if isinstance(p, ToolCall) else "error": p.to_dict()}
                      for p in parsed.parts],
            "warnings": [w.to_dict() for w in parsed.warnings]}
    return data, bool(parsed.errors)
