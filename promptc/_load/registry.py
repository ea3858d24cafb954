"""The registry: every variant, component and tool from every source, layered and frozen.

Precedence (later wins, by id, at any grain): built-ins < plugins < user folder < project folder.
A folder that defines `variants/<id>/variant.toml` replaces that variant; a folder with only
`template.md` or `components/<cid>.md` under `variants/<id>/` overlays those files onto it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

import attrs

from .._base.errors import PLUGIN_FAILURES, NoVariantError, ToolSpecError, VariantConfigError
from .._base.frozen import FrozenDict
from .._base.suggest import did_you_mean
from .._model.component import Component
from .._model.diagnostics import Diagnostic, Reporter
from .._model.features import FeatureSet, feature_set
from .._model.inputs import parse_inputs
from .._model.matchers import NEVER, Matcher, compile_matcher, python_matcher
from .._model.provider import (FamilyRow, ProviderInfo, family_findings, merged_families,
                               model_data, resolve_provider)
from .._model.tools import ToolSpec
from .._model.variant import Variant, check_variant_table, parse_component_settings
from .._text.fence import OWN_TAGS
from .._text.template import Template, parsed_template
from .blame import LayerFault, blame
from .component_defs import BUILTIN_COMPONENTS, ComponentDef
from .elements import own_tags
from .declared_features import declared_features
from .noops import unused_overrides
from .section_edits import sections_of
from .sources import left_out_note
from .folders import Layer, RawVariant, TextFile

__all__ = ["Registry", "build_registry", "build_blamed", "TraceEntry", "Resolution",
           "PluginVariant", "plugin_raw_variant", "compile_component"]


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
    families: tuple[FamilyRow, ...] = ()
    # whether facts may come from the user's model table (not with --no-user/--builtins-only)
    user_models: bool = True
    # the elements outside text may not open or close: every one the templates use (elements.py)
    own_tags: frozenset[str] = OWN_TAGS

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
        trace, chosen = self._tried(info, report, full_trace)
        if chosen is not None:
            return Resolution(chosen, tuple(trace), "matcher", tuple(report.items))
        if self.fallback is not None:
            trace.append(TraceEntry(self.fallback.id, self.fallback.priority, True,
                                    "fallback: no matcher matched", self.fallback.source))
            return Resolution(self.fallback, tuple(trace), "fallback", tuple(report.items))
        tried = ", ".join(f"{t.variant} ({t.reason})" for t in trace) or "no variants"
        raise NoVariantError(f"no variant matches provider {info.provider!r} model "
                             f"{info.model!r} and there is no fallback; tried: {tried}")

    def _tried(self, info: ProviderInfo, report: Reporter, full_trace: bool
               ) -> tuple[list[TraceEntry], Variant | None]:
        """The matchers tried in order, up to the first match (or all, for a full trace)."""
        trace: list[TraceEntry] = []
        chosen: Variant | None = None
        for v in self.order:
            if chosen is not None and not full_trace:
                break
            entry = _tried_matcher(v, info, report, chosen)
            trace.append(entry)
            if entry.matched and chosen is None:
                chosen = v
        return trace, chosen

    def variant_for(self, variant_id: str) -> Resolution:
        """The resolution of a request that names its variant (no matcher is tried)."""
        return Resolution(self.get(variant_id), (), "id")


def _tried_matcher(v: Variant, info: ProviderInfo, report: Reporter,
                   chosen: Variant | None) -> TraceEntry:
    """One variant's matcher on the provider: a trace entry (a raising matcher is reported)."""
    try:
        ok, why = v.matcher(info)
    except PLUGIN_FAILURES as exc:
        report("error", "matcher-raised",
               f"matcher of variant {v.id!r} raised {type(exc).__name__}: {exc}", v.id)
        return TraceEntry(v.id, v.priority, None, f"raised {type(exc).__name__}: {exc}",
                          v.source)
    if ok and chosen is not None:
        why = f"{why} (not used: {chosen.id!r} came first)"
    return TraceEntry(v.id, v.priority, ok, why, v.source)


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


_NO_DATA = ComponentDef()  # a component without built-in data: nothing provided or read


