"""Lone surrogates: code points (U+D800–U+DFFF) a Python string can hold and no UTF-8 writer
can encode.

JSON's `"\\ud800"` escape and a command line's undecodable bytes both make one. Such text
passes every type check and fails only later, far from where it came in (an SDK's request
encoder refuses every request that carries it), so promptc refuses it where data enters: a
context file (`files.py` finds the escape in the JSON text), and plain data and records
(`first_surrogate` below names the field).
"""

from __future__ import annotations

import marshal
import re
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["surrogate_in", "first_surrogate", "surrogate_problem"]

_SURROGATE = re.compile("[\ud800-\udfff]")


def surrogate_in(text: str) -> int | None:
    """The first surrogate code point in `text`, or None (ASCII text is answered in O(1))."""
    if text.isascii():
        return None
    found = _SURROGATE.search(text)
    return ord(found.group()) if found is not None else None


def surrogate_problem(code: int) -> str:
    """The error message for a string holding `code`."""
    return (f"holds \\u{code:04x}, a lone surrogate: not a character, and no UTF-8 text can "
            "carry it")


def _join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def first_surrogate(data: Any, path: str = "", written: Sequence[bytes] | None = None
                    ) -> tuple[str, int] | None:
    """(path, code) of the first string in plain data (mappings, lists, tuples; keys too)
    that holds a surrogate, or None. Iterative: any depth that loaded can be checked.

    Plain data is first written by marshal (one pass in C), which writes a surrogate as the
    byte 0xED followed by its other two bytes; data without that byte is walked no further.
    `written`: the data's marshal bytes, whole or in pieces, when the caller made them
    already (a memo's key: writing a request's data costs about 20 µs)."""
    try:
        if not any(b"\xed" in b for b in (
                (marshal.dumps(data),) if written is None else written)):
            return None
    except ValueError:  # not marshal's kind of data (a record, a date): walked
        pass
    stack: list[tuple[str, Any]] = [(path, data)]
    while stack:
        where, node = stack.pop()
        if type(node) is str:
            code = surrogate_in(node)
            if code is not None:
                return where, code
        elif isinstance(node, Mapping):
            for key, value in reversed(list(node.items())):
                if type(key) is str:
                    code = surrogate_in(key)
                    if code is not None:  # the key itself, written so it can be printed
                        return _join(where, key.encode("utf-8", "backslashreplace")
                                     .decode("utf-8")), code
                stack.append((_join(where, key if isinstance(key, str) else str(key)), value))
        elif type(node) is list or type(node) is tuple:
            stack.extend((_join(where, i), item) for i, item in reversed(list(enumerate(node))))
    return None
