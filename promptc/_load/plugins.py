"""Loading plugins through entry points, one at a time, so one bad plugin never breaks the rest.

pluggy's own `load_setuptools_entrypoints` stops at the first import error and one raising hook
implementation aborts the whole hook call, so promptc loads each entry point itself, sorted by
plugin name (never install order), calls each implementation on its own, and turns every failure
into a diagnostic naming the plugin.

Entry points are found by reading the installed distributions' `entry_points.txt` files on
`sys.path` directly: importing and running `importlib.metadata` costs tens of milliseconds at
every start, and pluggy is imported only when some plugin is installed.
"""

from __future__ import annotations

import importlib
import itertools
import os
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import attrs

from .._base.errors import PLUGIN_FAILURES, ConfigError, PromptcError
from .._model.component import Component
from .._model.diagnostics import Diagnostic
from .._model.features import Feature
from .._model.tools import ToolSpec, parse_tool
from .folders import Layer, RawVariant, read_layer
from .registry import PluginVariant, plugin_raw_variant

if TYPE_CHECKING:
    import pluggy

__all__ = ["PluginSet", "load_plugins", "MAX_HOOK_ITEMS", "bounded_items", "invalid_plugin",
           "installed_plugins"]

GROUP = "promptc"

# The most items one hook call may return (folders, variants, tools, findings…): far more than
# any pack holds, and a bound on what an endless generator can make promptc collect.
MAX_HOOK_ITEMS = 10_000


class HookResultError(ValueError):
    """A hook returned more items than promptc takes (an endless generator, say)."""


def bounded_items(result: Iterable[Any], hook: str) -> list[Any]:
    """The items of a hook's result, at most MAX_HOOK_ITEMS of them; HookResultError beyond.
    Only one item past the bound is ever asked for."""
    items = list(itertools.islice(result, MAX_HOOK_ITEMS + 1))
    if len(items) > MAX_HOOK_ITEMS:
        raise HookResultError(f"{hook} returned more than {MAX_HOOK_ITEMS:,} items (an endless "
                              "generator?)")
    return items


@attrs.frozen
class PluginSet:
    """What the installed plugins contributed, and what went wrong."""

    layers: tuple[Layer, ...]
    diagnostics: tuple[Diagnostic, ...]
    findings: tuple[Diagnostic, ...]
    names: tuple[str, ...]
    context_hooks: tuple[tuple[str, Callable[..., Any]], ...] = ()
    inspect_hooks: tuple[tuple[str, Callable[..., Any]], ...] = ()

    def without(self, name: str, why: Diagnostic) -> PluginSet:
        """The set with plugin `name` skipped (its layer and hooks), `why` reported."""
        return PluginSet(tuple(layer for layer in self.layers if layer.source != f"plugin:{name}"),
                         (*self.diagnostics, why), self.findings,
                         tuple(n for n in self.names if n != name),
                         tuple(h for h in self.context_hooks if h[0] != name),
                         tuple(h for h in self.inspect_hooks if h[0] != name))


@attrs.frozen
class EntryPoint:
    """One `promptc` entry point of an installed distribution."""

    name: str
    value: str  # "module" or "module:attribute"
    dist: str

    def load(self) -> Any:
        module, _, attribute = self.value.partition(":")
        obj: Any = importlib.import_module(module.strip())
        for part in attribute.strip().split(".") if attribute.strip() else ():
            obj = getattr(obj, part)
        return obj


def _group_lines(text: str, group: str) -> list[tuple[str, str]]:
    """(name, value) pairs of one `[group]` of an entry_points.txt (an INI file)."""
    out: list[tuple[str, str]] = []
    inside = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            inside = line == f"[{group}]"
            continue
        if inside and "=" in line:
            name, _, value = line.partition("=")
            out.append((name.strip(), value.split("[", 1)[0].strip()))
    return out


