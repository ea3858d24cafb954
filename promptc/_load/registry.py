"""The registry: every variant, component and tool from every source, layered and frozen.

Precedence (later wins, by id, at any grain): built-ins < plugins < user folder < project folder.
A folder that defines `variants/<id>/variant.toml` replaces that variant; a folder with only
`template.md` or `components/<cid>.md` under `variants/<id>/` overlays those files onto it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

import attrs

from .._base.errors import PLUGIN_FAILURES, NoVariantError, ToolSpecError, VariantConfigError
from .._base.frozen import FrozenDict
from .._base.suggest import did_you_mean
from .._model.component import Component
from .._model.diagnostics import Diagnostic, Reporter
from .._model.features import FeatureSet, feature_set
from .._model.inputs import InputSpec, parse_inputs
from .._model.matchers import NEVER, Matcher, compile_matcher, python_matcher
from .._model.provider import FamilyRule, ProviderInfo, merged_families, resolve_provider
from .._model.tools import ToolSpec
from .._model.variant import (ComponentSettings, Variant, check_variant_table,
                              parse_component_settings)
from .._text.template import Template, parsed_template
from .builtin_data import BUILTIN_DATA
from .features import declared_features
from .noops import unused_overrides
from .folders import Layer, RawVariant, TextFile

__all__ = ["Registry", "build_registry", "TraceEntry", "Resolution", "PluginVariant",
           "plugin_raw_variant", "compile_component"]


@attrs.frozen
class TraceEntry:
    """One variant tried during resolution."""

    variant: str
    priority: int
    matched: bool | None  # None: the matcher raised
    reason: str
    source: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"variant": self.variant, "priority": self.priority, "matched": self.matched,
                "raised": self.matched is None, "reason": self.reason, "source": self.source}


@attrs.frozen
class Resolution:
    """Which variant a provider gets, how it was chosen, and every matcher tried."""

    variant: Variant
    trace: tuple[TraceEntry, ...]
    by: Literal["matcher", "fallback", "id"]
    diagnostics: tuple[Diagnostic, ...] = ()


@attrs.frozen
class Registry:
    """Frozen after build: safe to share between threads."""

    variants: FrozenDict  # id -> Variant
    components: FrozenDict  # id -> Component
    tools: FrozenDict  # name -> ToolSpec
    reserved_tools: frozenset[str]
    order: tuple[Variant, ...]  # variants with matchers, by (priority, id)
    fallback: Variant | None
    diagnostics: tuple[Diagnostic, ...] = ()
    findings: tuple[Diagnostic, ...] = ()  # lint-only observations made while layering
    # the feature switches a context may set: what the tools and components read, and what
    # plugins declare
    features: FeatureSet = attrs.field(factory=lambda: feature_set(()))
    # model families from plugins' and folders' models.toml, tried before the built-in ones
    families: tuple[FamilyRule, ...] = ()
    # whether facts may come from the user's model table (not with --no-user/--builtins-only)
    user_models: bool = True

    def get(self, variant_id: str) -> Variant:
        try:
            variant: Variant = self.variants[variant_id]
            return variant
        except KeyError:
            raise NoVariantError(f"no variant {variant_id!r}" +
                                 did_you_mean(variant_id, self.variants), field="variant") from None

    def resolve(self, provider: ProviderInfo, *, strict: bool = False,
                full_trace: bool = False) -> Resolution:
        """First matching variant by (priority, id), else the fallback; with a trace."""
        info = resolve_provider(provider, self.families, self.user_models)
        report = Reporter(strict)
        trace: list[TraceEntry] = []
        chosen: Variant | None = None
        for v in self.order:
            if chosen is not None and not full_trace:
                break
            try:
                ok, why = v.matcher(info)
            except PLUGIN_FAILURES as exc:
                trace.append(TraceEntry(v.id, v.priority, None,
                                        f"raised {type(exc).__name__}: {exc}", v.source))
                report("error", "matcher-raised",
                       f"matcher of variant {v.id!r} raised {type(exc).__name__}: {exc}", v.id)
                continue
            if chosen is not None:
                why = f"{why} (not used: {chosen.id!r} came first)" if ok else why
            trace.append(TraceEntry(v.id, v.priority, ok, why, v.source))
            if ok and chosen is None:
                chosen = v
        if chosen is not None:
            return Resolution(chosen, tuple(trace), "matcher", tuple(report.items))
        if self.fallback is not None:
            trace.append(TraceEntry(self.fallback.id, self.fallback.priority, True,
                                    "fallback: no matcher matched", self.fallback.source))
            return Resolution(self.fallback, tuple(trace), "fallback", tuple(report.items))
        tried = ", ".join(f"{t.variant} ({t.reason})" for t in trace) or "no variants"
        raise NoVariantError(f"no variant matches provider {info.provider!r} model "
                             f"{info.model!r} and there is no fallback; tried: {tried}")

    def variant_for(self, variant_id: str) -> Resolution:
        """The resolution of a request that names its variant (no matcher is tried)."""
        return Resolution(self.get(variant_id), (), "id")


# --- building ---------------------------------------------------------------------------------

@attrs.frozen
class PluginVariant:
    """A variant a plugin registered in Python: a variant.toml-like table plus texts."""

    table: dict[str, Any]
    template: str | None = None
    components: dict[str, str] = attrs.field(factory=dict)
    matcher: Any = None


def compile_component(comp: Component) -> Component:
    """Parse a component's templates now, so a bad template fails the load, not a request."""
    parsed = parsed_short = None
    if comp.template is not None:
        parsed = parsed_template(comp.template, comp.path or comp.origin or comp.id)
    if comp.short_template is not None:
        parsed_short = parsed_template(comp.short_template,
                                        comp.short_path or comp.short_origin or
                                        f"{comp.id}.short")
    return attrs.evolve(comp, parsed=parsed, parsed_short=parsed_short)


