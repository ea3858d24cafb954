"""Argument values as a model writes them, turned into typed data, or into a problem.

Two sources: a native call's JSON text, and a text call's parameter value (plain text for a
string, digits for a number, JSON for an array or object). Whatever the input, the result is a
value or a message; never an exception, never a value that cannot be written back as JSON:

* numbers: an integer of more than `MAX_DIGITS` digits, and a number too large for a float
  (`1e999`), `NaN` and `Infinity`, are refused by name;
* nesting deeper than `MAX_NESTING` levels is refused (the JSON parser's own recursion is caught
  and reported the same way);
* a JSON object that gives one key twice comes back as a `Repeats` (the last value kept, as
  JSON parsers do, and the repeated keys named), which the checker reports wherever it sits.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from .._model.json_schema import nesting_depth

__all__ = ["MAX_DIGITS", "MAX_NESTING", "Decoded", "Repeats", "load_json", "load_json_prefix",
           "repeated_keys", "pairs", "from_text", "type_problem", "integral", "describe_type",
           "TYPE_CHECKS"]

MAX_DIGITS = 4300  # Python's own limit for converting text to int (sys.int_info)
MAX_NESTING = 64


class _Refused(ValueError):
    """Raised from inside the JSON parser's hooks: the message says what was refused."""


@attrs.frozen
class Decoded:
    """A JSON text decoded: the value, or the problem (then `value` is None)."""

    value: Any
    problem: str | None = None


class Repeats(dict[str, Any]):
    """A JSON object that gave some keys more than once: the last value of each is kept (what
    a JSON parser does) and `twice` names them, so the checker can report each."""

    __slots__ = ("twice",)

    def __init__(self, items: Iterable[tuple[str, Any]] = (), twice: tuple[str, ...] = ()
                 ) -> None:
        super().__init__(items)
        self.twice = twice


def _int(text: str) -> int:
    if len(text) - (text[0] == "-") > MAX_DIGITS:
        raise _Refused(f"an integer with more than {MAX_DIGITS:,} digits")
    return int(text)


