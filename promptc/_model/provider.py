"""ProviderInfo: which model a request goes to, and what that model can do.

Model ids arrive spelled many ways (gateways, clouds, fine-tunes, local servers);
`normalize_model_id` folds them to one form so matchers and the model data see the same id.

What a model can do comes from data, never from code: a table generated from LiteLLM's model map
(`_data/models.generated.json`, or the user's newer copy written by `promptc models update`) and
a small hand-kept overlay (`_data/models.overlay.toml`) with the model families, facts the map
lacks and a source note per row. Every value `resolved()` fills in can say where it came from
(`model_facts`), so `promptc models` and `explain` can show it. (Writing a table from
LiteLLM's map is `promptc models update`'s job: promptc/_cli/models.py.)
"""

from __future__ import annotations

import functools
import json
import marshal
import os
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from .._base.errors import ConfigError, ContextError
from .._base.files import parse_json, parse_toml, read_text_file
from .._base.records import build_record, optional, typed

__all__ = ["ProviderInfo", "normalize_model_id", "model_tokens", "tokens_start_with",
           "local_providers", "model_table", "encoding_for", "TOKEN_ENCODINGS",
           "CAPABILITIES", "TABLE_FIELDS", "TABLE_FORMAT", "COMPILED_OVERLAY_FORMAT", "Fact",
           "ModelFacts", "FamilyRule", "Overlay", "ModelTable", "ModelData", "model_data",
           "shipped_overlay", "compiled_overlay_path", "model_facts", "capability_sources",
           "user_data_dir", "user_table_path", "shipped_table_path", "overlay_path",
           "parse_overlay", "parse_table", "decode_row", "MAX_TABLE_FILE", "resolve_provider",
           "parse_family_row"]

TOKEN_ENCODINGS = ("o200k_base", "cl100k_base")  # what promptc can count with, offline

# --- normalization -----------------------------------------------------------------------------

# Bedrock cross-region inference prefixes (`us.`, `global.`, …) and the vendor prefix after them.
_REGION_PREFIXES = frozenset(("us", "eu", "apac", "global", "us-gov", "ap", "ca", "jp", "au",
                              "in", "sa", "me", "af", "mx"))
_VENDOR_PREFIXES = frozenset((
    "anthropic", "openai", "google", "meta", "amazon", "mistral", "mistralai", "cohere", "ai21",
    "deepseek", "qwen", "moonshotai", "moonshot", "xai", "x-ai", "zai", "z-ai", "zhipuai",
    "writer", "minimax", "nvidia", "twelvelabs", "stability", "luma"))
# Vendors whose model names start with the vendor's own name (Bedrock drops it: `deepseek.v3`).
_SELF_NAMED = frozenset(("deepseek", "qwen", "mistral", "minimax"))
# Gateway variant tags after a colon (`:free`), and ollama's `:latest`.
_GATEWAY_SUFFIXES = frozenset(("free", "beta", "thinking", "extended", "nitro", "floor",
                               "online", "exacto", "latest"))
# A gateway path's last segment that qualifies the model instead of naming it.
_PATH_QUALIFIERS = frozenset(("community",))
_BEDROCK_REVISION = re.compile(r"-v?\d+:0$")          # `-v1:0`, `-v2:0`, gpt-oss's `-1:0`
_AZURE_FINE_TUNE = re.compile(r"\.ft-[0-9a-z]+$")      # `gpt-4o-2024-08-06.ft-1a2b…`
_VERSION_P = re.compile(r"(?<=\d)p(?=\d)")             # Fireworks spells 2.5 as `2p5`
_SEPARATORS = re.compile(r"[\s._:/@]+|-+")


def normalize_model_id(model: str) -> str:
    """Fold a provider's spelling of a model id to lowercase, dash-separated tokens.

    `anthropic/claude-sonnet-4.5`, `us.anthropic.claude-sonnet-4-5-20250929-v1:0` and
    `claude-sonnet-4-5@20250929` all start with the tokens `claude-sonnet-4-5`. Wrappers go
    (gateway paths, `ft:` fine-tunes, Bedrock region/vendor prefixes and `-v1:0`, `:free`);
    the model's own version stays (`deepseek-v3`, `mimo-v2`, `claude-v2:1`), and so do dates.
    """
    m = model.strip().lower()
    if "/" in m:  # gateway paths: openrouter `vendor/model`, `accounts/…/models/…`, ARNs
        segments = [s for s in m.split("/") if s]
        while len(segments) > 1 and segments[-1] in _PATH_QUALIFIERS:
            segments.pop()
        m = segments[-1] if segments else ""
    if m.startswith("ft:"):  # OpenAI fine-tunes: `ft:<base model>:<org>:<name>:<id>`
        m = m[3:].split(":", 1)[0]
    m = _AZURE_FINE_TUNE.sub("", m)
    head, colon, tail = m.rpartition(":")
    if colon and tail in _GATEWAY_SUFFIXES:
        m = head
    parts = m.split(".")
    if len(parts) > 1 and parts[0] in _REGION_PREFIXES and (
            len(parts) > 2 or parts[1].split("-", 1)[0] in _VENDOR_PREFIXES):
        parts = parts[1:]
    if len(parts) > 1 and parts[0] in _VENDOR_PREFIXES:
        vendor = parts[0]
        parts = parts[1:]
        if vendor in _SELF_NAMED and not parts[0].startswith(vendor):
            parts[0] = f"{vendor}-{parts[0]}"
    m = _VERSION_P.sub(".", ".".join(parts))
    stripped = _BEDROCK_REVISION.sub("", m)
    if stripped and _SEPARATORS.search(stripped):  # never the whole name (`claude-v2:1` stays)
        m = stripped
    tokens = [t for t in _SEPARATORS.split(m) if t]
    # Bedrock's bare `-v1` revision (`claude-opus-4-6-v1`), only after a versioned token, so
    # `deepseek-v3` and `titan-text-express-v1` keep theirs.
    while len(tokens) > 2 and tokens[-1] == "v1" and any(c.isdigit() for c in tokens[-2]):
        tokens.pop()
    return "-".join(tokens)


def model_tokens(model: str) -> tuple[str, ...]:
    normalized = normalize_model_id(model)
    return tuple(normalized.split("-")) if normalized else ()