def _component_from(cid: str, text: TextFile, short: TextFile | None) -> Component:
    """A component from a folder's text file; a built-in id keeps its built-in data."""
    d = BUILTIN_DATA.get(cid)
    comp = Component(id=cid, template=text.text, provides=d.provides if d else (),
                     reads=(d.reads if d and d.data is not None else ()),
                     priority=d.priority if d else 50, required=d.required if d else False,
                     short_template=short.text if short else None, source=text.source,
                     origin=text.origin or text.path,
                     short_origin=(short.origin or short.path) if short else "",
                     path=text.path, short_path=short.path if short else "")
    if d is not None and d.data is not None:
        comp = attrs.evolve(comp, request_data=d.data)
    return compile_component(comp)


def _short_over(cid: str, short: TextFile, base: Component | None) -> Component:
    """A folder's `<cid>.short.md` without `<cid>.md`: a new shorter form for the earlier text."""
    if base is None or base.template is None:
        parsed_template(short.text, short.path)  # a syntax error first, naming the file
        raise VariantConfigError(f"shorter form of component {cid!r}, which no earlier source "
                                 "defines as a template", source=short.path)
    return compile_component(attrs.evolve(base, short_template=short.text,
                                          short_path=short.path,
                                          short_origin=short.origin or short.path))


