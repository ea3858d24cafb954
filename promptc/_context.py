"""PromptContext: everything about one request that a prompt may depend on.

Records are frozen and hashable so a component's output can be memoized by the fields it reads and
one context can be shared by many threads. Each field belongs to a cache class (see FIELD_CLASSES).
"""

from __future__ import annotations

import datetime
import json
import re
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, ClassVar, Literal, NoReturn, TypeVar

import attrs

from ._errors import ContextError, PromptcError
from ._frozen import EMPTY, FrozenDict, freeze
from ._provider import ProviderInfo
from ._schema import build_record

__all__ = ["PromptContext", "Rule", "McpServer", "McpTool", "McpResource", "McpResourceTemplate",
           "Skill", "Attachment", "WorkspaceRoot", "FIELD_CLASSES", "MAX_CONTEXT_FILE_BYTES"]

MAX_CONTEXT_FILE_BYTES = 64 * 1024 * 1024

R = TypeVar("R")


def _records(cls: type[R], items: Iterable[Any] | None) -> tuple[R, ...]:
    """`items` as records of `cls`, each plain table built into one."""
    if items is None:
        return ()
    return tuple(item if isinstance(item, cls) else
                 build_record(cls, item, path=cls.__name__, error=ContextError)
                 for item in items)


# Named converters, one per record type (mypy's attrs plugin reads a converter's signature).
def _mcp_tools(items: Iterable[Any] | None) -> tuple[McpTool, ...]:
    return _records(McpTool, items)


def _mcp_resources(items: Iterable[Any] | None) -> tuple[McpResource, ...]:
    return _records(McpResource, items)


def _mcp_resource_templates(items: Iterable[Any] | None) -> tuple[McpResourceTemplate, ...]:
    return _records(McpResourceTemplate, items)


def _mcp_servers(items: Iterable[Any] | None) -> tuple[McpServer, ...]:
    return _records(McpServer, items)


def _workspace_roots(items: Iterable[Any] | None) -> tuple[WorkspaceRoot, ...]:
    return _records(WorkspaceRoot, items)


def _rules(items: Iterable[Any] | None) -> tuple[Rule, ...]:
    return _records(Rule, items)


def _skills(items: Iterable[Any] | None) -> tuple[Skill, ...]:
    return _records(Skill, items)


def _attachments(items: Iterable[Any] | None) -> tuple[Attachment, ...]:
    return _records(Attachment, items)


def _frozen_map(value: Mapping[str, Any] | None) -> FrozenDict:
    if value is None:
        return EMPTY
    if isinstance(value, FrozenDict):
        return value
    return freeze(dict(value))


def _strings(value: Iterable[str] | None) -> tuple[str, ...]:
    return tuple(value) if value else ()


class _Keyed:
    """Equality and hashing through one nested tuple built at construction.

    Clients build a new, equal context for every request, and promptc's first step is to find the
    equal context it already knows. Comparing attrs records field by field runs Python code for
    every nested record; comparing one prebuilt tuple of tuples runs in C.
    """

    __slots__ = ("_key", "_h")  # filled by __attrs_post_init__; not attrs fields
    __key_fields__: ClassVar[tuple[str, ...]]  # set by @_keyed: the attrs fields, in order
    _key: tuple[Any, ...]
    _h: int | None

    def __attrs_post_init__(self) -> None:
        parts = []
        for name in type(self).__key_fields__:
            value = getattr(self, name)
            if value.__class__ is tuple and value and isinstance(value[0], _Keyed):
                value = tuple(item._key for item in value)
            elif value.__class__ is FrozenDict:
                value = value.flat
            parts.append(value)
        object.__setattr__(self, "_key", tuple(parts))
        object.__setattr__(self, "_h", None)

    def __eq__(self, other: object) -> bool:
        if other is self:
            return True
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._key == other._key

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self) -> int:
        h = self._h
        if h is None:
            h = hash((self.__class__.__name__, self._key))
            object.__setattr__(self, "_h", h)
        return h


def _keyed(cls: type) -> type:
    cls.__key_fields__ = tuple(f.name for f in attrs.fields(cls)  # type: ignore[attr-defined]
                               if not f.name.startswith("_"))
    return cls




@_keyed
@attrs.frozen(eq=False)
class Rule(_Keyed):
    """One source of user instructions (a rules file, a setting), inserted verbatim."""

    name: str
    text: str
    origin: str = ""