def _component_from(cid: str, text: TextFile, short: TextFile | None) -> Component:
    """A component from a folder's text file; a built-in id keeps its built-in data."""
    d = BUILTIN_COMPONENTS.get(cid, _NO_DATA)
    short_template, short_origin, short_path = _shorter_form(short)
    return compile_component(Component(
        id=cid, template=text.text, provides=d.provides,
        reads=d.reads if d.fed else (), priority=d.priority, required=d.required,
        short_template=short_template, source=text.source, origin=text.origin or text.path,
        short_origin=short_origin, path=text.path, short_path=short_path,
        request_data=cid if d.fed else None))


def _shorter_form(short: TextFile | None) -> tuple[str | None, str, str]:
    """(text, origin, path) of a component's shorter form (`<cid>.short.md`), if it has one."""
    if short is None:
        return None, "", ""
    return short.text, short.origin or short.path, short.path


def _short_over(cid: str, short: TextFile, base: Component | None) -> Component:
    """A folder's `<cid>.short.md` without `<cid>.md`: a new shorter form for the earlier text."""
    if base is None or base.template is None:
        parsed_template(short.text, short.path)  # a syntax error first, naming the file
        raise VariantConfigError(f"shorter form of component {cid!r}, which no earlier source "
                                 "defines as a template", source=short.path)
    return compile_component(attrs.evolve(base, short_template=short.text,
                                          short_path=short.path,
                                          short_origin=short.origin or short.path))


class _Stack:
    """The sources stacked so far, by id: each later layer wins, and every replacement is
    noted (an override is intended, but never silent: lint lists it)."""

    def __init__(self) -> None:
        self.components: dict[str, Component] = {}
        self.tools: dict[str, ToolSpec] = {}
        self.reserved: set[str] = set()
        self.raws: dict[str, RawVariant] = {}
        self.found: list[Diagnostic] = []

    def push(self, layer: Layer) -> None:
        with blame(layer.source):
            self._note_components(layer)
            self._note_tools(layer)
            self._note_variants(layer)
            self._add_components(layer)
            self._add_tools(layer)
            for vid, raw in layer.variants.items():
                earlier = self.raws.get(vid)
                if earlier is not None and raw.table is not None and \
                        raw.table.get("extends") == vid:
                    raw = attrs.evolve(raw, below=earlier)  # builds on the earlier one
                self.raws[vid] = _overlay(earlier, raw)

    def replaced(self, kind: str, name: str, old: str, new: str) -> None:
        if old != new:
            self.found.append(Diagnostic("info", "overridden",
                                         f"{kind} {name!r} from {old} is replaced by {new}", new))

    def _note_components(self, layer: Layer) -> None:
        for cid in [*layer.components, *layer.functions]:
            if not cid.endswith(".short") and cid in self.components:
                self.replaced("component", cid, self.components[cid].source, layer.source)

    def _note_tools(self, layer: Layer) -> None:
        for name in layer.tools:
            if name in self.tools:
                self.replaced("tool", name, self.tools[name].source, layer.source)

    def _note_variants(self, layer: Layer) -> None:
        for vid, raw in layer.variants.items():
            earlier = self.raws.get(vid)
            if earlier is not None and raw.table is not None:
                self.replaced("variant", vid, earlier.source, layer.source)
            elif earlier is not None:  # a folder overlaying some of an earlier variant's files
                self._note_overlay(vid, raw, earlier)

    def _note_overlay(self, vid: str, raw: RawVariant, earlier: RawVariant) -> None:
        if raw.template is not None and earlier.template is not None:
            self.replaced(f"template of variant {vid!r}:", "template.md",
                          earlier.template.origin or earlier.template.path,
                          raw.template.origin or raw.template.path)
        for cid, tf in raw.components.items():
            old = self._earlier_text(cid, earlier)
            if old:
                self.replaced(f"component of variant {vid!r}:", cid, old, tf.origin or tf.path)

    def _earlier_text(self, cid: str, earlier: RawVariant) -> str:
        """Where the text an overlaid variant component replaces came from ("": nowhere)."""
        before = earlier.components.get(cid)
        if before is not None:
            return before.origin or before.path
        shared = self.components.get(cid)
        return shared.origin if shared is not None else ""

    def _add_components(self, layer: Layer) -> None:
        """Later layers win by id; a text replaces a function and vice versa."""
        for cid, tf in layer.components.items():
            if not cid.endswith(".short"):
                self.components[cid] = _component_from(cid, tf,
                                                       layer.components.get(cid + ".short"))
            elif cid[:-6] not in layer.components:  # only the shorter form: overlay it
                self.components[cid[:-6]] = _short_over(cid[:-6], tf,
                                                        self.components.get(cid[:-6]))
        self.components.update((cid, compile_component(c)) for cid, c in layer.functions.items())

    def _add_tools(self, layer: Layer) -> None:
        """Built-in names are reserved; others replace one only with `override = true`."""
        for name, spec in layer.tools.items():
            if layer.source == "builtin":
                self.reserved.add(name)
            elif name in self.reserved and not spec.override:
                raise ToolSpecError(f"tool name {name!r} is reserved by a built-in tool; set "
                                    "`override = true` to replace its spec on purpose",
                                    source=spec.origin or layer.source, field="name")
            self.tools[name] = spec