def _entry_points() -> list[EntryPoint]:
    """The `promptc` entry points of every distribution on sys.path, sorted by plugin name;
    a distribution found twice on the path counts once (the first, as Python imports it)."""
    seen: dict[tuple[str, str], EntryPoint] = {}
    for entry in sys.path:
        folder = entry or "."
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for name in names:
            if not name.endswith((".dist-info", ".egg-info")):
                continue
            try:
                with open(os.path.join(folder, name, "entry_points.txt"), encoding="utf-8") as f:
                    text = f.read()
            except (OSError, UnicodeDecodeError):
                continue
            dist = name.rsplit(".", 1)[0].split("-", 1)[0]
            for ep_name, value in _group_lines(text, GROUP):
                seen.setdefault((ep_name, dist), EntryPoint(ep_name, value, dist))
    return [seen[k] for k in sorted(seen)]


def _fail(code: str, name: str, message: str) -> Diagnostic:
    return Diagnostic("error", code, f"plugin {name!r}: {message}; the plugin is skipped",
                      f"plugin:{name}")


def invalid_plugin(name: str, exc: BaseException) -> Diagnostic:
    """The diagnostic of a plugin skipped for what it registered."""
    if isinstance(exc, PromptcError):
        return _fail("plugin-invalid", name, f"registered something invalid: {exc}")
    return _fail("plugin-invalid", name, "registered something promptc cannot use "
                 f"({type(exc).__name__}: {exc})")


def installed_plugins() -> tuple[str, ...]:
    """The names of the installed plugins (their `promptc` entry points)."""
    return tuple(dict.fromkeys(ep.name for ep in _entry_points()))


def _named(eps: list[Any], names: Iterable[str], where: str) -> list[Any]:
    """The entry points of the plugins `names` lists; one that is not installed is an error
    naming it (and those that are)."""
    wanted = tuple(names)
    found = {ep.name for ep in eps}
    for name in wanted:
        if name not in found:
            installed = ", ".join(sorted(found)) or "none"
            raise ConfigError(f"plugin {name!r} is not installed (installed plugins: "
                              f"{installed})", source=where or None, field="plugins")
    return [ep for ep in eps if ep.name in wanted]


def load_plugins(entry_points: Iterable[Any] | None = None,
                 validate: Callable[[Layer], object] | None = None,
                 names: Iterable[str] | None = None, where: str = "") -> PluginSet:
    """Import and query every plugin (or only those `names` lists; `where` names the file
    that lists them); return their layers (sorted by plugin name).

    `validate` raises for a layer promptc cannot use; its return value is ignored. (The
    Compiler checks every plugin's layer stacked with every other source instead.)
    """
    eps = _entry_points() if entry_points is None else list(entry_points)
    if names is not None:
        eps = _named(eps, names, where)
    if not eps:
        return PluginSet((), (), (), ())
    diags: list[Diagnostic] = []
    loaded: list[_Plugin] = []
    for ep in eps:
        try:
            loaded.append(_load_one(ep, validate))
        except _Skipped as skipped:
            diags.append(skipped.diagnostic)
    layers, findings = _settle_conflicts([p.layer for p in loaded])
    return PluginSet(tuple(layers), tuple(diags), tuple(findings), tuple(p.name for p in loaded),
                     _hooks(loaded, "promptc_contribute_context"),
                     _hooks(loaded, "promptc_inspect_prompt"))


class _Plugin(NamedTuple):
    """A plugin that loaded: its name, what it contributes, and its hooks."""

    name: str
    layer: Layer
    manager: pluggy.PluginManager


class _Skipped(Exception):
    """A plugin promptc cannot use, and the diagnostic that says why."""

    def __init__(self, code: str, name: str, message: str) -> None:
        super().__init__(message)
        self.diagnostic = _fail(code, name, message)


def _load_one(ep: Any, validate: Callable[[Layer], object] | None) -> _Plugin:
    """Import one entry point, register it, read its layer; `_Skipped` says what failed."""
    name = ep.name
    pm = _registered(_imported(ep), name)
    try:
        layer = _layer_of(pm, name)
        if validate is not None:
            validate(layer)
    except _HookFailed as exc:
        raise _Skipped("plugin-hook", name, str(exc)) from None
    except PromptcError as exc:
        raise _Skipped("plugin-invalid", name, f"registered something invalid: {exc}") from None
    except PLUGIN_FAILURES as exc:  # what it returned broke promptc's code: still isolated
        raise _Skipped("plugin-invalid", name, "registered something promptc cannot "
                       f"use ({type(exc).__name__}: {exc})") from None
    return _Plugin(name, layer, pm)


