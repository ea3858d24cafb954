"""Conditions on a request (context + provider + tool mode), declared in data.

Used by tool specs (`[when]`): a browser tool only when the browser feature is on, MCP tools only
when servers are connected, no follow-up questions in autonomous mode. Each condition knows which
context fields it reads, so results can be memoized by exactly those fields.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from .._base.errors import ConfigError
from .._base.suggest import did_you_mean, unknown_key
from .context import PromptContext
from .provider import ProviderInfo

__all__ = ["Condition", "compile_condition", "ALWAYS", "HAS_FIELDS"]

Test = Callable[[PromptContext, ProviderInfo, str], bool]

# Things `has` can ask about: a non-empty context collection, or a derived fact.
HAS_FIELDS: dict[str, tuple[str, Callable[[PromptContext], bool]]] = {
    "mcp_servers": ("mcp_servers", lambda c: bool(c.mcp_servers)),
    "mcp_resources": ("mcp_servers",
                      lambda c: any(s.resources or s.resource_templates for s in c.mcp_servers)),
    "skills": ("skills", lambda c: bool(c.skills)),
    "skill_references": ("skills", lambda c: any(s.references for s in c.skills)),
    "rules": ("rules", lambda c: bool(c.rules)),
    "attachments": ("attachments", lambda c: bool(c.attachments)),
    "workspace_roots": ("workspace_roots", lambda c: len(c.workspace_roots) > 1),
}

CONDITION_KEYS = ("feature", "mode", "has", "native_tools", "images", "tool_mode", "any", "all",
                  "not")


@attrs.frozen
class Condition:
    test: Test = attrs.field(eq=False)
    description: str
    reads: frozenset[str]
    features: frozenset[str] = frozenset()  # the feature switches it reads (declares)

    def __call__(self, context: PromptContext, provider: ProviderInfo, tool_mode: str) -> bool:
        return self.test(context, provider, tool_mode)


ALWAYS = Condition(lambda c, p, m: True, "always", frozenset())


def _strs(value: Any, source: str, field: str) -> list[str]:
    items = value if isinstance(value, list) else [value]
    if not items or not all(isinstance(i, str) for i in items):
        raise ConfigError(f"must be a string or a list of strings, got {value!r}", source=source,
                          field=field)
    return items


def _bool(value: Any, source: str, field: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"must be true or false, got {value!r}", source=source, field=field)
    return value


def compile_condition(spec: Mapping[str, Any], source: str, field: str = "when",
                      error: type[ConfigError] = ConfigError) -> Condition:
    """Compile a `[when]` table; all keys must hold."""
    if not isinstance(spec, Mapping):
        raise error(f"must be a table, got {spec!r}", source=source, field=field)
    parts = [_ConditionKey(source, f"{field}.{key}", error).compile(key, value)
             for key, value in spec.items()]
    return _all_of(parts)


def _all_of(parts: list[Condition]) -> Condition:
    if not parts:
        return ALWAYS
    if len(parts) == 1:
        return parts[0]
    tests = tuple(p.test for p in parts)
    return Condition(lambda c, p, m: all(t(c, p, m) for t in tests),
                     " and ".join(x.description for x in parts),
                     frozenset().union(*(x.reads for x in parts)),
                     frozenset().union(*(x.features for x in parts)))


class _ConditionKey:
    """Compiles one key of a `[when]` table: a `visit_<key>` method per condition key (as
    jinja2's NodeVisitor has one per node kind). Errors name `field` and raise `error`."""

    __slots__ = ("source", "field", "error")

    def __init__(self, source: str, field: str, error: type[ConfigError]) -> None:
        self.source = source
        self.field = field
        self.error = error

    def compile(self, key: str, value: Any) -> Condition:
        try:
            return self.visit(key, value)
        except ConfigError as exc:
            if type(exc) is not self.error and self.error is not ConfigError:
                raise self.error(exc.message, source=exc.source, field=exc.field) from None
            raise

    def visit(self, key: str, value: Any) -> Condition:
        visitor = getattr(self, f"visit_{key}", None) if key in CONDITION_KEYS else None
        if visitor is None:
            raise self.error(unknown_key(key, CONDITION_KEYS, "condition key"),
                             source=self.source, field=self.field)
        condition: Condition = visitor(value)
        return condition

    def strings(self, value: Any) -> list[str]:
        return _strs(value, self.source, self.field)

    def visit_feature(self, value: Any) -> Condition:
        names = self.strings(value)
        return Condition(lambda c, p, m: all(bool(c.features.get(n)) for n in names),
                         f"feature {names}", frozenset({"features"}), frozenset(names))

    def visit_mode(self, value: Any) -> Condition:
        modes = self.strings(value)
        bad = [x for x in modes if x not in ("act", "plan")]
        if bad:
            raise self.error(f"mode must be 'act' or 'plan', got {bad[0]!r}", source=self.source,
                             field=self.field)
        return Condition(lambda c, p, m: c.mode in modes, f"mode in {modes}", frozenset({"mode"}))

    def visit_has(self, value: Any) -> Condition:
        names = self.strings(value)
        for n in names:
            if n not in HAS_FIELDS:
                raise self.error("unknown `has` subject" + did_you_mean(n, HAS_FIELDS),
                                 source=self.source, field=self.field)
        checks = tuple(HAS_FIELDS[n][1] for n in names)
        return Condition(lambda c, p, m: all(chk(c) for chk in checks), f"has {names}",
                         frozenset(HAS_FIELDS[n][0] for n in names))

    def visit_native_tools(self, value: Any) -> Condition:
        return self._capability("native_tools", value)

    def visit_images(self, value: Any) -> Condition:
        return self._capability("images", value)

    def _capability(self, key: str, value: Any) -> Condition:
        want = _bool(value, self.source, self.field)
        return Condition(lambda c, p, m: bool(getattr(p, key)) == want, f"{key} = {want}",
                         frozenset({"provider"}))

    def visit_tool_mode(self, value: Any) -> Condition:
        modes = self.strings(value)
        return Condition(lambda c, p, m: m in modes, f"tool mode in {modes}", frozenset())

    def visit_any(self, value: Any) -> Condition:
        return self._some("any", value)

    def visit_all(self, value: Any) -> Condition:
        return self._some("all", value)

    def _some(self, key: str, value: Any) -> Condition:
        """`any` / `all`: a non-empty list of tables, each a condition of its own."""
        if not isinstance(value, list) or not value:
            raise self.error("must be a non-empty list of tables", source=self.source,
                             field=self.field)
        subs = [compile_condition(v, self.source, f"{self.field}[{i}]", self.error)
                for i, v in enumerate(value)]
        tests = tuple(s.test for s in subs)
        combine = any if key == "any" else all
        return Condition(lambda c, p, m: combine(t(c, p, m) for t in tests),
                         f"{key} of ({', '.join(s.description for s in subs)})",
                         frozenset().union(*(s.reads for s in subs)),
                         frozenset().union(*(s.features for s in subs)))

    def visit_not(self, value: Any) -> Condition:
        inner = compile_condition(value, self.source, self.field, self.error)
        return Condition(lambda c, p, m: not inner.test(c, p, m), f"not ({inner.description})",
                         inner.reads, inner.features)