def build_registry(layers: Iterable[Layer], diagnostics: Iterable[Diagnostic] = (),
                   findings: Iterable[Diagnostic] = (), user_models: bool = True) -> Registry:
    """Layer sources in the order given and freeze the result; raise on any config error.

    `findings` are lint-only observations made before (plugin conflicts) that the registry
    keeps with its own.
    """
    try:
        return build_blamed(layers, diagnostics, findings, user_models)
    except LayerFault as fault:
        raise fault.error from None


def build_blamed(layers: Iterable[Layer], diagnostics: Iterable[Diagnostic] = (),
                 findings: Iterable[Diagnostic] = (), user_models: bool = True) -> Registry:
    """`build_registry`, raising a `LayerFault` that says which source an error belongs to
    (names resolve after every source is stacked, so any source may break another)."""
    layers = list(layers)
    stack = _Stack()
    for layer in layers:
        stack.push(layer)
    _check_dependencies(stack.tools)
    variants = _resolve_all(stack.raws, stack.tools, [layer.source for layer in layers])
    fallbacks = _fallbacks(variants, stack.found)
    features = declared_features(stack.tools, stack.components, variants,
                                 [f for layer in layers for f in layer.features])
    stack.found.extend(unused_overrides(layers, variants))
    sourced = [(layer.source, layer.families) for layer in layers]
    families, renamed = merged_families(sourced)
    for fid, old, new in renamed:
        stack.replaced(f"model family {fid!r}:", "models.toml", old, new)
    if families:  # a folder family taking another source's models: a warning, strict refuses
        data = model_data(user_models)
        diagnostics = (*diagnostics, *family_findings(sourced, data.overlay, data.table.models))
    return Registry(variants=_by_key(variants), components=_by_key(stack.components),
                    tools=_by_key(stack.tools), reserved_tools=frozenset(stack.reserved),
                    order=_matched_order(variants),
                    fallback=fallbacks[0] if fallbacks else None,
                    diagnostics=(*diagnostics, *(n for layer in layers for n in layer.notes)),
                    findings=(*stack.found, *findings), features=features, families=families,
                    user_models=user_models,
                    own_tags=own_tags(variants, stack.components, stack.tools))


def _check_dependencies(tools: Mapping[str, ToolSpec]) -> None:
    """Every tool a parameter depends on is registered."""
    for spec in tools.values():
        with blame(spec.source):
            for i, p in enumerate(spec.parameters):
                for dep in p.depends_on:
                    if dep not in tools:
                        raise ToolSpecError(f"parameter {p.name!r} depends on unknown tool "
                                            f"{dep!r}" + did_you_mean(dep, tools),
                                            source=spec.origin,
                                            field=f"parameters[{i}].depends_on")


def _by_key(items: Mapping[str, Any]) -> FrozenDict:
    return FrozenDict(dict(sorted(items.items())))


def _matched_order(variants: Mapping[str, Variant]) -> tuple[Variant, ...]:
    """The variants with matchers, in the order they are tried: by (priority, id)."""
    return tuple(sorted((v for v in variants.values() if v.matcher is not NEVER),
                        key=lambda v: (v.priority, v.id)))


def _fallbacks(variants: Mapping[str, Variant], found: list[Diagnostic]) -> list[Variant]:
    """The fallback variants by (priority, id): the first is used, more than one is noted."""
    fallbacks = sorted((v for v in variants.values() if v.fallback),
                       key=lambda v: (v.priority, v.id))
    if len(fallbacks) > 1:
        found.append(Diagnostic("warning", "fallback-duplicate",
                                f"{len(fallbacks)} fallback variants "
                                f"({', '.join(v.id for v in fallbacks)}); "
                                f"{fallbacks[0].id!r} is used", fallbacks[1].path))
    return fallbacks


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
                 sources: Sequence[str]) -> dict[str, Variant]:
    resolver = _Resolver(raws, tools, sources)
    for vid in sorted(raws):
        resolver.variant(vid)
    return resolver.done