def _imported(ep: Any) -> Any:
    try:
        return ep.load()
    except BaseException as exc:  # an import-time crash, SystemExit included
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise _Skipped("plugin-import", ep.name,
                       f"failed to import ({type(exc).__name__}: {exc})") from None


def _registered(obj: Any, name: str) -> pluggy.PluginManager:
    """A plugin manager of its own holding the plugin's hook implementations, checked."""
    import pluggy

    from .hookspecs import PROJECT, PromptcSpec
    pm = pluggy.PluginManager(PROJECT)
    pm.add_hookspecs(PromptcSpec)
    try:
        pm.register(obj, name=name)
        pm.check_pending()
    except PLUGIN_FAILURES as exc:
        raise _Skipped("plugin-invalid", name, f"invalid hook implementation ({exc})") from None
    return pm


def _hooks(loaded: list[_Plugin], hook: str) -> tuple[tuple[str, Callable[..., Any]], ...]:
    """Each plugin's implementations of a per-request hook, in plugin order."""
    return tuple((p.name, _by_keyword(impl)) for p in loaded
                 for impl in getattr(p.manager.hook, hook).get_hookimpls())


class _HookFailed(Exception):
    pass


def _by_keyword(impl: Any) -> Callable[..., Any]:
    """pluggy lets an implementation take any subset of its hook's arguments, in any order:
    call it with just the ones it declares."""
    function = impl.function
    wanted = tuple(impl.argnames) + tuple(getattr(impl, "kwargnames", ()) or ())

    def call(**kwargs: Any) -> Any:
        return function(**{k: v for k, v in kwargs.items() if k in wanted})

    call.__qualname__ = getattr(function, "__qualname__", "hook")
    return call


def _call(pm: pluggy.PluginManager, hook: str) -> list[Any]:
    out: list[Any] = []
    for impl in getattr(pm.hook, hook).get_hookimpls():
        try:
            result = impl.function()
            if result is None:
                continue
            if isinstance(result, (str, bytes, Mapping)) or not isinstance(result, Iterable):
                raise _HookFailed(f"hook {hook} must return a list, got "
                                  f"{type(result).__name__}")
            out.extend(bounded_items(result, f"hook {hook}"))
        except _HookFailed:
            raise
        except HookResultError as exc:
            raise _HookFailed(str(exc)) from None
        except PLUGIN_FAILURES as exc:  # raised by the hook, or while its result was read
            raise _HookFailed(f"hook {hook} raised {type(exc).__name__}: {exc}") from None
    return out


def _layer_of(pm: pluggy.PluginManager, name: str) -> Layer:
    """What the plugin contributes, hook by hook (in this order: folders, variants,
    components, features, tools)."""
    source = f"plugin:{name}"
    merged = _folders_layer(pm, source)
    variants = {**merged.variants, **_plugin_variants(pm, source)}
    functions = _plugin_components(pm, source)
    features = _plugin_features(pm, source)
    tools = {**merged.tools, **_plugin_tools(pm, source)}
    return attrs.evolve(merged, variants=variants, functions=functions, tools=tools,
                        features=features)


def _folders_layer(pm: pluggy.PluginManager, source: str) -> Layer:
    """The plugin's template folders read as one layer (later folders win by id)."""
    merged = Layer(source=source, root="")
    for folder in _call(pm, "promptc_template_folders"):
        if not isinstance(folder, (str, os.PathLike)) or not Path(folder).is_dir():
            # e.g. a data folder left out of the wheel: say so rather than register nothing
            raise _HookFailed(f"promptc_template_folders returned {folder!r}, which is not "
                              "an existing folder")
        layer = read_layer(Path(folder), source)
        merged = attrs.evolve(merged, root=layer.root,
                              variants={**merged.variants, **layer.variants},
                              components={**merged.components, **layer.components},
                              tools={**merged.tools, **layer.tools},
                              notes=merged.notes + layer.notes,
                              families=merged.families + layer.families)
    return merged