def tokens_start_with(tokens: tuple[str, ...], pattern: tuple[str, ...]) -> bool:
    """True when `pattern` is a token prefix of `tokens`.

    A `*` pattern token matches one or more tokens (`gemini-*-pro` matches `gemini-2-5-pro`).
    Patterns are a handful of tokens, so the set-of-positions walk below stays tiny.
    """
    if "*" not in pattern:
        return len(pattern) <= len(tokens) and tokens[:len(pattern)] == pattern
    positions = {0}
    for want in pattern:
        nxt: set[int] = set()
        for i in positions:
            if want == "*":
                nxt.update(range(i + 1, len(tokens) + 1))
            elif i < len(tokens) and tokens[i] == want:
                nxt.add(i + 1)
        if not nxt:
            return False
        positions = nxt
    return True


def _digits(text: str, most: int = 8) -> bool:
    """ASCII digits only, 1 to `most` of them (str methods: no regex to compile at start-up)."""
    return 0 < len(text) <= most and text.isascii() and text.isdigit()


def undated(tokens: tuple[str, ...]) -> tuple[str, ...]:
    """`tokens` without a trailing release date (`-20250929`, `-2024-08-06`, `-0613`, `-04-17`).

    A lone two-digit token is a version, not a date (`grok-4-20`), so it stays.
    """
    end = len(tokens)
    long_seen = short_seen = 0
    while end > 1 and _digits(tokens[end - 1]) and len(tokens[end - 1]) in (2, 4, 6, 8):
        if len(tokens[end - 1]) == 2:
            short_seen += 1
        else:
            long_seen += 1
        end -= 1
    if long_seen or short_seen >= 2:
        return tokens[:end]
    return tokens


# --- family rules: token patterns with version ranges ------------------------------------------

_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")
_ALNUM = _LOWER | frozenset("0123456789")

Version = tuple[int, int]
# One compiled pattern token: ("lit", text) | ("word",) | ("ver", prefix, suffix, low, high).
PatternToken = tuple[Any, ...]


def _version(text: str) -> Version | None:
    """`4` → (4, 0), `2.5` → (2, 5); None when it is not such a number."""
    major, dot, minor = text.partition(".")
    if not _digits(major, 2) or (dot and not _digits(minor, 2)):
        return None
    return int(major), int(minor or 0)


def compile_pattern(pattern: str, source: str, field: str) -> tuple[PatternToken, ...]:
    """Parse a family pattern such as `claude-*-{4..}`, `qwen{3..}`, `gemini-{2.5..3}`.

    `*` is one word (not a number); `{A..B}` is a version A ≤ v < B (either bound optional),
    written as a one-digit major and an optional minor token (`4`, `4-5`), glued to a prefix
    or suffix if the pattern says so (`k{2..}` matches `k2`, `{4.5..}v` matches `4-5v`).
    """
    out: list[PatternToken] = []
    for token in pattern.strip().split("-"):
        if token == "*":
            out.append(("word",))
            continue
        if "{" not in token:
            if not token or not _ALNUM.issuperset(token):
                raise ConfigError(f"bad pattern token {token!r} in {pattern!r}: write "
                                  "patterns normalized (lowercase, dash-separated, no dots)",
                                  source=source, field=field)
            out.append(("lit", token))
            continue
        prefix, _, rest = token.partition("{")
        inner, _, suffix = rest.partition("}")
        first, dots, last = inner.partition("..")
        low = _version(first) if first else None
        high = _version(last) if last else None
        if not dots or (first and low is None) or (last and high is None) or \
                not _LOWER.issuperset(prefix) or not _LOWER.issuperset(suffix):
            raise ConfigError(f"bad pattern token {token!r} in {pattern!r}: write a version "
                              "range as {A..B}, {A..} or {..B}", source=source, field=field)
        out.append(("ver", prefix, suffix, low, high))
    return tuple(out)


def _match_version(tokens: Sequence[str], i: int, prefix: str, suffix: str
                   ) -> tuple[Version, int] | None:
    """(version, tokens used) of a version at tokens[i], or None."""
    if i >= len(tokens) or not tokens[i].startswith(prefix):
        return None
    rest = tokens[i][len(prefix):]
    if suffix:
        if rest.endswith(suffix) and _digits(rest[:-len(suffix)], 1):
            return (int(rest[:-len(suffix)]), 0), 1
        if _digits(rest, 1) and i + 1 < len(tokens):
            nxt = tokens[i + 1]
            if nxt.endswith(suffix) and _digits(nxt[:-len(suffix)], 2):
                return (int(rest), int(nxt[:-len(suffix)])), 2
        return None
    if not _digits(rest, 1):
        return None
    if i + 1 < len(tokens) and _digits(tokens[i + 1], 2):
        return (int(rest), int(tokens[i + 1])), 2
    return (int(rest), 0), 1


def pattern_matches(pattern: tuple[PatternToken, ...], tokens: Sequence[str],
                    start: int = 0) -> bool:
    """True when the pattern matches a token prefix of tokens[start:]."""
    i = start
    for part in pattern:
        kind = part[0]
        if kind == "lit":
            if i >= len(tokens) or tokens[i] != part[1]:
                return False
            i += 1
        elif kind == "word":
            if i >= len(tokens) or not tokens[i] or tokens[i][0].isdigit():
                return False
            i += 1
        else:
            found = _match_version(tokens, i, part[1], part[2])
            if found is None:
                return False
            version, used = found
            low, high = part[3], part[4]
            if (low is not None and version < low) or (high is not None and version >= high):
                return False
            i += used
    return True


# --- the data: overlay (hand-kept) + table (generated) -----------------------------------------

CAPABILITIES = ("context_window", "max_output", "native_tools", "parallel_tools", "images",
                "prompt_caching", "cache_min_tokens", "reasoning", "encoding", "estimated",
                *("responses_only", "knowledge_cutoff"))  # see "API and cutoff facts" below
# The facts the generated table carries, in the order of each row (after the entry id).
TABLE_FIELDS = ("context_window", "max_output", "images", "native_tools", "parallel_tools",
                "prompt_caching", "cache_min_tokens", "reasoning", "responses_only")
TABLE_FORMAT = "promptc-models/1"
_INT_FACTS = frozenset(("context_window", "max_output", "cache_min_tokens"))
_STR_FACTS = frozenset(("encoding", "knowledge_cutoff"))