@_keyed
@attrs.frozen(eq=False)
class McpTool(_Keyed):
    name: str
    description: str = ""
    input_schema: FrozenDict = attrs.field(default=EMPTY, converter=_frozen_map)


@_keyed
@attrs.frozen(eq=False)
class McpResource(_Keyed):
    uri: str
    name: str = ""
    description: str = ""
    mime_type: str = ""


@_keyed
@attrs.frozen(eq=False)
class McpResourceTemplate(_Keyed):
    uri_template: str
    name: str = ""
    description: str = ""
    mime_type: str = ""


@_keyed
@attrs.frozen(eq=False)
class McpServer(_Keyed):
    """A connected MCP server, with what it offers."""

    name: str
    command: str = ""
    url: str = ""
    tools: tuple[McpTool, ...] = attrs.field(default=(), converter=_mcp_tools)
    resources: tuple[McpResource, ...] = attrs.field(default=(), converter=_mcp_resources)
    resource_templates: tuple[McpResourceTemplate, ...] = attrs.field(
        default=(), converter=_mcp_resource_templates)


@_keyed
@attrs.frozen(eq=False)
class Skill(_Keyed):
    """A skill: only name and description go in the prompt; content is loaded on demand."""

    name: str
    description: str = ""
    content: str = ""
    references: tuple[str, ...] = attrs.field(default=(), converter=_strings)


@_keyed
@attrs.frozen(eq=False)
class Attachment(_Keyed):
    """A file the user attached to this request (only its name and MIME type matter here)."""

    name: str
    type: str = ""


@_keyed
@attrs.frozen(eq=False)
class WorkspaceRoot(_Keyed):
    """One folder of a multi-root workspace."""

    path: str
    name: str = ""
    vcs: str = ""


def _check_date(instance: Any, attribute: Any, value: str | None) -> None:
    if value is None:
        return
    try:
        datetime.date.fromisoformat(value)
    except ValueError:
        raise ContextError(f"must be an ISO date (YYYY-MM-DD), got {value!r}",
                           field=attribute.name) from None


def _normalize_text(value: str) -> str:
    return value.replace("\r\n", "\n").replace("\r", "\n") if "\r" in value else value


@_keyed
@attrs.frozen(eq=False)
class PromptContext(_Keyed):
    """The runtime context of one request. Every field is optional."""

    provider: ProviderInfo | None = None
    cwd: str = ""
    os: str = ""
    shell: str = ""
    home: str = ""
    ide: str = ""
    mode: Literal["act", "plan"] = attrs.field(
        default="act", validator=attrs.validators.in_(("act", "plan")))
    date: str | None = attrs.field(default=None, validator=_check_date)
    workspace_roots: tuple[WorkspaceRoot, ...] = attrs.field(
        default=(), converter=_workspace_roots)
    rules: tuple[Rule, ...] = attrs.field(default=(), converter=_rules)
    mcp_servers: tuple[McpServer, ...] = attrs.field(default=(), converter=_mcp_servers)
    skills: tuple[Skill, ...] = attrs.field(default=(), converter=_skills)
    features: FrozenDict = attrs.field(default=EMPTY, converter=_frozen_map)
    attachments: tuple[Attachment, ...] = attrs.field(default=(), converter=_attachments)
    runtime: FrozenDict = attrs.field(default=EMPTY, converter=_frozen_map)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, source: str | None = None) -> PromptContext:
        """Build from JSON-like data; an unknown or mistyped field raises ContextError."""
        if not isinstance(data, Mapping):
            raise ContextError("the context must be a table/object", source=source)
        data = dict(data)
        provider = data.pop("provider", None)
        if isinstance(data.get("date"), datetime.date):  # TOML's native `date = 2026-01-01`
            data["date"] = data["date"].isoformat()
        ctx = build_record(cls, data, source=source, error=ContextError)
        if provider is not None:
            ctx = attrs.evolve(ctx, provider=ProviderInfo.from_dict(provider, source=source))
        return _normalized(ctx)

    @classmethod
    def load(cls, path: str | Path) -> PromptContext:
        """Read a context from a .json or .toml file."""
        p = Path(path)
        data = _read_data_file(p, ContextError, MAX_CONTEXT_FILE_BYTES)
        return cls.from_dict(data, source=str(p))

    def to_dict(self) -> dict[str, Any]:
        from ._frozen import thaw
        out = attrs.asdict(self, recurse=True,
                           filter=lambda a, _v: not a.name.startswith("_"),
                           value_serializer=lambda _i, _a, v: thaw(v)
                           if isinstance(v, FrozenDict) else v)
        if self.provider is not None:
            out["provider"] = {k: v for k, v in out["provider"].items() if v is not None}
        return out

    def feature(self, name: str, default: Any = False) -> Any:
        return self.features.get(name, default)