def build_registry(layers: Iterable[Layer], diagnostics: Iterable[Diagnostic] = (),
                   findings: Iterable[Diagnostic] = (), user_models: bool = True) -> Registry:
    """Layer sources in the order given and freeze the result; raise on any config error.

    `findings` are lint-only observations made before (plugin conflicts) that the registry
    keeps with its own.
    """
    layers = list(layers)
    diags: list[Diagnostic] = list(diagnostics)
    found: list[Diagnostic] = []
    components: dict[str, Component] = {}
    tools: dict[str, ToolSpec] = {}
    reserved: set[str] = set()
    raws: dict[str, RawVariant] = {}

    def replaced(kind: str, name: str, old: str, new: str) -> None:
        if old != new:  # an override is intended, but never silent: lint lists it
            found.append(Diagnostic("info", "overridden",
                                       f"{kind} {name!r} from {old} is replaced by {new}", new))
    for layer in layers:
        diags.extend(layer.notes)
        for cid in [*layer.components, *layer.functions]:
            if not cid.endswith(".short") and cid in components:
                replaced("component", cid, components[cid].source, layer.source)
        for name in layer.tools:
            if name in tools:
                replaced("tool", name, tools[name].source, layer.source)
        for vid, raw in layer.variants.items():
            if vid in raws and raw.table is not None:
                replaced("variant", vid, raws[vid].source, layer.source)
            elif vid in raws:  # a folder overlaying some of an earlier variant's files
                earlier = raws[vid]
                if raw.template is not None and earlier.template is not None:
                    replaced(f"template of variant {vid!r}:", "template.md",
                             earlier.template.origin or earlier.template.path,
                             raw.template.origin or raw.template.path)
                for cid, tf in raw.components.items():
                    before = earlier.components.get(cid)
                    shared = components.get(cid)
                    old = before.origin or before.path if before is not None else (
                        shared.origin if shared is not None else "")
                    if old:
                        replaced(f"component of variant {vid!r}:", cid, old, tf.origin or tf.path)
        # Components: later layers win by id; a text replaces a function and vice versa.
        for cid, tf in layer.components.items():
            if not cid.endswith(".short"):
                components[cid] = _component_from(cid, tf, layer.components.get(cid + ".short"))
            elif cid[:-6] not in layer.components:  # only the shorter form: overlay it
                components[cid[:-6]] = _short_over(cid[:-6], tf, components.get(cid[:-6]))
        components.update((cid, compile_component(c)) for cid, c in layer.functions.items())
        # Tools: built-in names are reserved; others replace one only with `override = true`.
        for name, spec in layer.tools.items():
            if layer.source == "builtin":
                reserved.add(name)
            elif name in reserved and not spec.override:
                raise ToolSpecError(f"tool name {name!r} is reserved by a built-in tool; set "
                                    "`override = true` to replace its spec on purpose",
                                    source=spec.origin or layer.source, field="name")
            tools[name] = spec
        # Variants: raw contributions layered by id.
        for vid, raw in layer.variants.items():
            raws[vid] = _overlay(raws.get(vid), raw)

    for spec in tools.values():
        for i, p in enumerate(spec.parameters):
            for dep in p.depends_on:
                if dep not in tools:
                    raise ToolSpecError(f"parameter {p.name!r} depends on unknown tool {dep!r}" +
                                        did_you_mean(dep, tools), source=spec.origin,
                                        field=f"parameters[{i}].depends_on")
    variants = _resolve_all(raws, tools, components)
    ordered = sorted((v for v in variants.values() if v.matcher is not NEVER),
                     key=lambda v: (v.priority, v.id))
    fallbacks = sorted((v for v in variants.values() if v.fallback),
                       key=lambda v: (v.priority, v.id))
    if len(fallbacks) > 1:
        found.append(Diagnostic("warning", "fallback-duplicate",
                                   f"{len(fallbacks)} fallback variants "
                                   f"({', '.join(v.id for v in fallbacks)}); "
                                   f"{fallbacks[0].id!r} is used", fallbacks[1].path))
    features = declared_features(tools, components, variants,
                                 [f for layer in layers for f in layer.features])
    found.extend(unused_overrides(layers, variants))
    families, renamed = merged_families([(layer.source, layer.families) for layer in layers])
    for fid, old, new in renamed:
        replaced(f"model family {fid!r}:", "models.toml", old, new)
    return Registry(variants=FrozenDict(dict(sorted(variants.items()))),
                    components=FrozenDict(dict(sorted(components.items()))),
                    tools=FrozenDict(dict(sorted(tools.items()))),
                    reserved_tools=frozenset(reserved), order=tuple(ordered),
                    fallback=fallbacks[0] if fallbacks else None, diagnostics=tuple(diags),
                    findings=(*found, *findings), features=features, families=families,
                    user_models=user_models)


def plugin_raw_variant(pv: PluginVariant, source: str) -> RawVariant:
    vid = pv.table.get("id")
    where = f"{source} (variant {vid!r})"
    if not isinstance(vid, str) or not vid:
        raise VariantConfigError("a plugin variant needs an `id`", source=source, field="id")
    check_variant_table(pv.table, where)
    comps = {cid: TextFile(text, f"{where} component {cid}", source)
             for cid, text in pv.components.items()}
    template = TextFile(pv.template, f"{where} template", source) if pv.template else None
    return RawVariant(id=vid, source=source, folder="", table=dict(pv.table), toml_path=where,
                      template=template, components=comps, matcher=pv.matcher)


def _overlay(base: RawVariant | None, top: RawVariant) -> RawVariant:
    """Apply a later folder's files for one variant id."""
    if base is None or top.table is not None:
        if base is not None and top.table is not None and top.template is None and \
                "extends" not in top.table:
            # A replacing variant.toml without its own template keeps the earlier template.
            return attrs.evolve(top, template=base.template)
        return top
    return attrs.evolve(base, template=top.template or base.template,
                        components={**base.components, **top.components},
                        tools={**base.tools, **top.tools})


_NOT_INHERITED = ("id", "match", "fallback", "priority", "extends", "template")