# --- API and cutoff facts (issue 23) -----------------------------------------------------------
# `responses_only`: the model is served only through OpenAI's Responses API (LiteLLM's map marks
# its entry `"mode": "responses"`), so an OpenAI payload defaults to that shape for it.
# `knowledge_cutoff`: the month the model's training data ends ("January 2025"), from the maker's
# model page (an overlay row names it); "" when unknown. A table written before `responses_only`
# existed has one column fewer: its rows read as "unknown" there.
_LEGACY_TABLE_FIELDS = TABLE_FIELDS[:-1]


def _table_width(fields: Any, path: str) -> int:
    """How many facts each row of a table with these `fields` holds: the current columns, or
    the ones a table written before the last column was added has."""
    for known in (TABLE_FIELDS, _LEGACY_TABLE_FIELDS):
        if fields == list(known):
            return len(known)
    raise ConfigError(f"fields must be {list(TABLE_FIELDS)}; run `promptc models update` "
                      "to rewrite it", source=path, field="fields")
_DATA = os.path.join(os.path.dirname(os.path.dirname(__file__)), "_data")
MAX_TABLE_FILE = 32 * 1024 * 1024


def shipped_table_path() -> Path:
    return Path(_DATA, "models.generated.json")


def overlay_path() -> Path:
    return Path(_DATA, "models.overlay.toml")


def user_data_dir(env: Mapping[str, str] | None = None, platform: str | None = None) -> Path:
    """promptc's user data folder, as platformdirs would place it (without the dependency).

    Linux and other POSIX: `$XDG_DATA_HOME/promptc` (an absolute value only, per the XDG spec),
    else `~/.local/share/promptc`; macOS: `~/Library/Application Support/promptc`; Windows:
    `%LOCALAPPDATA%\\promptc`.
    """
    env = os.environ if env is None else env
    platform = sys.platform if platform is None else platform
    home = Path(env.get("HOME") or env.get("USERPROFILE") or Path.home())
    if platform.startswith("win"):
        base = Path(env.get("LOCALAPPDATA") or home / "AppData" / "Local")
    elif platform == "darwin":
        base = home / "Library" / "Application Support"
    else:
        xdg = env.get("XDG_DATA_HOME", "").strip()
        base = Path(xdg) if xdg and os.path.isabs(xdg) else home / ".local" / "share"
    return base / "promptc"


def user_table_path(env: Mapping[str, str] | None = None) -> Path:
    """Where `promptc models update` writes the user's table (it wins over the shipped one)."""
    return user_data_dir(env) / "models.json"


def _check_facts(row: Mapping[str, Any], source: str, field: str) -> dict[str, Any]:
    facts: dict[str, Any] = {}
    for name in CAPABILITIES:
        if name not in row:
            continue
        value = row[name]
        kind = int if name in _INT_FACTS else str if name in _STR_FACTS else bool
        if value.__class__ is not kind or (isinstance(value, int) and value < 0):
            wanted = "a non-negative integer" if kind is int else kind.__name__
            raise ConfigError(f"must be {wanted}, got {value!r}", source=source,
                              field=f"{field}.{name}")
        if name == "encoding" and value not in TOKEN_ENCODINGS:
            raise ConfigError(f"must be one of {', '.join(TOKEN_ENCODINGS)}, got {value!r}",
                              source=source, field=f"{field}.{name}")
        facts[name] = value
    return facts


def _check_keys(row: Mapping[str, Any], allowed: Iterable[str], source: str, field: str) -> None:
    allowed = tuple(allowed)
    for key in row:
        if key not in allowed:
            from .._base.suggest import did_you_mean
            raise ConfigError("unknown key" + did_you_mean(str(key), allowed), source=source,
                              field=f"{field}.{key}")


def _str_list(value: Any, source: str, field: str) -> tuple[str, ...]:
    # set(map(type, …)) and map(str.strip, …) run in C: this is read at every start.
    if value.__class__ is not list or not set(map(type, value)) <= {str} or \
            not all(map(str.strip, value)):
        raise ConfigError("must be a list of non-empty strings", source=source, field=field)
    return tuple(value)


def _text(row: Mapping[str, Any], key: str, source: str, field: str, default: str | None = None
          ) -> str:
    value = row.get(key, default)
    if not isinstance(value, str) or not value.strip():
        raise ConfigError("must be a non-empty string", source=source, field=f"{field}.{key}")
    return value


class _Record:
    """A read-only record. The model data's records are plain slotted classes, not attrs ones:
    attrs compiles each class's methods when it is defined, which every process would pay at
    import (about half a millisecond a class)."""

    __slots__: tuple[str, ...] = ()

    def _fields(self, **values: Any) -> None:
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, n) for n in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Record) and type(other) is type(self) and \
            self._values() == other._values()

    def __hash__(self) -> int:
        return hash((type(self).__name__, *self._values()))

    def __repr__(self) -> str:
        shown = ", ".join(f"{n}={getattr(self, n)!r}" for n in self.__slots__
                          if not n.startswith("_"))
        return f"{type(self).__name__}({shown})"


class FamilyRule(_Record):
    """A model family or an overlay row: patterns on the normalized id, facts, a source note.

    Family rules say which family an id belongs to (first match in file order wins) and give
    the family's facts for ids the table does not know; model rows (`[[model]]`) add facts the
    map lacks (`wins = false`, the default) or correct it (`wins = true`).
    """

    __slots__ = ("id", "title", "patterns", "compiled", "facts", "source", "unless",
                 "providers", "aliases", "examples", "wins", "_heads", "_head_prefixes")
    id: str
    title: str
    patterns: tuple[str, ...]
    compiled: tuple[tuple[PatternToken, ...], ...]
    facts: Mapping[str, Any]
    source: str
    unless: frozenset[str]
    providers: frozenset[str]
    aliases: tuple[str, ...]
    examples: tuple[str, ...]
    wins: bool
    # What the first token must be (or start with) for any pattern to match: a quick refusal.
    _heads: frozenset[str]
    _head_prefixes: tuple[str, ...]

    def __init__(self, id: str, title: str, patterns: tuple[str, ...],
                 compiled: tuple[tuple[PatternToken, ...], ...], facts: Mapping[str, Any],
                 source: str, unless: frozenset[str] = frozenset(),
                 providers: frozenset[str] = frozenset(), aliases: tuple[str, ...] = (),
                 examples: tuple[str, ...] = (), wins: bool = False) -> None:
        first = [p[0] for p in compiled]
        prefixes = {f[1] for f in first if f[0] == "ver"}
        if any(f[0] == "word" for f in first):
            prefixes.add("")
        self._fields(id=id, title=title, patterns=patterns, compiled=compiled, facts=facts,
                     source=source, unless=unless, providers=providers, aliases=aliases,
                     examples=examples, wins=wins,
                     _heads=frozenset(f[1] for f in first if f[0] == "lit"),
                     _head_prefixes=tuple(sorted(prefixes)))

    def matches(self, tokens: Sequence[str], starts: Sequence[int] = (0,),
                provider: str = "") -> bool:
        if self.providers and provider not in self.providers:
            return False
        for start in starts:
            if start >= len(tokens):
                continue
            head = tokens[start]
            if head not in self._heads and not any(head.startswith(p)
                                                   for p in self._head_prefixes):
                continue
            if self.unless and any(t in self.unless for t in tokens[start:]):
                continue
            if any(pattern_matches(p, tokens, start) for p in self.compiled):
                return True
        return False


