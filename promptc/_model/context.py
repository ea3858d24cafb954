"""PromptContext: everything about one request that a prompt may depend on.

Records are frozen, typed when constructed, and hashable, so a component's output can be memoized
by the fields it reads and one context can be shared by many threads. Equality and hashing are
attrs' own (the hash computed once per record); `1`, `1.0` and `true` in a feature or schema are
different values, as they render differently, because a FrozenDict compares typed. Text fields
are normalized (CRLF → LF) when a record is made, so output never depends on line endings.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar

import attrs

from .._base.errors import ContextError, PromptcError
from .._base.files import read_data_file
from .._base.frozen import EMPTY, FrozenDict, compact_json, freeze, thaw
from .._base.record_builder import build_record, describe, one_of, optional, text
from .._base.surrogates import first_surrogate, surrogate_in, surrogate_problem
from .cache import CacheClass
from .features import FeatureSet, builtin_features
from .provider import ProviderInfo

__all__ = ["PromptContext", "context_from_data", "records", "Rule", "McpServer", "McpTool", "McpResource", "McpResourceTemplate",
           "Skill", "Attachment", "WorkspaceRoot", "FIELD_CLASSES", "MAX_CONTEXT_FILE_BYTES",
           "MCP_ANNOTATIONS", "check_feature_names"]

MAX_CONTEXT_FILE_BYTES = 64 * 1024 * 1024

R = TypeVar("R")
_STR = text(ContextError)
_OPT_INT = optional(int, ContextError)


def _byte_count(instance: Any, attribute: Any, value: int | None) -> None:
    """A byte count: a whole number ≥ 0, or absent."""
    _OPT_INT(instance, attribute, value)
    if value is not None and value < 0:
        raise ContextError(f"must be ≥ 0, got {value}", field=attribute.name)


def _lf(value: Any) -> Any:
    """CRLF and CR → LF in a text field (other types pass to the validator, which names them)."""
    if isinstance(value, str) and "\r" in value:
        return value.replace("\r\n", "\n").replace("\r", "\n")
    return value


def records(cls: type[R], items: Iterable[Any] | None, field: str) -> tuple[R, ...]:
    """`items` as records of `cls`, each plain table built into one.

    The common case (a plain dict with known keys) goes straight to the record's constructor,
    which checks every type; only a table that fails is rebuilt field by field, for an error
    that names the exact path.
    """
    if items is None:
        return ()
    _check_list(items, field)
    if not items:
        return ()
    if isinstance(items, tuple) and all(type(item) is cls for item in items):
        return items  # records already (a memo's, say)
    known = _FIELD_NAMES[cls]
    return tuple([_record(cls, item, known, field, i) for i, item in enumerate(items)])


def _check_list(items: Any, field: str) -> None:
    if not isinstance(items, (list, tuple)) and (
            isinstance(items, (str, bytes, Mapping)) or not isinstance(items, Iterable)):
        raise ContextError(f"must be a list, got {describe(items)}", field=field)


def _record(cls: type[R], item: Any, known: frozenset[str], field: str, i: int) -> R:
    if type(item) is cls:
        return item
    if isinstance(item, dict) and item.keys() <= known:
        try:
            return cls(**item)
        except (PromptcError, TypeError, ValueError):
            pass  # rebuilt below, for an error naming the path
    built: R = build_record(cls, item, path=f"{field}[{i}]", error=ContextError)
    return built


# Named converters, one per record type (mypy's attrs plugin reads a converter's signature).
def _mcp_tools(items: Iterable[Any] | None) -> tuple[McpTool, ...]:
    return records(McpTool, items, "tools")


def _mcp_resources(items: Iterable[Any] | None) -> tuple[McpResource, ...]:
    return records(McpResource, items, "resources")


def _mcp_resource_templates(items: Iterable[Any] | None) -> tuple[McpResourceTemplate, ...]:
    return records(McpResourceTemplate, items, "resource_templates")


def _mcp_servers(items: Iterable[Any] | None) -> tuple[McpServer, ...]:
    return records(McpServer, items, "mcp_servers")


def _workspace_roots(items: Iterable[Any] | None) -> tuple[WorkspaceRoot, ...]:
    return records(WorkspaceRoot, items, "workspace_roots")


def _rules(items: Iterable[Any] | None) -> tuple[Rule, ...]:
    return records(Rule, items, "rules")


def _skills(items: Iterable[Any] | None) -> tuple[Skill, ...]:
    return records(Skill, items, "skills")


def _attachments(items: Iterable[Any] | None) -> tuple[Attachment, ...]:
    return records(Attachment, items, "attachments")


def _json_map(value: Mapping[str, Any] | None, field: str) -> FrozenDict:
    """A table of JSON values, frozen (features, runtime)."""
    if value is None:
        return EMPTY
    if isinstance(value, FrozenDict):
        return value
    if not isinstance(value, Mapping):
        raise ContextError(f"must be a table/object, got {describe(value)}", field=field)
    plain = dict(value)
    try:
        json_text = compact_json(thaw(plain))
    except (TypeError, ValueError) as exc:
        raise ContextError(f"must hold JSON values only ({exc})", field=field) from None
    _check_text(json_text, plain, field)
    frozen: FrozenDict = freeze(plain)
    return frozen


def _check_text(json_text: str, value: Any, field: str) -> None:
    """Refuse a table whose JSON text holds a lone surrogate, naming the string's path."""
    if surrogate_in(json_text) is not None:
        found = first_surrogate(value, field)
        if found is not None:
            raise ContextError(surrogate_problem(found[1]), field=found[0])


