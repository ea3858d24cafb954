"""Family patterns: a small language over normalized model ids.

The model data names a family by patterns such as `claude-*-{4..}`, `qwen{3..}` or
`glm-{4.5..}v`. A pattern is split at `-` into pieces, and each piece is one token:

    pattern:  piece ('-' piece)*
    piece:    '*'                              WORD: one word that is not a number
            | [a-z0-9]+                        LITERAL: exactly this token
            | [a-z]* '{' range '}' [a-z]*      VERSION: a version in the range, maybe glued
    range:    version? '..' version?           A ≤ v < B, either bound optional
    version:  digit{1,2} ('.' digit{1,2})?

On an id a version is a one-digit major and an optional minor token (`4`, `4-5`), glued to the
piece's letters if it has any (`k{2..}` matches `k2`, `{4.5..}v` matches `4-5v`). `tokenize`
finds the pieces, `compile_pattern` parses them into `PatternToken`s, and `pattern_matches`
runs the result against an id's tokens.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator, Sequence
from typing import NamedTuple

import attrs

from ..._base.errors import ConfigError
from .ids import digits

__all__ = ["TokenKind", "Lexeme", "PatternToken", "Pattern", "Version", "tokenize",
           "compile_pattern", "pattern_matches", "match_token"]

_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")
_ALNUM = _LOWER | frozenset("0123456789")

Version = tuple[int, int]


class TokenKind(enum.Enum):
    LITERAL = "a literal word"
    WORD = "any word"
    VERSION = "a version range"


class Lexeme(NamedTuple):
    """One piece of a pattern's text and what kind of token its shape makes it."""

    kind: TokenKind
    text: str


@attrs.frozen
class PatternToken:
    """One parsed pattern token: a literal word, any word, or a version range."""

    kind: TokenKind
    text: str = ""                 # LITERAL: the word
    prefix: str = ""               # VERSION: letters glued before the number
    suffix: str = ""               # VERSION: letters glued after it
    low: Version | None = None     # VERSION: the lowest version matched
    high: Version | None = None    # VERSION: the first version not matched

    def in_range(self, version: Version) -> bool:
        return (self.low is None or version >= self.low) and \
            (self.high is None or version < self.high)


Pattern = tuple[PatternToken, ...]

_ANY_WORD = PatternToken(TokenKind.WORD)


# --- tokenizer and parser ----------------------------------------------------------------------

def tokenize(pattern: str) -> Iterator[Lexeme]:
    """The pattern's pieces, each with the kind its shape says (the parser checks the rest)."""
    for text in pattern.strip().split("-"):
        yield Lexeme(_kind_of(text), text)


def _kind_of(text: str) -> TokenKind:
    if text == "*":
        return TokenKind.WORD
    return TokenKind.VERSION if "{" in text else TokenKind.LITERAL


def compile_pattern(pattern: str, source: str, field: str) -> Pattern:
    """Parse a family pattern such as `claude-*-{4..}`, `qwen{3..}`, `gemini-{2.5..3}`;
    a bad piece is a ConfigError naming the file (`source`) and the field."""
    return tuple(_PARSERS[lexeme.kind](lexeme.text, pattern, source, field)
                 for lexeme in tokenize(pattern))


def _parse_word(_text: str, _pattern: str, _source: str, _field: str) -> PatternToken:
    return _ANY_WORD


def _parse_literal(text: str, pattern: str, source: str, field: str) -> PatternToken:
    if not text or not _ALNUM.issuperset(text):
        raise ConfigError(f"bad pattern token {text!r} in {pattern!r}: write patterns "
                          "normalized (lowercase, dash-separated, no dots)", source=source,
                          field=field)
    return PatternToken(TokenKind.LITERAL, text=text)