_FAMILY_KEYS = ("id", "title", "patterns", "source", "unless", "aliases", "examples",
                *CAPABILITIES)
_MODEL_KEYS = ("id", "patterns", "source", "unless", "providers", "wins", *CAPABILITIES)


def _rule(row: Any, kind: str, index: int, source: str,
          fold: Callable[[str], str] = str.lower) -> FamilyRule:
    field = f"{kind}[{index}]"
    if not isinstance(row, Mapping):
        raise ConfigError("must be a table", source=source, field=field)
    _check_keys(row, _FAMILY_KEYS if kind == "family" else _MODEL_KEYS, source, field)
    rid = _text(row, "id", source, field)
    field = f"{kind}[{rid}]"
    patterns = _str_list(row.get("patterns"), source, f"{field}.patterns")
    if not patterns:
        raise ConfigError("must list at least one pattern", source=source,
                          field=f"{field}.patterns")
    compiled = tuple(compile_pattern(p, source, f"{field}.patterns") for p in patterns)
    wins = row.get("wins", False)
    if not isinstance(wins, bool):
        raise ConfigError("must be true or false", source=source, field=f"{field}.wins")
    facts = _check_facts(row, source, field)
    if kind == "model" and not facts:
        raise ConfigError("a model row must set at least one fact", source=source, field=field)
    return FamilyRule(
        id=rid, title=_text(row, "title", source, field, rid), patterns=patterns,
        compiled=compiled, facts=facts, source=_text(row, "source", source, field),
        unless=frozenset(_str_list(row.get("unless", []), source, f"{field}.unless")),
        providers=frozenset(fold(p) for p in _str_list(row.get("providers", []), source,
                                                       f"{field}.providers")),
        aliases=_str_list(row.get("aliases", []), source, f"{field}.aliases"),
        examples=_str_list(row.get("examples", []), source, f"{field}.examples"), wins=wins)


def parse_family_row(row: Any, index: int, source: str) -> FamilyRule:
    """One `[[family]]` row in the overlay's form (also a folder's models.toml)."""
    return _rule(row, "family", index, source)


class Overlay(_Record):
    """The hand-kept part: defaults, local servers, families, model rows, spellings."""

    __slots__ = ("path", "defaults", "defaults_source", "local_providers", "local",
                 "local_source", "families", "models", "prefixes", "provider_aliases",
                 "provider_prefixes", "first_party", "_prefix_heads")
    path: str
    defaults: Mapping[str, Any]
    defaults_source: str
    local_providers: frozenset[str]
    local: Mapping[str, Any]
    local_source: str
    families: tuple[FamilyRule, ...]
    models: tuple[FamilyRule, ...]
    prefixes: tuple[tuple[str, ...], ...]
    provider_aliases: Mapping[str, str]
    provider_prefixes: tuple[tuple[str, str], ...]
    first_party: frozenset[str]
    _prefix_heads: frozenset[str]

    def __init__(self, path: str, defaults: Mapping[str, Any], defaults_source: str,
                 local_providers: frozenset[str], local: Mapping[str, Any], local_source: str,
                 families: tuple[FamilyRule, ...], models: tuple[FamilyRule, ...],
                 prefixes: tuple[tuple[str, ...], ...], provider_aliases: Mapping[str, str],
                 provider_prefixes: tuple[tuple[str, str], ...],
                 first_party: frozenset[str]) -> None:
        self._fields(path=path, defaults=defaults, defaults_source=defaults_source,
                     local_providers=local_providers, local=local, local_source=local_source,
                     families=families, models=models, prefixes=prefixes,
                     provider_aliases=provider_aliases, provider_prefixes=provider_prefixes,
                     first_party=first_party,
                     _prefix_heads=frozenset(p[0] for p in prefixes))

    def provider_key(self, provider: str) -> str:
        """One key per provider however it is spelled (`bedrock_converse` → `bedrock`)."""
        return _provider_key(self.provider_aliases, self.provider_prefixes, provider)

    def starts(self, tokens: Sequence[str]) -> tuple[int, ...]:
        """Where a family name may start: 0, or after a gateway's glued prefix word."""
        if not tokens or tokens[0] not in self._prefix_heads:
            return (0,)
        out = [0]
        for prefix in self.prefixes:
            if len(tokens) > len(prefix) and tuple(tokens[:len(prefix)]) == prefix:
                out.append(len(prefix))
        return tuple(out)

    def family_for(self, tokens: Sequence[str], starts: Sequence[int] | None = None
                   ) -> FamilyRule | None:
        starts = self.starts(tokens) if starts is None else starts
        for rule in self.families:
            if rule.matches(tokens, starts):
                return rule
        return None

    def family_by_id(self, family: str) -> FamilyRule | None:
        for rule in self.families:
            if rule.id == family or family in rule.aliases:
                return rule
        return None