def _features(value: Mapping[str, Any] | None) -> FrozenDict:
    """Feature switches are booleans: `"no"`, `"false"` or `1` once switched a tool on."""
    if value is EMPTY:
        return EMPTY
    if value is not None and isinstance(value, Mapping):
        for name, flag in value.items():
            if not isinstance(flag, bool):
                raise ContextError(f"must be true or false, got {describe(flag)}",
                                   field=f"features.{name}")
        if isinstance(value, dict) and all(isinstance(name, str) and surrogate_in(name) is None
                                           for name in value):
            return FrozenDict(value)  # flat booleans under text names: JSON as they are
    return _json_map(value, "features")


def check_feature_names(context: PromptContext, known: FeatureSet | None,
                        source: str | None) -> PromptContext:
    """Refuse a context naming a feature nothing reads (`known`: a compiler's features;
    None: the built-ins'). A name only a plugin or folder declares needs that compiler."""
    if not context.features:
        return context
    features = known if known is not None else builtin_features()
    unknown = features.unknown(context.features)
    if unknown:
        hint = "" if known is not None else (
            "; a feature a plugin or folder declares is known to its compiler: load the "
            "context with compiler.context(data) or PromptContext.load(path, "
            "features=compiler.features)")
        raise ContextError(features.problem(unknown[0]) + hint, source=source,
                           field=f"features.{unknown[0]}")
    return context


def _runtime(value: Mapping[str, Any] | None) -> FrozenDict:
    """Runtime values are text placed in the prompt: line endings fold to LF like every other
    text field, so a CRLF value renders the same as its LF twin."""
    if (value is not None and not isinstance(value, FrozenDict) and isinstance(value, Mapping)
            and any(isinstance(v, str) and "\r" in v for v in value.values())):
        value = {k: _lf(v) for k, v in value.items()}
    return _json_map(value, "runtime")


def _schema(value: Mapping[str, Any] | None) -> FrozenDict:
    """An input schema, kept as its canonical JSON text (see FrozenDict.packed)."""
    if value is None:
        return EMPTY
    if isinstance(value, FrozenDict) and value._json is not None:
        return value
    if not isinstance(value, Mapping):
        raise ContextError(f"must be a table/object, got {describe(value)}",
                           field="input_schema")
    try:
        packed = FrozenDict.packed(value)
    except (TypeError, ValueError) as exc:
        raise ContextError(f"must be JSON data ({exc})", field="input_schema") from None
    _check_text(packed.json_text, value, "input_schema")
    return packed