def _float(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise _Refused(f"a number too large to represent ({text[:20]}…)" if len(text) > 20
                       else f"a number too large to represent ({text})")
    return number


def _constant(name: str) -> Any:
    raise _Refused(f"{name} (not a JSON number)")


def _pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """The object hook: plain dicts, and a `Repeats` for one that gives a key twice."""
    out = dict(pairs)
    if len(out) == len(pairs):
        return out
    seen: set[str] = set()
    twice: list[str] = []
    for key, _value in pairs:
        if key in seen and key not in twice:
            twice.append(key)
        seen.add(key)
    return Repeats(pairs, tuple(twice))


KeyPath = tuple[str | int, ...]


def repeated_keys(value: Any) -> list[tuple[KeyPath, str]]:
    """Every key given twice inside `value`: (the path to its object, the key), in order."""
    out: list[tuple[KeyPath, str]] = []
    stack: list[tuple[Any, KeyPath]] = [(value, ())]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            if isinstance(node, Repeats):
                out.extend((path, key) for key in node.twice)
            stack.extend((v, (*path, k)) for k, v in reversed(node.items()))
        elif isinstance(node, list):
            stack.extend((v, (*path, i)) for i, v in reversed(list(enumerate(node))))
    return out


def pairs(arguments: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """A call's arguments as (parameter, value) in order, a key given twice given twice (so
    the checker reports it like a repeated parameter tag)."""
    given = list(arguments.items())
    if isinstance(arguments, Repeats):
        given.extend((key, arguments[key]) for key in arguments.twice)
    return given


def load_json(text: str) -> Decoded:
    """`text` as JSON, with the refusals of the module docstring."""
    decoded, _end = _decode(text, None)
    return decoded


def load_json_prefix(text: str, pos: int) -> tuple[Decoded, int]:
    """The JSON value that starts at `pos` (after white space) and where it ends; on failure,
    where the parser stopped (a caller never needs to read that stretch again)."""
    return _decode(text, pos)


def _decode(text: str, pos: int | None) -> tuple[Decoded, int]:
    decoder = json.JSONDecoder(object_pairs_hook=_pairs_hook, parse_int=_int, parse_float=_float,
                               parse_constant=_constant)
    end = len(text)
    try:
        if pos is None:
            value = decoder.decode(text)
        else:
            value, end = decoder.raw_decode(text, pos)
    except _Refused as exc:
        return Decoded(None, f"holds {exc}"), end
    except RecursionError:
        return Decoded(None, f"nests more than {MAX_NESTING} levels deep"), end
    except json.JSONDecodeError as exc:
        return Decoded(None, f"is not valid JSON ({_short(exc.msg)} at character "
                             f"{exc.pos - (pos or 0)})"), min(len(text),
                                                             max(exc.pos, (pos or 0) + 1))
    if nesting_depth(value, MAX_NESTING) > MAX_NESTING:
        return Decoded(None, f"nests more than {MAX_NESTING} levels deep"), end
    return Decoded(value), end


def _short(message: str, most: int = 80) -> str:
    return message if len(message) <= most else message[:most - 1] + "…"


# --- typed values -------------------------------------------------------------------------------

TYPE_CHECKS = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}

_ARTICLES = {"integer": "an integer", "array": "an array", "object": "an object"}
_INT = re.compile(r"[+-]?[0-9]+")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")


def describe_type(kind: str) -> str:
    return _ARTICLES.get(kind, f"a {kind}")


def is_of(kind: str, value: Any) -> bool:
    """`value` is a JSON value of `kind` (an integral float counts as an integer, as JSON
    Schema counts 3.0 as one); an unknown kind takes anything."""
    if kind == "integer" and isinstance(value, float):
        return value.is_integer()
    check = TYPE_CHECKS.get(kind)
    return check is None or check(value)


def type_problem(kind: str, items: str | None, value: Any) -> str | None:
    """Why `value` is not of `kind` (arrays: with items of `items`), or None when it is."""
    if not is_of(kind, value):
        return f"must be {describe_type(kind)}"
    if kind == "array" and items is not None:
        wrong = next((i for i, item in enumerate(value) if not is_of(items, item)), None)
        if wrong is not None:
            return f"must be an array of {items}s (item {wrong} is not)"
    return None


def integral(kind: str, value: Any) -> Any:
    """An integral float given for an integer, as an int (what the tool is promised)."""
    if kind == "integer" and isinstance(value, float):
        return int(value)
    return value


def from_text(kind: str, items: str | None, text: str) -> tuple[Any, str | None]:
    """A text call's parameter value (layout already removed) as `kind`: (value, None) or
    (None, why not)."""
    if kind == "string":
        return text, None
    stripped = text.strip()
    if kind == "integer":
        return _text_int(stripped)
    if kind == "number":
        return _text_number(stripped)
    if kind == "boolean":
        if stripped.lower() in ("true", "false"):
            return stripped.lower() == "true", None
        return None, f"must be true or false, got {_quote(stripped)}"
    decoded = load_json(stripped)
    if decoded.problem is not None:
        return None, f"must be {describe_type(kind)} written as JSON; the value {decoded.problem}"
    why = type_problem(kind, items, decoded.value)
    if why is not None:
        return None, why + " written as JSON"
    return decoded.value, None


def _text_int(text: str) -> tuple[Any, str | None]:
    if _INT.fullmatch(text):
        if len(text.lstrip("+-")) > MAX_DIGITS:
            return None, f"must be an integer of at most {MAX_DIGITS:,} digits"
        return int(text), None
    return None, f"must be an integer, got {_quote(text)}"


def _text_number(text: str) -> tuple[Any, str | None]:
    if _NUMBER.fullmatch(text):
        if "." not in text and "e" not in text.lower():
            return _text_int(text)
        number = float(text)
        if math.isfinite(number):
            return number, None
        return None, "must be a finite number (this one is too large to represent)"
    return None, f"must be a number, got {_quote(text)}"


def _quote(text: str, most: int = 40) -> str:
    return repr(text if len(text) <= most else text[:most] + "…")