def parse_overlay(data: Mapping[str, Any], source: str) -> Overlay:
    _check_keys(data, ("defaults", "local", "spellings", "family", "model"), source, "overlay")
    defaults = data.get("defaults")
    if not isinstance(defaults, Mapping):
        raise ConfigError("missing [defaults] table", source=source, field="defaults")
    _check_keys(defaults, ("source", *CAPABILITIES), source, "defaults")
    default_facts = _check_facts(defaults, source, "defaults")
    missing = [n for n in CAPABILITIES if n not in default_facts]
    if missing:
        raise ConfigError(f"must set every capability; missing {', '.join(missing)}",
                          source=source, field="defaults")
    local = data.get("local", {})
    if not isinstance(local, Mapping):
        raise ConfigError("must be a table", source=source, field="local")
    _check_keys(local, ("source", "providers", *CAPABILITIES), source, "local")
    spellings = data.get("spellings", {})
    if not isinstance(spellings, Mapping):
        raise ConfigError("must be a table", source=source, field="spellings")
    _check_keys(spellings, ("prefixes", "providers", "first_party"), source, "spellings")
    aliases: dict[str, str] = {}
    prefixes: list[tuple[str, str]] = []
    raw_aliases = spellings.get("providers", {})
    if not isinstance(raw_aliases, Mapping):
        raise ConfigError("must be a table of lists", source=source, field="spellings.providers")
    for key in sorted(raw_aliases):
        for alias in _str_list(raw_aliases[key], source, f"spellings.providers.{key}"):
            alias = alias.lower()
            if alias.endswith("*"):
                prefixes.append((alias[:-1], key))
            else:
                aliases[alias] = key
    prefixes.sort(key=lambda p: (-len(p[0]), p))
    fold = functools.partial(_provider_key, aliases, tuple(prefixes))
    families = tuple(_rule(row, "family", i, source)
                     for i, row in enumerate(_tables(data.get("family", []), source, "family")))
    models = tuple(_rule(row, "model", i, source, fold)
                   for i, row in enumerate(_tables(data.get("model", []), source, "model")))
    for kind, rows in (("family", families), ("model", models)):
        seen: set[str] = set()
        for rule in rows:
            if rule.id in seen:
                raise ConfigError(f"duplicate id {rule.id!r}", source=source,
                                  field=f"{kind}[{rule.id}]")
            seen.add(rule.id)
    glued = {tuple(normalize_model_id(p).split("-"))
             for p in _str_list(spellings.get("prefixes", []), source, "spellings.prefixes")}
    return Overlay(
        path=source, defaults=default_facts,
        defaults_source=_text(defaults, "source", source, "defaults"),
        local_providers=frozenset(p.lower() for p in _str_list(
            local.get("providers", []), source, "local.providers")),
        local=_check_facts(local, source, "local"),
        local_source=_text(local, "source", source, "local", "local server defaults"),
        families=families, models=models,
        prefixes=tuple(sorted(glued, key=lambda p: (-len(p), p))),
        provider_aliases=aliases, provider_prefixes=tuple(prefixes),
        first_party=frozenset(fold(p) for p in _str_list(
            spellings.get("first_party", []), source, "spellings.first_party")))


def _provider_key(aliases: Mapping[str, str], prefixes: Sequence[tuple[str, str]],
                  provider: str) -> str:
    p = provider.strip().lower()
    hit = aliases.get(p)
    if hit is not None:
        return hit
    for prefix, key in prefixes:
        if p.startswith(prefix):
            return key
    return p


def _tables(value: Any, source: str, field: str) -> list[Any]:
    if not isinstance(value, list):
        raise ConfigError("must be an array of tables", source=source, field=field)
    return value


class ModelTable(_Record):
    """The generated facts: one string per normalized model id.

    `entry|context_window|max_output|images|…` (the map entry's id, then TABLE_FIELDS: `t`/`f`
    for booleans, empty when unknown), then for each provider whose entries differ,
    `;provider=entry|…` with just the differences. json.loads reads a few thousand strings far
    faster than as many lists and objects, and a row is decoded (and checked) only when a model
    is looked up.
    """

    __slots__ = ("path", "user", "source", "models", "width")
    path: str
    user: bool
    source: Mapping[str, Any]
    models: Mapping[str, str]
    width: int  # facts per row: len(TABLE_FIELDS), or fewer for a table an older promptc wrote

    def __init__(self, path: str, user: bool, source: Mapping[str, Any],
                 models: Mapping[str, str], width: int = len(TABLE_FIELDS)) -> None:
        self._fields(path=path, user=user, source=source, models=models, width=width)

    def __repr__(self) -> str:
        return f"ModelTable({self.path!r}, {len(self.models)} models)"

    @property
    def label(self) -> str:
        src = self.source
        return f"{src.get('name', 'LiteLLM')} {src.get('version', 'unknown')}"

    def row(self, key: str, provider: str = "") -> tuple[list[Any] | None, list[Any] | None]:
        """(the model's row, the provider's row) for a normalized id, decoded and checked."""
        text = self.models.get(key)
        if text is None:
            return None, None
        if not isinstance(text, str):
            raise ConfigError("must be a string", source=self.path, field=f"models.{key}")
        head, _, rest = text.partition(";")
        base = decode_row(head, self.path, f"models.{key}", self.width)
        if provider and rest:
            for part in rest.split(";"):
                name, eq, row = part.partition("=")
                if not eq:
                    raise ConfigError(f"a provider's part must be `provider=row`, got {part!r}",
                                      source=self.path, field=f"models.{key}")
                if name == provider:
                    return base, decode_row(row, self.path, f"models.{key};{name}",
                                            self.width)
        return base, None

    def check(self) -> None:
        """Decode every row (rows are otherwise checked when used)."""
        for key, text in self.models.items():
            if not isinstance(text, str):
                raise ConfigError("must be a string", source=self.path, field=f"models.{key}")
            head, _, rest = text.partition(";")
            decode_row(head, self.path, f"models.{key}", self.width)
            for part in rest.split(";") if rest else ():
                name, eq, row = part.partition("=")
                if not eq or not name:
                    raise ConfigError(f"a provider's part must be `provider=row`, got "
                                      f"{part!r}", source=self.path, field=f"models.{key}")
                decode_row(row, self.path, f"models.{key};{name}", self.width)

    def without_bad_rows(self) -> tuple[ModelTable, tuple[str, ...]]:
        """This table with every row that does not decode left out, and why each was (a
        user's table: one bad row must not break every lookup)."""
        problems: list[str] = []
        good: dict[str, str] = {}
        for key, text in self.models.items():
            try:
                ModelTable(self.path, self.user, self.source, {key: text}, self.width).check()
            except ConfigError as exc:
                problems.append(str(exc))
                continue
            good[key] = text
        if not problems:
            return self, ()
        return ModelTable(self.path, self.user, self.source, good, self.width), tuple(problems)

    def provider_rows(self) -> int:
        return sum(text.count(";") for text in self.models.values() if isinstance(text, str))