# The hints the MCP specification defines for a tool (ToolAnnotations), with their types. Other
# keys are kept as they came (a later revision of the specification may add hints).
MCP_ANNOTATIONS: dict[str, type] = {"title": str, "readOnlyHint": bool, "destructiveHint": bool,
                                    "idempotentHint": bool, "openWorldHint": bool}


def _annotations(value: Mapping[str, Any] | None) -> FrozenDict:
    """An MCP tool's annotations, each known hint of its type (a hint is only a hint: promptc
    reads `readOnlyHint` to decide what plan mode allows, and a wrong type would flip that)."""
    if value is None or isinstance(value, FrozenDict):
        return value if value is not None else EMPTY
    if not isinstance(value, Mapping):
        raise ContextError(f"must be a table/object, got {describe(value)}",
                           field="annotations")
    for key, item in value.items():
        expected = MCP_ANNOTATIONS.get(key)
        if expected is not None and type(item) is not expected:
            raise ContextError(f"must be a {'boolean' if expected is bool else 'string'}, got "
                               f"{describe(item)}", field=f"annotations.{key}")
    return _json_map(value, "annotations")


def _strings(value: Iterable[str] | None) -> tuple[str, ...]:
    if not value:
        return ()
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise ContextError(f"must be a list of strings, got {describe(value)}",
                           field="references")
    items = tuple(value)
    for i, item in enumerate(items):
        if type(item) is not str:
            raise ContextError(f"must be a string, got {describe(item)}",
                               field=f"references[{i}]")
    return items


@attrs.frozen(cache_hash=True)
class Rule:
    """One source of user instructions (a rules file, a setting), inserted verbatim."""

    name: str = attrs.field(validator=_STR)
    text: str = attrs.field(converter=_lf, validator=_STR)
    origin: str = attrs.field(default="", validator=_STR)


@attrs.frozen(cache_hash=True)
class McpTool:
    """A tool of an MCP server, as its `tools/list` describes it (`annotations`: the hints
    of the MCP specification, `readOnlyHint` and the others)."""

    name: str = attrs.field(validator=_STR)
    description: str = attrs.field(default="", converter=_lf, validator=_STR)
    input_schema: FrozenDict = attrs.field(default=EMPTY, converter=_schema)
    title: str = attrs.field(default="", validator=_STR)
    annotations: FrozenDict = attrs.field(default=EMPTY, converter=_annotations)

    @property
    def read_only(self) -> bool:
        """The server says the tool changes nothing (`readOnlyHint: true`)."""
        return self.annotations.get("readOnlyHint") is True


@attrs.frozen(cache_hash=True)
class McpResource:
    uri: str = attrs.field(validator=_STR)
    name: str = attrs.field(default="", validator=_STR)
    description: str = attrs.field(default="", converter=_lf, validator=_STR)
    mime_type: str = attrs.field(default="", validator=_STR)


@attrs.frozen(cache_hash=True)
class McpResourceTemplate:
    uri_template: str = attrs.field(validator=_STR)
    name: str = attrs.field(default="", validator=_STR)
    description: str = attrs.field(default="", converter=_lf, validator=_STR)
    mime_type: str = attrs.field(default="", validator=_STR)


@attrs.frozen(cache_hash=True)
class McpServer:
    """A connected MCP server, with what it offers."""

    name: str = attrs.field(validator=_STR)
    command: str = attrs.field(default="", validator=_STR)
    url: str = attrs.field(default="", validator=_STR)
    tools: tuple[McpTool, ...] = attrs.field(default=(), converter=_mcp_tools)
    resources: tuple[McpResource, ...] = attrs.field(default=(), converter=_mcp_resources)
    resource_templates: tuple[McpResourceTemplate, ...] = attrs.field(
        default=(), converter=_mcp_resource_templates)