def _normalized(ctx: PromptContext) -> PromptContext:
    """CRLF → LF in the text fields a file can carry, so output never depends on line endings."""
    rules = ctx.rules
    if any("\r" in r.text for r in rules):
        rules = tuple(attrs.evolve(r, text=_normalize_text(r.text)) for r in rules)
    skills = ctx.skills
    if any("\r" in s.content or "\r" in s.description for s in skills):
        skills = tuple(attrs.evolve(s, content=_normalize_text(s.content),
                                    description=_normalize_text(s.description)) for s in skills)
    if rules is ctx.rules and skills is ctx.skills:
        return ctx
    return attrs.evolve(ctx, rules=rules, skills=skills)


def _read_data_file(path: Path, error: type[PromptcError], limit: int) -> Any:
    """Read a JSON or TOML file into plain data, with errors that name the file and line."""
    from ._files import read_text_file
    suffix = path.suffix.lower()
    if suffix not in (".json", ".toml"):
        raise error(f"unsupported file type {suffix or '(none)'}: use .json or .toml",
                    source=str(path))
    text = read_text_file(path, error, limit, allow_nul=True)
    if suffix == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise error(f"invalid JSON: {exc.msg} (column {exc.colno})", source=str(path),
                        line=exc.lineno) from None
        except RecursionError:
            raise error("invalid JSON: nested too deeply", source=str(path)) from None
        _check_surrogates(data, text, path, error)
        return data
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return _raise_toml(error, exc, path, text)
    except RecursionError:
        raise error("invalid TOML: nested too deeply", source=str(path)) from None


# A \uD800-\uDFFF escape (after an even run of backslashes it is plain text, not an escape).
_SURROGATE_ESCAPE = re.compile(r"(\\+)u([dD][89a-fA-F][0-9a-fA-F]{2})")


def _lone_surrogate(text: str) -> tuple[int, int] | None:
    """(offset, code) of the first surrogate escape in JSON text that is not half of a pair.

    json.loads accepts `"\\ud800"` and returns a string no UTF-8 writer can encode, so such a
    value would only fail later, far from the file that carried it.
    """
    high: tuple[int, int, int] | None = None  # (offset, end, code) of an unpaired high half
    for m in _SURROGATE_ESCAPE.finditer(text):
        if len(m.group(1)) % 2 == 0:
            continue
        start = m.end(1) - 1
        code = int(m.group(2), 16)
        if code >= 0xDC00:
            if high is not None and high[1] == start:
                high = None
                continue
            return (high[0], high[2]) if high is not None else (start, code)
        if high is not None:
            return high[0], high[2]
        high = (start, m.end(), code)
    return (high[0], high[2]) if high is not None else None


def _check_surrogates(data: Any, text: str, path: Path, error: type[PromptcError]) -> None:
    if "\\u" not in text:
        return
    lone = _lone_surrogate(text)
    if lone is not None:
        offset, code = lone
        line = text.count("\n", 0, offset) + 1
        column = offset - text.rfind("\n", 0, offset)
        raise error(f"invalid JSON: \\u{code:04x} is a lone surrogate, not a character "
                    f"(column {column})", source=str(path), line=line)


def _raise_toml(error: type[PromptcError], exc: Exception, path: Path, text: str | None = None
                ) -> NoReturn:
    import re
    msg = str(exc)
    m = re.search(r"\(at line (\d+), column (\d+)\)", msg)
    line = int(m.group(1)) if m else None
    if line is None and text is not None and "end of document" in msg:
        line = text.rstrip("\n").count("\n") + 1
    msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", msg) + (
        f" (column {m.group(2)})" if m else "")
    raise error(f"invalid TOML: {msg}", source=str(path), line=line) from None


# Cache class of each context field: what a prompt section depending on it can be cached with.
FIELD_CLASSES: dict[str, str] = {
    "provider": "static",
    "cwd": "session", "os": "session", "shell": "session", "home": "session", "ide": "session",
    "mode": "session", "workspace_roots": "session", "rules": "session",
    "mcp_servers": "session", "skills": "session", "features": "session",
    "date": "request", "attachments": "request", "runtime": "request",
}