def decode_row(text: Any, path: str, field: str, width: int = len(TABLE_FIELDS)) -> list[Any]:
    """A row's entry id and facts (TABLE_FIELDS order); a row of an older table (`width`
    facts) reads as unknown in the columns it lacks."""
    parts = text.split("|") if isinstance(text, str) else []
    if len(parts) != width + 1 or not parts[0]:
        raise ConfigError(f"must be a string of the entry id and {width} values "
                          f"separated by `|` ({', '.join(TABLE_FIELDS[:width])}); run `promptc "
                          "models update` again", source=path, field=field)
    out: list[Any] = [parts[0]]
    for name, value in zip(TABLE_FIELDS, parts[1:]):
        if not value:
            out.append(None)
        elif name in _INT_FACTS:
            if not (value.isascii() and value.isdigit()):  # '²' is a digit to isdigit
                raise ConfigError(f"{name} must be a whole number, got {value!r}", source=path,
                                  field=field)
            out.append(int(value))
        elif value in ("t", "f"):
            out.append(value == "t")
        else:
            raise ConfigError(f"{name} must be t, f or empty, got {value!r}", source=path,
                              field=field)
    return out + [None] * (len(TABLE_FIELDS) - width)


def parse_table(text: str, path: str, *, user: bool = False, deep: bool = False) -> ModelTable:
    """A generated table from its JSON text. Rows are checked when used (`deep`: all now)."""
    data = parse_json(text, path, ConfigError)
    if not isinstance(data, dict):
        raise ConfigError("must be a JSON object", source=path)
    if data.get("format") != TABLE_FORMAT:
        raise ConfigError(f"not a promptc model table (format {data.get('format')!r}, expected "
                          f"{TABLE_FORMAT!r}); run `promptc models update` to rewrite it",
                          source=path, field="format")
    width = _table_width(data.get("fields"), path)
    source, models = data.get("source"), data.get("models")
    if not isinstance(source, dict) or not all(isinstance(v, str) for v in source.values()):
        raise ConfigError("must be an object of strings", source=path, field="source")
    if not isinstance(models, dict) or not models:
        raise ConfigError("must be a non-empty object", source=path, field="models")
    table = ModelTable(path=path, user=user, source=source, models=models, width=width)
    if deep:
        table.check()
    return table


class ModelData(_Record):
    """What promptc believes about models: the overlay over the active table."""

    __slots__ = ("overlay", "table", "shipped", "problems")
    overlay: Overlay
    table: ModelTable
    shipped: Mapping[str, Any]  # the shipped table's source, to compare with a user table
    problems: tuple[str, ...]  # rows of the user's table left out, and why

    def __init__(self, overlay: Overlay, table: ModelTable, shipped: Mapping[str, Any],
                 problems: tuple[str, ...] = ()) -> None:
        self._fields(overlay=overlay, table=table, shipped=shipped, problems=problems)

    @property
    def label(self) -> str:
        """How a fact from the table names its source: "LiteLLM 1.110.2 (shipped, 2026-…)"."""
        date = self.table.source.get("date")
        where = "user table" if self.table.user else "shipped"
        return f"{self.table.label} ({where}{', ' + date if date else ''})"


def compiled_overlay_path() -> Path:
    return Path(_DATA, "models.overlay.marshal")


COMPILED_OVERLAY_FORMAT = "promptc-overlay/1"


def _from_rule_args(args: Sequence[Any]) -> FamilyRule:
    (rid, title, patterns, compiled, facts, source, unless, providers, aliases, examples,
     wins) = args
    return FamilyRule(rid, title, patterns, compiled, facts, source, frozenset(unless),
                      frozenset(providers), aliases, examples, wins)


def _load_compiled(raw: bytes, text: str, path: str) -> Overlay | None:
    """The overlay from its compiled form, or None when that was not made from `text`."""
    try:
        payload = marshal.loads(raw)
        if payload[0] != COMPILED_OVERLAY_FORMAT or payload[1] != text:
            return None
        (_, _, defaults, defaults_source, local_providers, local, local_source, families,
         models, prefixes, aliases, provider_prefixes, first_party) = payload
        return Overlay(path, defaults, defaults_source, frozenset(local_providers), local,
                       local_source, tuple(map(_from_rule_args, families)),
                       tuple(map(_from_rule_args, models)), prefixes, aliases,
                       provider_prefixes, frozenset(first_party))
    except (ValueError, EOFError, TypeError, IndexError):
        return None


@functools.cache
def shipped_overlay() -> Overlay:
    """The overlay shipped with promptc (read once per process): its compiled form while that
    was made from this very TOML text, else the TOML itself, so an edit is never ignored."""
    path = overlay_path()
    text = read_text_file(path, ConfigError)
    try:
        raw = compiled_overlay_path().read_bytes()
    except OSError:
        raw = b""
    found = _load_compiled(raw, text, str(path)) if raw else None
    return found if found is not None else parse_overlay(parse_toml(text, path, ConfigError),
                                                         str(path))


@functools.cache
def model_data(user: bool = True) -> ModelData:
    """The overlay and the active table, read once per process on first use.

    The user's table (`promptc models update`) wins over the shipped one unless `user` is
    False (`--no-user`, `--builtins-only`); a malformed one is a ConfigError naming the file,
    and a row of it that does not decode is left out (`ModelData.problems` says which).
    (`model_data.cache_clear()` reads them again.)
    """
    overlay = shipped_overlay()
    shipped_path = shipped_table_path()
    user_path = user_table_path()
    problems: tuple[str, ...] = ()
    if user and user_path.is_file():
        table = parse_table(read_text_file(user_path, ConfigError, MAX_TABLE_FILE),
                            str(user_path), user=True)
        table, problems = table.without_bad_rows()
        shipped = _shipped_source(shipped_path)
    else:
        table = parse_table(read_text_file(shipped_path, ConfigError, MAX_TABLE_FILE),
                            str(shipped_path))
        shipped = table.source
    return ModelData(overlay, table, shipped, problems)