Chain = tuple[tuple[str, str], ...]  # (variant id, source) of each variant being resolved


class _Resolver:
    """Variants from their layered raw contributions, each parent resolved before the
    variants that extend it. Every name resolves against all sources at once; an error is
    blamed on the source of the variant that names it."""

    def __init__(self, raws: Mapping[str, RawVariant], tools: Mapping[str, ToolSpec],
                 sources: Sequence[str]) -> None:
        self.raws = raws
        self.tools = tools
        self.sources = ", ".join(dict.fromkeys(sources)) or "none"
        self.done: dict[str, Variant] = {}

    def variant(self, vid: str, chain: Chain = ()) -> Variant:
        if vid in self.done:
            return self.done[vid]
        variant = self.done[vid] = self._resolved(self.raws[vid], chain)
        return variant

    def _resolved(self, raw: RawVariant, chain: Chain) -> Variant:
        with blame(raw.source):
            if raw.table is None:
                where = raw.template.path if raw.template else raw.folder
                if raw.template is None and not raw.components and not raw.tools:
                    raise VariantConfigError("variant.toml is missing: a variant folder needs "
                                             "one", source=where)
                raise VariantConfigError(
                    f"overrides variant {raw.id!r}, which no earlier source defines (a new "
                    "variant needs its variant.toml)", source=where)
            parent = self._parent(raw, raw.table, chain)
            return _variant_of(raw.id, raw, raw.table, parent, self.tools, self.sources)

    def _parent(self, raw: RawVariant, table: Mapping[str, Any], chain: Chain
                ) -> Variant | None:
        """The variant `extends` names, resolved (None: it extends none). A variant that
        extends its own id builds on what the earlier sources made of that id."""
        parent_id = table.get("extends")
        if parent_id is None:
            return None
        here = (*chain, (raw.id, raw.source))
        if parent_id == raw.id and raw.below is not None:
            return self._resolved(raw.below, here)
        if parent_id == raw.id or parent_id in {vid for vid, _src in chain}:
            cycle = " -> ".join([*(vid for vid, _src in here), parent_id])
            owners = dict.fromkeys(src for _vid, src in here)
            where = f"all from {next(iter(owners))}" if len(owners) == 1 else \
                ", ".join(f"{vid} from {src}" for vid, src in here)
            raise VariantConfigError(f"circular extends: {cycle} ({where})",
                                     source=raw.toml_path, field="extends")
        if parent_id not in self.raws:
            others = [vid for vid in self.raws if vid != raw.id]
            raise VariantConfigError(f"extends unknown variant {parent_id!r}" +
                                     did_you_mean(parent_id, others) +
                                     f"; no source defines it (sources: {self.sources})" +
                                     left_out_note("variant", parent_id, self.sources),
                                     source=raw.toml_path, field="extends")
        return self.variant(parent_id, here)


def _inherited(parent: Variant | None, key: str, default: Any) -> Any:
    """What the parent has for `key` (the default when the variant extends none)."""
    return getattr(parent, key) if parent is not None else default


def _own_or_inherited(table: Mapping[str, Any], parent: Variant | None, key: str,
                      default: Any) -> Any:
    return table[key] if key in table else _inherited(parent, key, default)


