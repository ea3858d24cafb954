"""Matchers: declarative predicates on a ProviderInfo, each able to say why it failed.

A matcher returns (matched, reason). Reasons go into the resolution trace that `promptc explain`
prints, so a person can see which condition sent a model elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from .._base.errors import VariantConfigError
from .._base.suggest import unknown_key
from .provider import (ProviderInfo, model_tokens, normalize_model_id, normalize_provider,
                       tokens_start_with)

__all__ = ["Matcher", "compile_matcher", "python_matcher", "NEVER", "MATCH_KEYS"]

Result = tuple[bool, str]


@attrs.frozen
class Matcher:
    """A predicate on a resolved ProviderInfo, with a description for lint and explain."""

    test: Callable[[ProviderInfo], Result] = attrs.field(eq=False)
    description: str
    # For shadowing analysis: model patterns and provider sets this matcher requires, if simple.
    models: tuple[tuple[str, ...], ...] | None = None
    providers: frozenset[str] | None = None
    unconditional: bool = False
    families: frozenset[str] = frozenset()  # the model families it names (for lint)

    def __call__(self, info: ProviderInfo) -> Result:
        return self.test(info)


def _never(_info: ProviderInfo) -> Result:
    return False, "no matcher (reachable only as the fallback or by id)"


NEVER = Matcher(_never, "never")


def _as_list(value: Any, field: str, source: str, kind: type) -> list[Any]:
    items = value if isinstance(value, list) else [value]
    for item in items:
        if not isinstance(item, kind) or isinstance(item, bool) and kind is not bool:
            raise VariantConfigError(f"must be {kind.__name__} or a list of them, got {item!r}",
                                     source=source, field=field)
    return items


def _provider_in(names: list[str]) -> Matcher:
    wanted = frozenset(map(normalize_provider, names))

    def test(info: ProviderInfo) -> Result:
        p = normalize_provider(info.provider)
        if p in wanted:
            return True, f"provider {p!r} is in {sorted(wanted)}"
        return False, f"provider {p!r} is not in {sorted(wanted)}"
    return Matcher(test, f"provider in {sorted(wanted)}", providers=wanted)


def _model_like(patterns: list[str]) -> Matcher:
    compiled = tuple(tuple(normalize_model_id(p).split("-")) for p in patterns)

    def test(info: ProviderInfo) -> Result:
        tokens = model_tokens(info.model)
        for pattern, raw in zip(compiled, patterns):
            if tokens_start_with(tokens, pattern):
                return True, f"model {'-'.join(tokens)!r} starts with {raw!r}"
        return False, f"model {'-'.join(tokens)!r} matches none of {patterns}"
    return Matcher(test, f"model like {patterns}", models=compiled)


def _family_in(names: list[str]) -> Matcher:
    wanted = frozenset(names)

    def test(info: ProviderInfo) -> Result:
        fam = info.family or "unknown"
        if fam in wanted:
            return True, f"model family {fam!r} is in {sorted(wanted)}"
        return False, f"model family {fam!r} is not in {sorted(wanted)}"
    return Matcher(test, f"family in {sorted(wanted)}", families=wanted)


def _capability(name: str, wanted: bool) -> Matcher:
    label = name.replace("_", " ")

    def test(info: ProviderInfo) -> Result:
        have = bool(getattr(info, name))
        if have == wanted:
            return True, f"{label} is {str(have).lower()}"
        return False, f"{label} is {str(have).lower()}, wanted {str(wanted).lower()}"
    return Matcher(test, f"{name} = {str(wanted).lower()}")


def _local(wanted: bool) -> Matcher:
    def test(info: ProviderInfo) -> Result:
        if info.is_local == wanted:
            return True, f"provider {info.provider!r} is {'' if wanted else 'not '}local"
        return False, f"provider {info.provider!r} is {'not ' if wanted else ''}local"
    return Matcher(test, f"local = {str(wanted).lower()}")


def _context_bound(limit: int, at_least: bool) -> Matcher:
    def test(info: ProviderInfo) -> Result:
        window = info.context_window or 0
        ok = window >= limit if at_least else window <= limit
        op = "≥" if at_least else "≤"
        return ok, f"context window {window} {'is' if ok else 'is not'} {op} {limit}"
    return Matcher(test, f"context window {'>=' if at_least else '<='} {limit}")


def _all(parts: list[Matcher]) -> Matcher:
    if len(parts) == 1:
        return parts[0]

    def test(info: ProviderInfo) -> Result:
        reasons = []
        for part in parts:
            ok, why = part.test(info)
            if not ok:
                return False, why
            reasons.append(why)
        return True, "; ".join(reasons)
    models = next((p.models for p in parts if p.models is not None), None)
    providers = next((p.providers for p in parts if p.providers is not None), None)
    return Matcher(test, " and ".join(p.description for p in parts), models=models,
                   providers=providers, families=_families(parts))


def _any(parts: list[Matcher]) -> Matcher:
    def test(info: ProviderInfo) -> Result:
        reasons = []
        for part in parts:
            ok, why = part.test(info)
            if ok:
                return True, why
            reasons.append(why)
        return False, "none of: " + "; ".join(reasons)
    # For lint's shadowing probes: the union of the alternatives' model patterns.
    models = tuple(m for p in parts for m in (p.models or ()))
    return Matcher(test, "any of (" + " | ".join(p.description for p in parts) + ")",
                   models=models or None, families=_families(parts))


def _not(part: Matcher) -> Matcher:
    def test(info: ProviderInfo) -> Result:
        ok, why = part.test(info)
        return (not ok), (f"not ({why})")
    return Matcher(test, f"not ({part.description})", families=part.families)


def _families(parts: list[Matcher]) -> frozenset[str]:
    return frozenset().union(*(p.families for p in parts))


def _always(_info: ProviderInfo) -> Result:
    return True, "matches every model"


MATCH_KEYS = ("provider", "model", "family", "native_tools", "images", "parallel_tools",
              "prompt_caching", "local", "min_context", "max_context", "any", "all", "not",
              "always")


def compile_matcher(spec: Mapping[str, Any], source: str, field: str = "match") -> Matcher:
    """Build a matcher from a TOML table; all keys must hold (AND)."""
    if not isinstance(spec, Mapping):
        raise VariantConfigError(f"must be a table, got {spec!r}", source=source, field=field)
    parts = [_MatchKey(source, f"{field}.{key}").visit(key, value) for key, value in spec.items()]
    if not parts:
        raise VariantConfigError("an empty matcher table matches nothing; use `always = true` "
                                 "or remove it", source=source, field=field)
    return _all(parts)


class _MatchKey:
    """Compiles one key of a `[match]` table: a `visit_<key>` method per matcher key (as
    jinja2's NodeVisitor has one per node kind). Errors name `field`."""

    __slots__ = ("source", "field")

    def __init__(self, source: str, field: str) -> None:
        self.source = source
        self.field = field

    def visit(self, key: str, value: Any) -> Matcher:
        visitor = getattr(self, f"visit_{key}", None) if key in MATCH_KEYS else None
        if visitor is None:
            raise VariantConfigError(unknown_key(key, MATCH_KEYS, "matcher key"),
                                     source=self.source, field=self.field)
        matcher: Matcher = visitor(value)
        return matcher

    def fail(self, message: str) -> VariantConfigError:
        return VariantConfigError(message, source=self.source, field=self.field)

    def strings(self, value: Any) -> list[str]:
        return _as_list(value, self.field, self.source, str)

    def flag(self, value: Any) -> bool:
        if not isinstance(value, bool):
            raise self.fail(f"must be true or false, got {value!r}")
        return value

    def visit_provider(self, value: Any) -> Matcher:
        return _provider_in(self.strings(value))

    def visit_model(self, value: Any) -> Matcher:
        pats = self.strings(value)
        if any(not normalize_model_id(p) for p in pats):
            raise self.fail("empty model pattern")
        return _model_like(pats)

    def visit_family(self, value: Any) -> Matcher:
        return _family_in(self.strings(value))

    def visit_native_tools(self, value: Any) -> Matcher:
        return _capability("native_tools", self.flag(value))

    def visit_images(self, value: Any) -> Matcher:
        return _capability("images", self.flag(value))

    def visit_parallel_tools(self, value: Any) -> Matcher:
        return _capability("parallel_tools", self.flag(value))

    def visit_prompt_caching(self, value: Any) -> Matcher:
        return _capability("prompt_caching", self.flag(value))

    def visit_local(self, value: Any) -> Matcher:
        return _local(self.flag(value))

    def visit_min_context(self, value: Any) -> Matcher:
        return _context_bound(self.window(value), at_least=True)

    def visit_max_context(self, value: Any) -> Matcher:
        return _context_bound(self.window(value), at_least=False)

    def window(self, value: Any) -> int:
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise self.fail(f"must be a non-negative integer, got {value!r}")
        return value

    def visit_any(self, value: Any) -> Matcher:
        return _any(self.alternatives(value))

    def visit_all(self, value: Any) -> Matcher:
        return _all(self.alternatives(value))

    def alternatives(self, value: Any) -> list[Matcher]:
        """`any` / `all`: a non-empty list of tables, each a matcher of its own."""
        if not isinstance(value, list) or not value:
            raise self.fail("must be a non-empty list of tables")
        return [compile_matcher(v, self.source, f"{self.field}[{i}]") for i, v in enumerate(value)]

    def visit_not(self, value: Any) -> Matcher:
        return _not(compile_matcher(value, self.source, self.field))

    def visit_always(self, value: Any) -> Matcher:
        if value is not True:
            raise self.fail("must be true")
        return Matcher(_always, "always", unconditional=True)


def python_matcher(fn: Callable[[ProviderInfo], Any], description: str = "") -> Matcher:
    """Wrap a plugin's function (returning bool, or (bool, reason)) as a Matcher."""
    def test(info: ProviderInfo) -> Result:
        result = fn(info)
        if isinstance(result, tuple):
            ok, why = result
            return bool(ok), str(why)
        return bool(result), ("matched" if result else "did not match") + f" ({description})"
    return Matcher(test, description or getattr(fn, "__qualname__", "python matcher"))