@attrs.frozen(cache_hash=True)
class Skill:
    """A skill: only name and description go in the prompt; content is loaded on demand."""

    name: str = attrs.field(validator=_STR)
    description: str = attrs.field(default="", converter=_lf, validator=_STR)
    content: str = attrs.field(default="", converter=_lf, validator=_STR)
    references: tuple[str, ...] = attrs.field(default=(), converter=_strings)


@attrs.frozen(cache_hash=True)
class Attachment:
    """A file the user attached to this request: its name, MIME type and size in bytes (the
    size a template may show; a client's own attachment records carry it)."""

    name: str = attrs.field(validator=_STR)
    type: str = attrs.field(default="", validator=_STR)
    size: int | None = attrs.field(default=None, validator=_byte_count)


@attrs.frozen(cache_hash=True)
class WorkspaceRoot:
    """One folder of a multi-root workspace."""

    path: str = attrs.field(validator=_STR)
    name: str = attrs.field(default="", validator=_STR)
    vcs: str = attrs.field(default="", validator=_STR)


def _plain(record: Any) -> dict[str, Any]:
    """A record's fields as plain data: nested records as tables, frozen data thawed."""
    out: dict[str, Any] = {}
    for field in attrs.fields(type(record)):
        name = field.name
        value = getattr(record, name)
        if value is None:  # an optional field left out (an attachment's size)
            continue
        if isinstance(value, tuple) and value and attrs.has(type(value[0])):
            value = [_plain(item) for item in value]  # records nest three deep at most
        elif isinstance(value, FrozenDict):
            value = thaw(value)
        elif isinstance(value, tuple):
            value = list(value)
        out[name] = value
    return out


def _check_date(instance: Any, attribute: Any, value: str | None) -> None:
    if value is None:
        return
    if not isinstance(value, str):
        raise ContextError(f"must be an ISO date (YYYY-MM-DD), got {describe(value)}",
                           field=attribute.name)
    try:
        datetime.date.fromisoformat(value)
    except ValueError:
        raise ContextError(f"must be an ISO date (YYYY-MM-DD), got {value!r}",
                           field=attribute.name) from None


def _provider(value: Any) -> ProviderInfo | None:
    if value is None or isinstance(value, ProviderInfo):
        return value
    return ProviderInfo.from_dict(value)


@attrs.frozen(cache_hash=True)
class PromptContext:
    """The runtime context of one request. Every field is optional."""

    provider: ProviderInfo | None = attrs.field(default=None, converter=_provider)
    cwd: str = attrs.field(default="", validator=_STR)
    os: str = attrs.field(default="", validator=_STR)
    shell: str = attrs.field(default="", validator=_STR)
    home: str = attrs.field(default="", validator=_STR)
    ide: str = attrs.field(default="", validator=_STR)
    mode: Literal["act", "plan"] = attrs.field(default="act",
                                               validator=one_of(("act", "plan"), ContextError))
    date: str | None = attrs.field(default=None, validator=_check_date)
    workspace_roots: tuple[WorkspaceRoot, ...] = attrs.field(
        default=(), converter=_workspace_roots)
    rules: tuple[Rule, ...] = attrs.field(default=(), converter=_rules)
    mcp_servers: tuple[McpServer, ...] = attrs.field(default=(), converter=_mcp_servers)
    skills: tuple[Skill, ...] = attrs.field(default=(), converter=_skills)
    features: FrozenDict = attrs.field(default=EMPTY, converter=_features)
    attachments: tuple[Attachment, ...] = attrs.field(default=(), converter=_attachments)
    runtime: FrozenDict = attrs.field(default=EMPTY, converter=_runtime)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, source: str | None = None,
                  features: FeatureSet | None = None) -> PromptContext:
        """Build from JSON-like data; an unknown or mistyped field raises ContextError, and so
        does a feature name not in `features` (default: the built-ins' features; pass
        `compiler.features` for those a plugin or folder declares)."""
        return check_feature_names(context_from_data(data, source), features, source)

    @classmethod
    def load(cls, path: str | Path, *, features: FeatureSet | None = None) -> PromptContext:
        """Read a context from a .json or .toml file (see `from_dict` for `features`)."""
        p = Path(path)
        data = read_data_file(p, ContextError, MAX_CONTEXT_FILE_BYTES)
        return cls.from_dict(data, source=str(p), features=features)

    def to_dict(self) -> dict[str, Any]:
        """The context as plain data (the context-file shape); deep values are copied without
        recursion, so any depth that loaded can be written back."""
        out = _plain(self)
        if self.provider is not None:
            out["provider"] = {k: v for k, v in attrs.asdict(self.provider).items()
                               if v is not None}
        else:
            out.pop("provider", None)  # None: left out by _plain
        return out

    def feature(self, name: str, default: Any = False) -> Any:
        return self.features.get(name, default)

    def with_provider(self, provider: ProviderInfo | None) -> PromptContext:
        """This context with another provider."""
        if provider is self.provider:
            return self
        if provider is not None and not isinstance(provider, ProviderInfo):
            raise ContextError("must be a ProviderInfo", field="provider")
        return attrs.evolve(self, provider=provider)