def _variant_of(vid: str, raw: RawVariant, table: Mapping[str, Any], parent: Variant | None,
                tools: Mapping[str, ToolSpec], sources: str = "") -> Variant:
    """One variant: its own files and table over what its parent has."""
    src = raw.toml_path
    template, template_origin = _template_of(raw, parent, src)
    comp_templates = {**_inherited(parent, "component_templates", {}),
                      **{cid: _parsed(tf)
                         for cid, tf in raw.components.items()}}
    settings = {**_inherited(parent, "component_settings", {}),
                **parse_component_settings(table.get("component", {}), src)}
    inputs = {**{i.name: i for i in _inherited(parent, "inputs", ())},
              **parse_inputs(table.get("inputs", {}), src)}
    placeholders = {**_inherited(parent, "placeholders", {}), **table.get("placeholders", {})}
    matcher = _matcher_of(raw, table, src)
    components, edits, removed = sections_of(
        raw, tuple(_own_or_inherited(table, parent, "components", ())),
        _inherited(parent, "edits", {}), _inherited(parent, "removed", ()), table, src)
    tool_overrides = {**_inherited(parent, "tool_overrides", {}), **raw.tools}
    tool_names = _tool_names(table, parent, tools, tool_overrides, src, sources)
    origins = {**_inherited(parent, "origins", {}), "template": template_origin,
               "variant.toml": src,
               **{f"component:{cid}": tf.origin or tf.path for cid, tf in raw.components.items()}}
    # A variant that builds on the earlier source's variant of its own id takes its place:
    # it keeps how that one is chosen unless it says otherwise.
    same = parent if parent is not None and parent.id == vid else None
    return Variant(
        id=vid, template=template, family=_own_or_inherited(table, parent, "family", "generic"),
        description=_own_or_inherited(table, parent, "description", ""),
        priority=_own_or_inherited(table, same, "priority", 100),
        matcher=matcher if same is None or "match" in table or raw.matcher is not None
        else same.matcher,
        fallback=_own_or_inherited(table, same, "fallback", False), extends=table.get("extends"),
        components=components, edits=FrozenDict(edits), removed=removed,
        lineage=((vid, raw.source, raw.toml_origin or src), *_inherited(parent, "lineage", ())),
        component_templates=FrozenDict(comp_templates),
        component_settings=FrozenDict(settings), placeholders=FrozenDict(placeholders),
        tools=tool_names, tool_overrides=FrozenDict(tool_overrides),
        labels=tuple(_own_or_inherited(table, parent, "labels", ())),
        tool_mode=_own_or_inherited(table, parent, "tool_mode", "auto"),
        inputs=tuple(inputs.values()), source=raw.source, path=src,
        origins=FrozenDict(origins),
        tool_specs=tuple(_with_aliases(tool_overrides.get(n), tools.get(n)) or tools[n]
                         for n in tool_names),
    )


def _parsed(text: TextFile) -> Template:
    """A variant's template file parsed; an error is the source's that brought the file (a
    plugin overlaying another source's variant with a broken file is that plugin's fault)."""
    with blame(text.source):
        return parsed_template(text.text, text.path)


def _with_aliases(own: ToolSpec | None, shared: ToolSpec | None) -> ToolSpec | None:
    """A variant's own spec of a tool, keeping the shared spec's `aliases` unless it gives
    its own (the names a model may use for a tool do not change with its wording)."""
    if own is None or own.aliases is not None or shared is None or shared.aliases is None:
        return own
    return attrs.evolve(own, aliases=shared.aliases)


def _template_of(raw: RawVariant, parent: Variant | None, src: str) -> tuple[Template, str]:
    """The variant's base template and where it came from: its own, else its parent's."""
    if raw.template is not None:
        return (_parsed(raw.template),
                raw.template.origin or raw.template.path)
    if parent is not None:
        return parent.template, parent.origins.get("template", "")
    raise VariantConfigError("no template.md and no `extends` to inherit one from",
                             source=src, field="template")


def _matcher_of(raw: RawVariant, table: Mapping[str, Any], src: str) -> Matcher:
    """A plugin's Python matcher, else the table's [match], else none (by id or fallback)."""
    if raw.matcher is not None:
        return raw.matcher if isinstance(raw.matcher, Matcher) else \
            python_matcher(raw.matcher, f"{raw.source} matcher")
    if "match" in table:
        return compile_matcher(table["match"], src)
    return NEVER


def _tool_names(table: Mapping[str, Any], parent: Variant | None,
                tools: Mapping[str, ToolSpec], overrides: Mapping[str, ToolSpec],
                src: str, sources: str = "") -> tuple[str, ...]:
    """The variant's tool list (its own, else its parent's); every name must be a tool."""
    names: tuple[str, ...] = (tuple(table["tools"]) if "tools" in table
                              else _inherited(parent, "tools", ()))
    for i, name in enumerate(names):
        if name not in tools and name not in overrides:
            raise VariantConfigError(f"unknown tool {name!r}" + did_you_mean(name, tools) +
                                     "; no source defines it" +
                                     (f" (sources: {sources})" if sources else "") +
                                     left_out_note("tool", name, sources),
                                     source=src, field=f"tools[{i}]")
    return names