def _shipped_source(path: Path) -> Mapping[str, Any]:
    head = read_text_file(path, ConfigError, MAX_TABLE_FILE)
    source: Mapping[str, Any] = json.loads(head).get("source", {})
    return source


def model_table() -> dict[str, Any]:
    """The families, defaults and local servers as plain data (for lint's probes)."""
    overlay = model_data().overlay
    families = [(tuple(normalize_model_id(ex).split("-")), {"id": f.id, **f.facts})
                for f in overlay.families for ex in (f.examples or f.patterns[:1])]
    return {"defaults": dict(overlay.defaults), "local": dict(overlay.local),
            "families": families, "local_providers": overlay.local_providers}


def local_providers() -> frozenset[str]:
    """Provider ids of local servers (ollama, LM Studio, llama.cpp, …)."""
    return model_data().overlay.local_providers


# --- facts with their sources ------------------------------------------------------------------

class Fact(_Record):
    """One capability's value and where it came from.

    source: `client` (the ProviderInfo said so), `local` (a local server's defaults),
    `overlay` (a hand-kept row), `table` (the generated table: LiteLLM's map),
    `family` (the family's defaults), `default` (promptc's default for unknown models).
    """

    __slots__ = ("name", "value", "source", "ref", "note")
    name: str
    value: Any
    source: str
    ref: str    # the map entry, overlay row or family id behind the value
    note: str   # the human-readable source

    def __init__(self, name: str, value: Any, source: str, ref: str = "", note: str = ""
                 ) -> None:
        self._fields(name=name, value=value, source=source, ref=ref, note=note)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "value": self.value, "source": self.source,
                "ref": self.ref, "note": self.note}


class ModelFacts(_Record):
    """What promptc believes about one provider/model, fact by fact, with sources."""

    __slots__ = ("provider", "model", "normalized", "family", "family_source", "family_title",
                 "entry", "table", "facts")
    provider: str
    model: str
    normalized: str
    family: str
    family_source: str   # `client`, `rule` or `unknown`
    family_title: str
    entry: str | None    # the map entry id the table row came from, if any
    table: str           # e.g. "LiteLLM 1.110.2 (shipped, 2026-01-01)"
    facts: tuple[Fact, ...]

    def __init__(self, provider: str, model: str, normalized: str, family: str,
                 family_source: str, family_title: str, entry: str | None, table: str,
                 facts: tuple[Fact, ...]) -> None:
        self._fields(provider=provider, model=model, normalized=normalized, family=family,
                     family_source=family_source, family_title=family_title, entry=entry,
                     table=table, facts=facts)

    def value(self, name: str) -> Any:
        return next(f.value for f in self.facts if f.name == name)

    def to_dict(self) -> dict[str, Any]:
        return {"provider": self.provider, "model": self.model, "normalized": self.normalized,
                "family": {"id": self.family, "title": self.family_title,
                           "source": self.family_source},
                "entry": self.entry, "table": self.table,
                "capabilities": {f.name: {"value": f.value, "source": f.source, "ref": f.ref,
                                          "note": f.note} for f in self.facts}}


def _lookup(table: ModelTable, tokens: tuple[str, ...], provider: str
            ) -> tuple[list[Any] | None, list[Any] | None]:
    """(model row, provider row): the exact id, else the id without its release date."""
    base, extra = table.row("-".join(tokens), provider)
    if base is None:
        short = undated(tokens)
        if short != tokens:
            base, extra = table.row("-".join(short), provider)
    return base, extra


def _table_facts(facts: dict[str, _Layer], table: ModelTable, tokens: tuple[str, ...],
                 provider: str, overlay: Overlay, label: str) -> str | None:
    """Lay the table's facts for the model over `facts`; return the entry that gave them.

    With a row of its own, the provider's facts are that row's differences over the model's
    row and the rest of it: all of them are the provider's. A reseller's row (see
    `_reseller`) only fills what is still a default."""
    base, own = _lookup(table, tokens, provider)
    reseller = _reseller(base, own, provider, overlay)
    entry = None
    for row_values, weak in ((base, reseller is not None), (own, False)):
        if row_values is None:
            continue
        entry = own[0] if own is not None else row_values[0]
        note = label if not weak else (
            f"{label}; another provider's row ({reseller}), used only where no family or "
            "overlay row gives a value")
        for name, value in zip(TABLE_FIELDS, row_values[1:]):
            if value is not None and not (weak and facts[name][1] != "default"):
                facts[name] = (value, "table", entry, note)
    return entry


def _reseller(base: list[Any] | None, own: list[Any] | None, provider: str,
              overlay: Overlay) -> str | None:
    """The provider whose row stands in for the model when the request's provider has none of
    its own and the row is neither the maker's (a first-party API, or LiteLLM's unprefixed
    key) nor the request's provider's: a reseller whose API may differ (Replicate's
    gemini-3-pro has no function calling). None when the row is the model's own."""
    if base is None or own is not None or "/" not in base[0]:
        return None
    owner = overlay.provider_key(base[0].split("/", 1)[0])
    return None if owner == provider or owner in overlay.first_party else owner


# One capability's layer: (value, source, ref, note); Fact objects only for those who ask.
_Layer = tuple[Any, str, str, str]