def context_from_data(data: Mapping[str, Any], source: str | None = None,
                      prepare: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
                      written: Sequence[bytes] | None = None) -> PromptContext:
    """The context for plain data: straight to the constructors when every key is known (they
    check every type), else field by field for an error naming the file and path. `prepare`
    (a Compiler's memo) may hand over parts as records it built before; `written`: the
    data's `marshal` bytes, whole or in pieces, when the caller has them (the memo's key),
    for the surrogate check."""
    if not isinstance(data, Mapping):
        raise ContextError("the context must be a table/object", source=source)
    found = first_surrogate(data, "", written)
    if found is not None:  # one rule for every path in, as for a context file
        raise ContextError(surrogate_problem(found[1]), source=source, field=found[0])
    data = _normalized(data, source)
    if isinstance(data, dict) and data.keys() <= _CONTEXT_FIELDS:
        try:
            return PromptContext(**(prepare(data) if prepare is not None else data))
        except (PromptcError, TypeError, ValueError):
            pass  # built again below, for an error naming the file and path
    context: PromptContext = build_record(PromptContext, data, source=source, error=ContextError)
    return context


# Each record class's field names: a table holding only these goes straight to the constructor.
_FIELD_NAMES: dict[type, frozenset[str]] = {
    cls: frozenset(attrs.fields_dict(cls)) for cls in (
        Rule, McpTool, McpResource, McpResourceTemplate, McpServer, Skill, Attachment,
        WorkspaceRoot, PromptContext)}
_CONTEXT_FIELDS = _FIELD_NAMES[PromptContext]


def _normalized(data: Mapping[str, Any], source: str | None) -> Mapping[str, Any]:
    """A provider given as a table made a record; TOML's native `date = 2026-01-01` as text."""
    provider = data.get("provider")
    date = data.get("date")
    if (provider is None or isinstance(provider, ProviderInfo)) and \
            not isinstance(date, datetime.date):
        return data
    out = dict(data)
    if provider is not None and not isinstance(provider, ProviderInfo):
        out["provider"] = ProviderInfo.from_dict(provider, source=source)
    if isinstance(date, datetime.date):
        out["date"] = date.isoformat()
    return out


# Cache class of each context field: what a prompt section depending on it can be cached with.
# Static: what a client configures once (the model, its feature flags), so the same for every
# session of that client. Session: the project and its environment. Request: what may change
# from one message to the next, the mode included (a mode switch then keeps the cached prefix).
FIELD_CLASSES: dict[str, CacheClass] = {
    "provider": "static", "features": "static",
    "cwd": "session", "os": "session", "shell": "session", "home": "session", "ide": "session",
    "workspace_roots": "session", "rules": "session", "mcp_servers": "session",
    "skills": "session",
    "mode": "request", "date": "request", "attachments": "request", "runtime": "request",
}