def _parse_version(text: str, pattern: str, source: str, field: str) -> PatternToken:
    error = ConfigError(f"bad pattern token {text!r} in {pattern!r}: write a version range "
                        "as {A..B}, {A..} or {..B}", source=source, field=field)
    prefix, _, rest = text.partition("{")
    inner, _, suffix = rest.partition("}")
    first, dots, last = inner.partition("..")
    if not dots or not _LOWER.issuperset(prefix + suffix):
        raise error
    return PatternToken(TokenKind.VERSION, prefix=prefix, suffix=suffix,
                        low=_bound(first, error), high=_bound(last, error))


def _bound(text: str, error: ConfigError) -> Version | None:
    """A range's bound: None when left out; `error` when it is not a version."""
    if not text:
        return None
    version = _version(text)
    if version is None:
        raise error
    return version


def _version(text: str) -> Version | None:
    """`4` → (4, 0), `2.5` → (2, 5); None when it is not such a number."""
    major, dot, minor = text.partition(".")
    if not digits(major, 2) or (dot and not digits(minor, 2)):
        return None
    return int(major), int(minor or 0)


_PARSERS: dict[TokenKind, Callable[[str, str, str, str], PatternToken]] = {
    TokenKind.LITERAL: _parse_literal, TokenKind.WORD: _parse_word,
    TokenKind.VERSION: _parse_version}


# --- matching ----------------------------------------------------------------------------------

def pattern_matches(pattern: Pattern, tokens: Sequence[str], start: int = 0) -> bool:
    """True when the pattern matches a token prefix of tokens[start:]."""
    i = start
    for token in pattern:
        used = match_token(token, tokens, i)
        if not used:
            return False
        i += used
    return True


def match_token(token: PatternToken, tokens: Sequence[str], i: int) -> int:
    """How many of the id's tokens from tokens[i] the pattern token matches (0: it does not)."""
    return _MATCHERS[token.kind](token, tokens, i)


def _match_literal(token: PatternToken, tokens: Sequence[str], i: int) -> int:
    return int(i < len(tokens) and tokens[i] == token.text)


def _match_word(_token: PatternToken, tokens: Sequence[str], i: int) -> int:
    return int(i < len(tokens) and bool(tokens[i]) and not tokens[i][0].isdigit())


def _match_version(token: PatternToken, tokens: Sequence[str], i: int) -> int:
    found = read_version(tokens, i, token.prefix, token.suffix)
    if found is None or not token.in_range(found[0]):
        return 0
    return found[1]


def read_version(tokens: Sequence[str], i: int, prefix: str, suffix: str
                 ) -> tuple[Version, int] | None:
    """(version, tokens used) of a version at tokens[i] glued to `prefix`/`suffix`, or None."""
    if i >= len(tokens) or not tokens[i].startswith(prefix):
        return None
    rest = tokens[i][len(prefix):]
    if suffix:
        return _version_before(suffix, tokens, i, rest)
    if not digits(rest, 1):
        return None
    if i + 1 < len(tokens) and digits(tokens[i + 1], 2):
        return (int(rest), int(tokens[i + 1])), 2
    return (int(rest), 0), 1


def _version_before(suffix: str, tokens: Sequence[str], i: int, rest: str
                    ) -> tuple[Version, int] | None:
    """A version whose last token ends in `suffix`: `4v` (one token) or `4-5v` (two)."""
    if rest.endswith(suffix) and digits(rest[:-len(suffix)], 1):
        return (int(rest[:-len(suffix)]), 0), 1
    if not digits(rest, 1) or i + 1 >= len(tokens):
        return None
    nxt = tokens[i + 1]
    if nxt.endswith(suffix) and digits(nxt[:-len(suffix)], 2):
        return (int(rest), int(nxt[:-len(suffix)])), 2
    return None


_MATCHERS: dict[TokenKind, Callable[[PatternToken, Sequence[str], int], int]] = {
    TokenKind.LITERAL: _match_literal, TokenKind.WORD: _match_word,
    TokenKind.VERSION: _match_version}
