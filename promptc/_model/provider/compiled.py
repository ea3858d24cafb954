"""The overlay's compiled form (`_data/models.overlay.marshal`), written and read here.

Every process reads the overlay at start-up: tomllib and building the rules from plain data
cost a millisecond or more on a cold interpreter; marshal.loads and a few constructors, a
fraction of that. The compiled file carries the TOML text it was made from, and is used only
while that text is the overlay's: an edited overlay is read from its TOML until
`scripts/update_models.py --overlay-only` compiles it again. (Marshal format 2: no
back-references, sets as sorted tuples, so the same TOML gives the same bytes.)
"""

from __future__ import annotations

import functools
import marshal
from collections.abc import Sequence
from typing import Any

from ..._base.errors import ConfigError
from ..._base.files import parse_toml, read_text_file
from .overlay import Overlay, parse_overlay
from .paths import compiled_overlay_path, overlay_path
from .patterns import PatternToken, TokenKind
from .rules import FamilyRule

__all__ = ["COMPILED_OVERLAY_FORMAT", "compile_overlay", "load_compiled", "shipped_overlay"]

COMPILED_OVERLAY_FORMAT = "promptc-overlay/1"

# A pattern token's form in the file: ("lit", word) | ("word",) | ("ver", prefix, suffix,
# low, high).
_TAGS = {TokenKind.LITERAL: "lit", TokenKind.WORD: "word", TokenKind.VERSION: "ver"}


# --- writing -----------------------------------------------------------------------------------

def compile_overlay(toml_text: str, path: str) -> bytes:
    """The checked overlay as marshal data, with the TOML text it came from."""
    o = parse_overlay(parse_toml(toml_text, path, ConfigError), path)
    payload = (COMPILED_OVERLAY_FORMAT, toml_text, dict(o.defaults), o.defaults_source,
               tuple(sorted(o.local_providers)), dict(o.local), o.local_source,
               tuple(map(_rule_args, o.families)), tuple(map(_rule_args, o.models)),
               o.prefixes, dict(o.provider_aliases), o.provider_prefixes,
               tuple(sorted(o.first_party)))
    return marshal.dumps(payload, 2)


def _rule_args(rule: FamilyRule) -> tuple[Any, ...]:
    return (rule.id, rule.title, rule.patterns,
            tuple(tuple(map(_plain_token, p)) for p in rule.compiled), dict(rule.facts),
            rule.source, tuple(sorted(rule.unless)), tuple(sorted(rule.providers)),
            rule.aliases, rule.examples, rule.wins)


def _plain_token(token: PatternToken) -> tuple[Any, ...]:
    if token.kind is TokenKind.LITERAL:
        return (_TAGS[token.kind], token.text)
    if token.kind is TokenKind.WORD:
        return (_TAGS[token.kind],)
    return (_TAGS[token.kind], token.prefix, token.suffix, token.low, token.high)


# --- reading -----------------------------------------------------------------------------------

def load_compiled(raw: bytes, text: str, path: str) -> Overlay | None:
    """The overlay from its compiled form, or None when that was not made from `text`."""
    try:
        payload = marshal.loads(raw)
        if payload[0] != COMPILED_OVERLAY_FORMAT or payload[1] != text:
            return None
        (_, _, defaults, defaults_source, local_providers, local, local_source, families,
         models, prefixes, aliases, provider_prefixes, first_party) = payload
        return Overlay(path, defaults, defaults_source, frozenset(local_providers), local,
                       local_source, tuple(map(_rule_from_args, families)),
                       tuple(map(_rule_from_args, models)), prefixes, aliases,
                       provider_prefixes, frozenset(first_party))
    except (ValueError, EOFError, TypeError, IndexError, KeyError):
        return None


def _rule_from_args(args: Sequence[Any]) -> FamilyRule:
    (rid, title, patterns, compiled, facts, source, unless, providers, aliases, examples,
     wins) = args
    return FamilyRule(rid, title, patterns,
                      tuple(tuple(map(_token_from_plain, p)) for p in compiled), facts,
                      source, frozenset(unless), frozenset(providers), aliases, examples, wins)


def _token_from_plain(plain: Sequence[Any]) -> PatternToken:
    tag = plain[0]
    if tag == "lit":
        return PatternToken(TokenKind.LITERAL, text=plain[1])
    if tag == "word":
        return PatternToken(TokenKind.WORD)
    if tag == "ver":
        return PatternToken(TokenKind.VERSION, prefix=plain[1], suffix=plain[2], low=plain[3],
                            high=plain[4])
    raise ValueError(f"unknown pattern token {tag!r}")


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
    found = load_compiled(raw, text, str(path)) if raw else None
    return found if found is not None else parse_overlay(parse_toml(text, path, ConfigError),
                                                         str(path))