def _resolve_all(raws: Mapping[str, RawVariant], tools: Mapping[str, ToolSpec],
                 components: Mapping[str, Component]) -> dict[str, Variant]:
    resolved: dict[str, Variant] = {}
    for vid in sorted(raws):
        _resolve_one(vid, raws, resolved, tools, [])
    return resolved


def _resolve_one(vid: str, raws: Mapping[str, RawVariant], done: dict[str, Variant],
                 tools: Mapping[str, ToolSpec], chain: list[str]) -> Variant:
    if vid in done:
        return done[vid]
    raw = raws[vid]
    if raw.table is None:
        where = raw.template.path if raw.template else raw.folder
        raise VariantConfigError(f"overrides variant {vid!r}, which no earlier source defines",
                                 source=where)
    table = raw.table
    parent: Variant | None = None
    parent_id = table.get("extends")
    if parent_id is not None:
        if parent_id == vid or parent_id in chain:
            cycle = " -> ".join([*chain, vid, parent_id])
            raise VariantConfigError(f"circular extends: {cycle}", source=raw.toml_path,
                                     field="extends")
        if parent_id not in raws:
            raise VariantConfigError(f"extends unknown variant {parent_id!r}" +
                                     did_you_mean(parent_id, raws), source=raw.toml_path,
                                     field="extends")
        parent = _resolve_one(parent_id, raws, done, tools, [*chain, vid])
    src = raw.toml_path
    # template
    if raw.template is not None:
        template = parsed_template(raw.template.text, raw.template.path)
        template_origin = raw.template.origin or raw.template.path
    elif parent is not None:
        template = parent.template
        template_origin = parent.origins.get("template", "")
    else:
        raise VariantConfigError("no template.md and no `extends` to inherit one from",
                                 source=src, field="template")
    # component overrides (this variant's own texts over the inherited ones)
    comp_templates: dict[str, Template] = dict(parent.component_templates) if parent else {}
    for cid, tf in raw.components.items():
        comp_templates[cid] = parsed_template(tf.text, tf.path)
    settings: dict[str, ComponentSettings] = dict(parent.component_settings) if parent else {}
    settings.update(parse_component_settings(table.get("component", {}), src))
    inputs: dict[str, InputSpec] = {i.name: i for i in parent.inputs} if parent else {}
    inputs.update(parse_inputs(table.get("inputs", {}), src))
    placeholders = dict(parent.placeholders) if parent else {}
    placeholders.update(table.get("placeholders", {}))
    # matcher
    if raw.matcher is not None:
        matcher: Matcher = raw.matcher if isinstance(raw.matcher, Matcher) else \
            python_matcher(raw.matcher, f"{raw.source} matcher")
    elif "match" in table:
        matcher = compile_matcher(table["match"], src)
    else:
        matcher = NEVER
    tool_overrides: dict[str, ToolSpec] = dict(parent.tool_overrides) if parent else {}
    tool_overrides.update(raw.tools)
    tool_names = tuple(table["tools"]) if "tools" in table else (parent.tools if parent else ())
    for i, name in enumerate(tool_names):
        if name not in tools and name not in tool_overrides:
            raise VariantConfigError(f"unknown tool {name!r}" + did_you_mean(name, tools),
                                     source=src, field=f"tools[{i}]")

    def inherit(key: str, default: Any) -> Any:
        if key in table:
            return table[key]
        return getattr(parent, key) if parent is not None else default

    origins = dict(parent.origins) if parent else {}
    origins.update({"template": template_origin, "variant.toml": src})
    for cid in raw.components:
        origins[f"component:{cid}"] = raw.components[cid].origin or raw.components[cid].path
    variant = Variant(
        id=vid, template=template, family=inherit("family", "generic"),
        description=inherit("description", ""), priority=table.get("priority", 100),
        matcher=matcher, fallback=table.get("fallback", False), extends=parent_id,
        components=tuple(inherit("components", ())),
        component_templates=FrozenDict(comp_templates),
        component_settings=FrozenDict(settings), placeholders=FrozenDict(placeholders),
        tools=tool_names, tool_overrides=FrozenDict(tool_overrides),
        labels=tuple(inherit("labels", ())), tool_mode=inherit("tool_mode", "auto"),
        inputs=tuple(inputs.values()), source=raw.source, path=src,
        origins=FrozenDict(origins),
        tool_specs=tuple(tool_overrides.get(n) or tools[n] for n in tool_names),
    )
    done[vid] = variant
    return variant