def _layers(info: ProviderInfo, extra: Sequence[FamilyRule] = (), user: bool = True
            ) -> tuple[dict[str, _Layer], str, str, str, str | None, str]:
    """(facts, family, family source, family title, table entry, table label) for `info`;
    `extra`: families from plugins and folders, tried before the overlay's; `user`: whether
    the user's model table may be read."""
    data = model_data(user)
    overlay, table = data.overlay, data.table
    normalized = normalize_model_id(info.model)
    tokens = tuple(normalized.split("-")) if normalized else ()
    provider = overlay.provider_key(info.provider)
    facts: dict[str, _Layer] = {name: (value, "default", "defaults", overlay.defaults_source)
                                for name, value in overlay.defaults.items()}
    starts = overlay.starts(tokens)
    rule = (next((r for r in extra if r.matches(tokens, starts)), None) or
            overlay.family_for(tokens, starts)) if tokens else None
    named = (next((r for r in extra if r.id == info.family or info.family in r.aliases), None)
             or overlay.family_by_id(info.family)) if info.family else None
    fam = named or rule
    if fam is not None:
        note = f"{fam.title}: {fam.source}"
        for name, value in fam.facts.items():
            facts[name] = (value, "family", fam.id, note)
    rows = [r for r in overlay.models if r.matches(tokens, starts, provider)] if tokens else []
    for row in rows:
        if not row.wins:
            for name, value in row.facts.items():
                facts[name] = (value, "overlay", row.id, row.source)
    label = data.label
    entry = _table_facts(facts, table, tokens, provider, overlay, label) if tokens else None
    for row in rows:
        if row.wins:
            for name, value in row.facts.items():
                facts[name] = (value, "overlay", row.id, row.source)
    local = info.provider.strip().lower()
    if local in overlay.local_providers:
        for name, value in overlay.local.items():
            facts[name] = (value, "local", local, overlay.local_source)
    for name in CAPABILITIES:
        given = getattr(info, name)
        if given is not None:
            facts[name] = (given, "client", "", "given in the ProviderInfo")
    if info.family:
        return facts, info.family, "client", named.title if named else info.family, entry, label
    if rule is not None:
        return facts, rule.id, "rule", rule.title, entry, label
    return facts, "unknown", "unknown", "no family rule matches", entry, label


def model_facts(info: ProviderInfo, families: Sequence[FamilyRule] = (),
                user: bool = True) -> ModelFacts:
    """Every capability of `info` with its value and source, later layers winning:
    default → family → overlay rows (filling gaps) → the generated table (the model's row,
    then the provider's) → overlay rows marked `wins` → local server → the client.

    Pass the ProviderInfo as the client gave it (not `.resolved()`: every value of a resolved
    info looks given by the client).
    """
    facts, family, family_source, title, entry, label = _layers(info, families, user)
    return ModelFacts(provider=info.provider, model=info.model,
                      normalized=normalize_model_id(info.model), family=family,
                      family_source=family_source, family_title=title, entry=entry,
                      table=label, facts=tuple(Fact(name, *facts[name]) for name in CAPABILITIES))


def capability_sources(info: ProviderInfo, families: Sequence[FamilyRule] = (),
                       user: bool = True) -> dict[str, tuple[Any, str]]:
    """{capability: (value, "source ref — note")} for `explain`, in CAPABILITIES order, e.g.
    `"table claude-sonnet-4-5 — LiteLLM 1.110.2 (shipped, 2026-12-02)"`, `"client — given in
    the ProviderInfo"`, `"default — promptc's defaults …"`. Pass the ProviderInfo as the client
    gave it, not `.resolved()`."""
    out: dict[str, tuple[Any, str]] = {}
    for f in model_facts(info, families, user).facts:
        where = f.source + (f" {f.ref}" if f.ref and f.source != "default" else "")
        out[f.name] = (f.value, f"{where} — {f.note}" if f.note else where)
    return out


# --- ProviderInfo ------------------------------------------------------------------------------

_STR = typed(str, ContextError)
_INT = optional(int, ContextError)
_BOOL = optional(bool, ContextError)
_OPT_STR = optional(str, ContextError)


def _non_negative(_instance: Any, attribute: Any, value: int | None) -> None:
    _INT(_instance, attribute, value)
    if value is not None and value < 0:
        raise ContextError(f"must be ≥ 0, got {value}", field=attribute.name)


@attrs.frozen(cache_hash=True)
class ProviderInfo:
    """The provider/model a request is for. `None` capabilities are inferred by `resolved()`.

    Fields are typed when constructed (`native_tools=1` is refused), so two equal infos are
    the same request and an info can be a cache key as it is.
    """

    provider: str = attrs.field(default="", validator=_STR)
    model: str = attrs.field(default="", validator=_STR)
    context_window: int | None = attrs.field(default=None, validator=_non_negative)
    max_output: int | None = attrs.field(default=None, validator=_non_negative)
    native_tools: bool | None = attrs.field(default=None, validator=_BOOL)
    parallel_tools: bool | None = attrs.field(default=None, validator=_BOOL)
    images: bool | None = attrs.field(default=None, validator=_BOOL)
    prompt_caching: bool | None = attrs.field(default=None, validator=_BOOL)
    cache_min_tokens: int | None = attrs.field(default=None, validator=_non_negative)
    family: str | None = attrs.field(default=None, validator=_OPT_STR)
    encoding: str | None = attrs.field(default=None, validator=_OPT_STR)
    estimated: bool | None = attrs.field(default=None, validator=_BOOL)
    reasoning: bool | None = attrs.field(default=None, validator=_BOOL)
    responses_only: bool | None = attrs.field(default=None, validator=_BOOL)
    knowledge_cutoff: str | None = attrs.field(default=None, validator=_OPT_STR)

    @property
    def normalized_model(self) -> str:
        return normalize_model_id(self.model)

    @property
    def is_local(self) -> bool:
        return self.provider.strip().lower() in local_providers()

    def resolved(self) -> ProviderInfo:
        """Return a copy with every unknown capability filled from the model data.

        Not cached here: a Compiler resolves each provider once and keeps the result.
        """
        return resolve_provider(self)

    @classmethod
    def from_dict(cls, data: Any, *, source: str | None = None) -> ProviderInfo:
        info: ProviderInfo = build_record(cls, data, source=source, path="provider",
                                          error=ContextError, aliases={"id": "provider"})
        return info


def resolve_provider(info: ProviderInfo, families: Sequence[FamilyRule] = (),
                     user: bool = True) -> ProviderInfo:
    """`info` with every unknown capability filled from the model data, `families` (from
    plugins and folders) tried before the built-in ones, the user's model table only when
    `user`."""
    if info.family is not None and None not in (getattr(info, name) for name in CAPABILITIES):
        return info
    facts, family, *_ = _layers(info, families, user)
    return attrs.evolve(info, family=family, **{name: facts[name][0] for name in CAPABILITIES})


def encoding_for(provider: ProviderInfo) -> tuple[str, bool]:
    """(encoding name, estimated?) for a provider; unknown families count as estimated o200k."""
    info = provider.resolved()
    name = info.encoding if info.encoding in TOKEN_ENCODINGS else "o200k_base"
    return name, bool(info.estimated) or info.encoding not in TOKEN_ENCODINGS
