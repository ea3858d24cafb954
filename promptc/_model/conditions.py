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
from .._base.suggest import did_you_mean
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
    parts: list[Condition] = []
    for key, value in spec.items():
        sub = f"{field}.{key}"
        try:
            parts.append(_one(key, value, source, sub, error))
        except ConfigError as exc:
            if type(exc) is not error and error is not ConfigError:
                raise error(exc.message, source=exc.source, field=exc.field) from None
            raise
    if not parts:
        return ALWAYS
    if len(parts) == 1:
        return parts[0]
    tests = tuple(p.test for p in parts)
    return Condition(lambda c, p, m: all(t(c, p, m) for t in tests),
                     " and ".join(x.description for x in parts),
                     frozenset().union(*(x.reads for x in parts)),
                     frozenset().union(*(x.features for x in parts)))


def _one(key: str, value: Any, source: str, sub: str, error: type[ConfigError]) -> Condition:
    if key == "feature":
        names = _strs(value, source, sub)
        return Condition(lambda c, p, m: all(bool(c.features.get(n)) for n in names),
                         f"feature {names}", frozenset({"features"}), frozenset(names))
    if key == "mode":
        modes = _strs(value, source, sub)
        bad = [x for x in modes if x not in ("act", "plan")]
        if bad:
            raise error(f"mode must be 'act' or 'plan', got {bad[0]!r}", source=source, field=sub)
        return Condition(lambda c, p, m: c.mode in modes, f"mode in {modes}", frozenset({"mode"}))
    if key == "has":
        names = _strs(value, source, sub)
        for n in names:
            if n not in HAS_FIELDS:
                raise error("unknown `has` subject" + did_you_mean(n, HAS_FIELDS), source=source,
                            field=sub)
        checks = tuple(HAS_FIELDS[n][1] for n in names)
        return Condition(lambda c, p, m: all(chk(c) for chk in checks), f"has {names}",
                         frozenset(HAS_FIELDS[n][0] for n in names))
    if key in ("native_tools", "images"):
        want = _bool(value, source, sub)
        return Condition(lambda c, p, m: bool(getattr(p, key)) == want, f"{key} = {want}",
                         frozenset({"provider"}))
    if key == "tool_mode":
        modes = _strs(value, source, sub)
        return Condition(lambda c, p, m: m in modes, f"tool mode in {modes}", frozenset())
    if key in ("any", "all"):
        if not isinstance(value, list) or not value:
            raise error("must be a non-empty list of tables", source=source, field=sub)
        subs = [compile_condition(v, source, f"{sub}[{i}]", error) for i, v in enumerate(value)]
        tests = tuple(s.test for s in subs)
        combine = any if key == "any" else all
        return Condition(lambda c, p, m: combine(t(c, p, m) for t in tests),
                         f"{key} of ({', '.join(s.description for s in subs)})",
                         frozenset().union(*(s.reads for s in subs)),
                         frozenset().union(*(s.features for s in subs)))
    if key == "not":
        inner = compile_condition(value, source, sub, error)
        return Condition(lambda c, p, m: not inner.test(c, p, m), f"not ({inner.description})",
                         inner.reads, inner.features)
    raise error("unknown condition key" + did_you_mean(key, CONDITION_KEYS), source=source,
                field=sub)
