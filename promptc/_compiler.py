"""The Compiler: a frozen registry plus per-(variant, provider) plans, serving many threads.

`compile()` is the per-request path: resolve (memoized per provider), produce sections (memoized
by what each reads), join the base layout, and wrap the result. Everything else is load time.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from ._context import PromptContext
from ._errors import NoVariantError, PluginError
from ._loader import Layer, read_layer
from ._memo import Memo
from ._plan import ERRORS, Plan
from ._plugins import PluginSet, load_plugins
from ._provider import ProviderInfo
from ._registry import Registry, build_registry
from ._result import CompiledPrompt, Diagnostic, Reporter, Resolution, Section
from ._sources import builtin_root, find_project_folder, user_folder

__all__ = ["Compiler"]


class Compiler:
    """Compiles prompts. Build one per process (`Compiler.default()`), share it across threads."""

    def __init__(self, registry: Registry, *, plugins: PluginSet | None = None,
                 sources: Sequence[tuple[str, str]] = (), memo_size: int = 512) -> None:
        self.registry = registry
        self.plugins = plugins
        self.sources = tuple(sources)
        self._memo_size = memo_size
        diags = list(registry.diagnostics)
        if plugins is not None:
            diags.extend(plugins.diagnostics)
        self.load_diagnostics: tuple[Diagnostic, ...] = tuple(diags)
        self._entries = Memo(4096)
        self._plans: dict[tuple[str, ProviderInfo], Plan] = {}
        self._lock = threading.Lock()
        self._context_hooks = plugins.context_hooks if plugins else ()
        self._inspect_hooks = plugins.inspect_hooks if plugins else ()

    # --- construction ------------------------------------------------------------------------

    @classmethod
    def default(cls, *, project: str | Path | None | bool = None, user: bool = True,
                plugins: bool = True, start: str | Path | None = None) -> Compiler:
        """Built-ins + installed plugins + user folder + project folder, frozen.

        `project`: a `.promptc` folder, or None to look for one from `start` (default: the
        process's working directory, read once here), or False for none.
        """
        layers = [read_layer(builtin_root(), "builtin")]
        sources = [("builtin", str(builtin_root()))]
        plugin_set = None
        if plugins:
            builtin = layers[0]
            plugin_set = load_plugins(validate=lambda layer: build_registry([builtin, layer]))
            layers.extend(plugin_set.layers)
            sources.extend((layer.source, layer.root) for layer in plugin_set.layers)
        if user:
            folder = user_folder()
            if folder.is_dir():
                layers.append(read_layer(folder, "user"))
                sources.append(("user", str(folder)))
        if project is not False:
            if project is None or project is True:
                found = find_project_folder(start if start is not None else Path.cwd())
            else:
                found = Path(project)
                if not found.is_dir():
                    from ._errors import ConfigError
                    raise ConfigError("project folder not found", source=str(found))
            if found is not None:
                layers.append(read_layer(found, "project"))
                sources.append(("project", str(found)))
        registry = build_registry(layers)
        if plugin_set is not None:
            registry = attrs.evolve(registry, findings=registry.findings + plugin_set.findings)
        return cls(registry, plugins=plugin_set, sources=sources)

    @classmethod
    def builtins(cls) -> Compiler:
        """Only the built-in variants: no plugins, no user or project folder (tests, snapshots)."""
        return cls.default(project=False, user=False, plugins=False)

    @classmethod
    def from_layers(cls, layers: Iterable[Layer]) -> Compiler:
        return cls(build_registry(layers))

    @classmethod
    def from_folders(cls, *folders: str | Path, builtins: bool = True) -> Compiler:
        """Built-ins (optionally) plus the given folders, later ones overriding earlier ones."""
        layers = [read_layer(builtin_root(), "builtin")] if builtins else []
        layers += [read_layer(Path(f), f"folder:{f}") for f in folders]
        return cls.from_layers(layers)

    # --- resolution --------------------------------------------------------------------------

    def resolve(self, provider: ProviderInfo, *, strict: bool = False,
                full_trace: bool = False) -> Resolution:
        return self.registry.resolve(provider, strict=strict, full_trace=full_trace)

    def _entry(self, provider: ProviderInfo, variant: str | None) -> tuple[Plan, Resolution]:
        key = (provider, variant)
        hit = self._entries.get(key)
        if hit is not None:
            return hit
        info = provider.resolved()
        if variant is not None:
            chosen = self.registry.get(variant)
            resolution = Resolution(chosen, (), "id")
        else:
            resolution = self.registry.resolve(info)
        plan_key = (resolution.variant.id, info)
        plan = self._plans.get(plan_key)
        if plan is None:
            with self._lock:
                plan = self._plans.get(plan_key)
                if plan is None:
                    plan = Plan(resolution.variant, info, self.registry.components,
                                self._memo_size, self.registry.reserved_tools)
                    self._plans[plan_key] = plan
        return self._entries.put(key, (plan, resolution))

    def plan(self, provider: ProviderInfo, variant: str | None = None) -> Plan:
        return self._entry(provider, variant)[0]

    # --- the per-request path ----------------------------------------------------------------

    def compile(self, provider: ProviderInfo | None = None, context: PromptContext | None = None,
                *, strict: bool = False, budget: int | None = None,
                count_tokens: bool | None = None, variant: str | None = None) -> CompiledPrompt:
        """Build the prompt for one request.

        Lenient (default): failing matchers, components, plugins and tool conditions are skipped
        and reported in `diagnostics`. Strict: the first warning or error raises a typed error.
        """
        if context is None:
            context = PromptContext()
        if provider is None:
            provider = context.provider
            if provider is None:
                raise NoVariantError("no provider: pass a ProviderInfo or set context.provider")
        plan, resolution = self._entry(provider, variant)
        ctx = plan.canonical(context)
        # An identical request (equal context, date given) gets the identical, immutable result.
        reusable = budget is None and ctx.date is not None and not self._context_hooks and \
            not self._inspect_hooks
        if reusable:
            done = plan.results.get((ctx, bool(count_tokens)))
            if done is not None and not (strict and done.diagnostics):
                return done
        report = Reporter(strict)
        if self.load_diagnostics:
            report.extend(self.load_diagnostics, ERRORS)
        if resolution.diagnostics:
            report.extend(resolution.diagnostics, ERRORS)
        if plan.diagnostics:
            report.extend(plan.diagnostics, ERRORS)
        if self._context_hooks:
            ctx = self._contribute(ctx, report)
        runtime_values = plan.runtime_values(ctx, report)
        sections = plan.sections(ctx, runtime_values, report)
        toolset = plan.toolset(ctx, report)
        text, spans, layers = plan.assemble(sections, ctx, runtime_values)
        kept: list[Section] = []
        kept_spans: list[tuple[int, int]] = []
        for section, span in zip(sections, spans):
            if section is not None and span is not None:
                kept.append(section)
                kept_spans.append(span)
        prompt = CompiledPrompt(text=text, variant=plan.variant, provider=plan.provider,
                                sections=tuple(kept), spans=tuple(kept_spans), tools=toolset,
                                diagnostics=tuple(report.items), trace=resolution.trace,
                                placeholders=layers)
        if budget is not None or count_tokens:
            from ._budget import fit_budget, with_token_counts
            if budget is not None:
                prompt = fit_budget(self, plan, prompt, ctx, runtime_values, budget, report)
            else:
                prompt = with_token_counts(prompt)
        if self._inspect_hooks:
            prompt = self._inspect(prompt, report)
        if reusable:
            plan.results.put((ctx, bool(count_tokens)), prompt)
        return prompt

    def _contribute(self, ctx: PromptContext, report: Reporter) -> PromptContext:
        from ._errors import ContextError
        from ._schema import field_names
        allowed = set(field_names(PromptContext)) - {"provider"}
        for name, hook in self._context_hooks:
            try:
                extra = hook(context=ctx, provider=ctx.provider)
                if not extra:
                    continue
                if not isinstance(extra, Mapping):
                    raise TypeError(f"returned {type(extra).__name__}, not a table")
                fill = {}
                for key, value in extra.items():
                    if key not in allowed:
                        raise ContextError(f"unknown context field {key!r}")
                    if not getattr(ctx, key):
                        fill[key] = value
                if fill:
                    base = ctx.to_dict()
                    base.pop("provider", None)
                    base.update(fill)
                    ctx = attrs.evolve(PromptContext.from_dict(base, source=f"plugin:{name}"),
                                       provider=ctx.provider)
            except Exception as exc:
                report("error", "plugin-hook",
                       f"plugin {name!r}: promptc_contribute_context raised "
                       f"{type(exc).__name__}: {exc}; its contribution is skipped",
                       f"plugin:{name}", PluginError)
        return ctx

    def _inspect(self, prompt: CompiledPrompt, report: Reporter) -> CompiledPrompt:
        before = len(report.items)
        for name, hook in self._inspect_hooks:
            try:
                result = hook(prompt=prompt) or ()
                notes = [result] if isinstance(result, str) else list(result)
            except Exception as exc:  # a PromptcError from the plugin's own code too
                report("error", "plugin-hook",
                       f"plugin {name!r}: promptc_inspect_prompt raised "
                       f"{type(exc).__name__}: {exc}", f"plugin:{name}", PluginError)
                continue
            for note in notes:
                report("warning", "plugin-finding", f"plugin {name!r}: {note}",
                       f"plugin:{name}", PluginError)
        if len(report.items) == before:
            return prompt
        return attrs.evolve(prompt, diagnostics=tuple(report.items))

    # --- introspection -----------------------------------------------------------------------

    @property
    def variants(self) -> Mapping[str, Any]:
        return self.registry.variants

    def explain(self, provider: ProviderInfo, context: PromptContext | None = None, *,
                variant: str | None = None) -> dict[str, Any]:
        """Why this variant, and where each section's text came from."""
        info = provider.resolved()
        resolution = self.registry.resolve(info, full_trace=True)
        prompt = self.compile(provider, context, variant=variant)
        return {"resolution": resolution, "prompt": prompt}