def _plugin_variants(pm: pluggy.PluginManager, source: str) -> dict[str, RawVariant]:
    variants: dict[str, RawVariant] = {}
    for spec in _call(pm, "promptc_variants"):
        raw = _plugin_variant(spec, source)
        variants[raw.id] = raw
    return variants


def _plugin_variant(spec: Any, source: str) -> RawVariant:
    """A `promptc_variants` table: a variant.toml-like table plus its texts and matcher."""
    if not isinstance(spec, Mapping):
        raise _HookFailed(f"promptc_variants returned {type(spec).__name__}, not a table")
    table = dict(spec)
    template = table.pop("template_text", None)
    texts = table.pop("component_texts", {}) or {}
    matcher = table.pop("matcher", None)
    if matcher is not None and not callable(matcher):
        raise _HookFailed(f"promptc_variants: `matcher` of {table.get('id')!r} is "
                          f"{type(matcher).__name__}, not a callable")
    if not isinstance(texts, Mapping):
        raise _HookFailed(f"promptc_variants: `component_texts` of {table.get('id')!r} "
                          "must be a table {component id: text}")
    return plugin_raw_variant(PluginVariant(table, template, dict(texts), matcher), source)


def _plugin_components(pm: pluggy.PluginManager, source: str) -> dict[str, Component]:
    functions: dict[str, Component] = {}
    for comp in _call(pm, "promptc_components"):
        if not isinstance(comp, Component):
            raise _HookFailed(f"promptc_components returned {type(comp).__name__}, "
                              "not a promptc.Component")
        # a template component says where its text came from, as files and functions do
        origin = comp.origin or (f"{source} component {comp.id}" if comp.template is not None
                                 else "")
        functions[comp.id] = attrs.evolve(comp, source=source, origin=origin)
    return functions


def _plugin_features(pm: pluggy.PluginManager, source: str) -> tuple[Feature, ...]:
    features = []
    for feature in _call(pm, "promptc_features"):
        if not isinstance(feature, Feature):
            raise _HookFailed(f"promptc_features returned {type(feature).__name__}, "
                              "not a promptc.Feature")
        features.append(attrs.evolve(feature, source=source, readers=feature.readers or (
            f"{source}",)))
    return tuple(features)


def _plugin_tools(pm: pluggy.PluginManager, source: str) -> dict[str, ToolSpec]:
    tools: dict[str, ToolSpec] = {}
    for i, table in enumerate(_call(pm, "promptc_tools")):
        if not isinstance(table, Mapping):
            raise _HookFailed(f"promptc_tools returned {type(table).__name__}, not a table")
        spec = parse_tool(table, origin=f"{source} tool #{i}", source=source)
        tools[spec.name] = spec
    return tools


def _settle_conflicts(layers: list[Layer]) -> tuple[list[Layer], list[Diagnostic]]:
    """Two plugins claiming one variant id: the lower (priority, plugin name) wins, reported."""
    findings: list[Diagnostic] = []
    losers: dict[int, set[str]] = {}
    for vid, claimants in sorted(_claims(layers).items()):
        if len(claimants) < 2:
            continue
        claimants.sort()
        winner = claimants[0]
        for _prio, _src, idx in claimants[1:]:
            losers.setdefault(idx, set()).add(vid)
        findings.append(Diagnostic(
            "warning", "variant-conflict",
            f"variant {vid!r} is registered by {', '.join(c[1] for c in claimants)}; "
            f"{winner[1]} wins by (priority, name)", winner[1]))
    return [_without(layer, losers.get(i)) for i, layer in enumerate(layers)], findings


def _claims(layers: list[Layer]) -> dict[str, list[tuple[int, str, int]]]:
    """Per variant id, the (priority, source, layer index) of each layer defining it."""
    claims: dict[str, list[tuple[int, str, int]]] = {}
    for i, layer in enumerate(layers):
        for vid, raw in layer.variants.items():
            if raw.table is None:
                continue  # an overlay of a few files adds to a variant, it does not claim it
            prio = raw.table.get("priority", 100)
            claims.setdefault(vid, []).append((prio, layer.source, i))
    return claims


def _without(layer: Layer, drop: set[str] | None) -> Layer:
    if not drop:
        return layer
    return attrs.evolve(layer, variants={k: v for k, v in layer.variants.items()
                                         if k not in drop})
