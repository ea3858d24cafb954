"""Runtime input values: checked against their declaration, read by it, made render values.

A value that breaks its declaration (type, options, pattern, bounds, length, a line break in a
one-line string, a required value missing or empty) is refused in every mode: a prompt built
without it, or with the default in its place, would be wrong. Text given for a number or a
boolean (`--set N=7`) is read by the declaration, never by its look, so a string stays a string.

Every value a client sends is outside text (DESIGN rule 11): a string, and every string inside a
list or an object, is neutralised as a quoted body (`outside_text`) unless its input is declared
`trusted`. A list or object input renders as itself in sections (mustache iterates its items and
reads its fields) and, inserted whole (`{{OBJ}}`), as compact JSON in the order given.
"""

from __future__ import annotations

import datetime
import json
import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Protocol

from .._base.frozen import compact_json, thaw
from .._base.record_builder import describe
from .._base.suggest import did_you_mean
from .._text.fence import OWN_TAGS, body
from .._text.template import Flag, Structured
from .diagnostics import Reporter
from .input_schema import value_problems
from .json_schema import nesting_depth

__all__ = ["check_value", "value_problem", "read_value", "resolve_inputs", "render_value",
           "outside_text", "JsonList", "JsonObject", "MAX_NESTING",
           "REFUSED", "shown"]

MAX_NESTING = 32  # a list or object value nested deeper is refused (no template reads so deep)
PATTERN_TEXT = 4096  # the longest text a pattern runs on when the input sets no max_length
REFUSED = frozenset({"input-missing", "input-invalid"})  # refused in every mode
_LINE_BREAK = re.compile("[\n\r\x0b\x0c\x85\u2028\u2029]")


class InputRules(Protocol):
    """What the value rules read of an InputSpec, declared here so as not to import inputs.py."""

    @property
    def name(self) -> str: ...
    @property
    def type(self) -> str: ...
    @property
    def required(self) -> bool: ...
    @property
    def default(self) -> Any: ...
    @property
    def options(self) -> tuple[str, ...]: ...
    @property
    def schema(self) -> Any: ...
    @property
    def pattern(self) -> str: ...
    @property
    def max_length(self) -> int | None: ...
    @property
    def multiline(self) -> bool: ...
    @property
    def allow_empty(self) -> bool: ...
    @property
    def trusted(self) -> bool: ...
    @property
    def min(self) -> float | None: ...
    @property
    def max(self) -> float | None: ...
    @property
    def max_items(self) -> int | None: ...


def outside_text(text: str, tags: frozenset[str] = OWN_TAGS) -> str:
    """Text a client sent, as the prompt quotes it: it can open or close none of the loaded
    packs' elements (`tags`: the compiler's own) and start none of the prompt's headings or
    separator lines (promptc/_text/fence.py). The one place runtime values are neutralised."""
    return body(text, tags=tags)


def shown(value: Any) -> str:
    """A value as a message quotes it: a scalar's short repr, a container's kind (the repr of
    a list nested thousands deep would raise RecursionError, and a long one drowns the
    message)."""
    if isinstance(value, (list, tuple, Mapping)):
        return describe(value)
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


# --- types ------------------------------------------------------------------------------------

def _string_problem(_options: Sequence[str], value: Any) -> str | None:
    return None if isinstance(value, str) else f"must be a string, got {shown(value)}"


def _number_problem(_options: Sequence[str], value: Any) -> str | None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and \
        (not isinstance(value, float) or math.isfinite(value))
    return None if ok else f"must be a number, got {shown(value)}"


def _boolean_problem(_options: Sequence[str], value: Any) -> str | None:
    return None if isinstance(value, bool) else f"must be true or false, got {shown(value)}"


def _select_problem(options: Sequence[str], value: Any) -> str | None:
    if isinstance(value, str) and value in options:
        return None
    return f"must be one of {list(options)}, got {shown(value)}" + (
        did_you_mean(value, options) if isinstance(value, str) else "")


def _date_problem(_options: Sequence[str], value: Any) -> str | None:
    if isinstance(value, str):
        try:
            datetime.date.fromisoformat(value)
            if len(value) == 10:
                return None
        except ValueError:
            pass
    return f"must be an ISO date (YYYY-MM-DD), got {shown(value)}"


def _list_problem(_options: Sequence[str], value: Any) -> str | None:
    if isinstance(value, (list, tuple)):
        return None
    hint = " (on the command line: --set-json NAME='[…]')" if isinstance(value, str) else ""
    return f"must be a list, got {shown(value)}{hint}"


def _object_problem(_options: Sequence[str], value: Any) -> str | None:
    if isinstance(value, Mapping):
        return None
    hint = " (on the command line: --set-json NAME='{…}')" if isinstance(value, str) else ""
    return f"must be a table/object, got {shown(value)}{hint}"


# input type -> what is wrong with a value of the wrong kind for it (None: nothing)
_VALUE_CHECKS: dict[str, Callable[[Sequence[str], Any], str | None]] = {
    "string": _string_problem, "number": _number_problem, "boolean": _boolean_problem,
    "select": _select_problem, "date": _date_problem, "list": _list_problem,
    "object": _object_problem,
}


def check_value(tp: str, options: Sequence[str], value: Any) -> str | None:
    """A problem with the kind of `value` for an input of type `tp`, or None when it is fine."""
    check = _VALUE_CHECKS.get(tp)
    if check is None:
        return f"has unknown type {tp!r}"
    return check(options, value)


def read_value(tp: str, value: Any) -> Any:
    """Text given for a number or boolean input, read by the declaration ("7" is 7, "true" is
    true); anything else as it is (a string input keeps "7203" a string)."""
    if not isinstance(value, str):
        return value
    if tp == "number":
        try:
            number = json.loads(value)
        except ValueError:
            return value
        return number if isinstance(number, (int, float)) and not isinstance(number, bool) \
            else value
    if tp == "boolean" and value in ("true", "false"):
        return value == "true"
    return value


# --- the declaration's other rules -------------------------------------------------------------

def _string_rules(spec: InputRules, value: str) -> str | None:
    if not spec.multiline and _LINE_BREAK.search(value):
        return "must be one line (declare `multiline = true` to allow line breaks)"
    if spec.max_length is not None and len(value) > spec.max_length:
        return f"is {len(value)} characters long; at most {spec.max_length} are allowed"
    if spec.pattern and value:
        if len(value) > PATTERN_TEXT:
            return (f"is {len(value)} characters long, too long to check against its pattern "
                    f"(at most {PATTERN_TEXT}; declare a max_length)")
        if re.fullmatch(spec.pattern, value) is None:
            return f"does not match the pattern {spec.pattern!r}, got {shown(value)}"
    return None


def _number_rules(spec: InputRules, value: float) -> str | None:
    if spec.min is not None and value < spec.min:
        return f"must be at least {spec.min}, got {value}"
    if spec.max is not None and value > spec.max:
        return f"must be at most {spec.max}, got {value}"
    return None


def _structure_rules(spec: InputRules, value: Any) -> str | None:
    if nesting_depth(value, MAX_NESTING) > MAX_NESTING:
        return f"nests more than {MAX_NESTING} levels deep"
    if spec.type == "list" and spec.max_items is not None and len(value) > spec.max_items:
        return f"has {len(value)} items; at most {spec.max_items} are allowed"
    if spec.schema is not None:
        problems = value_problems(spec.name, value, spec.schema, spec.type == "list")
        if problems:
            return "does not fit its schema: " + "; ".join(problems)
    return None


def value_problem(spec: InputRules, value: Any) -> str | None:
    """What is wrong with `value` (already read by `read_value`) for `spec`, or None."""
    problem = check_value(spec.type, spec.options, value)
    if problem is not None:
        return problem
    if spec.type == "string":
        return _string_rules(spec, value)
    if spec.type == "number":
        return _number_rules(spec, value)
    if spec.type in ("list", "object"):
        return _structure_rules(spec, value)
    return None


# --- render values ---------------------------------------------------------------------------

class _Json(Structured):
    """A structured value's identity and whole-value text, shared by lists and objects: equal
    exactly when their JSON (typed: `1`, `1.0` and `true` differ) and trust are."""

    raw: Any  # the plain value as the client gave it
    trusted: bool
    tags: frozenset[str]  # the elements its text may not open or close
    _json: str | None
    _text: str | None

    @property
    def json(self) -> str:
        if self._json is None:
            self._json = compact_json(self.raw)
        return self._json

    @property
    def text(self) -> str:
        """What `{{NAME}}` writes: the JSON, neutralised unless trusted (made once)."""
        if self._text is None:
            self._text = self.json if self.trusted else outside_text(self.json, self.tags)
        return self._text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Json) and type(other) is type(self) and \
            other.trusted == self.trusted and other.json == self.json

    def __hash__(self) -> int:
        return hash((self.__class__.__name__, self.trusted, self.json))


class JsonObject(_Json, Mapping[str, Any]):
    """An object input (or an object inside a structured input): its fields for sections."""

    def __init__(self, data: dict[str, Any], raw: Any, trusted: bool,
                 tags: frozenset[str] = OWN_TAGS) -> None:
        self._data = data
        self.raw = raw
        self.trusted = trusted
        self.tags = tags
        self._json = self._text = None

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return f"JsonObject({self.json})"

    __eq__ = _Json.__eq__
    __hash__ = _Json.__hash__


class JsonList(tuple, _Json):  # type: ignore[type-arg]
    """A list input (or a list inside a structured input): its items for sections."""

    raw: Any
    trusted: bool
    tags: frozenset[str]
    _json: str | None
    _text: str | None

    def __new__(cls, items: Sequence[Any], raw: Any, trusted: bool,
                tags: frozenset[str] = OWN_TAGS) -> JsonList:
        made = super().__new__(cls, items)
        made.raw = raw
        made.trusted = trusted
        made.tags = tags
        made._json = made._text = None
        return made

    def __repr__(self) -> str:
        return f"JsonList({self.json})"

    __eq__ = _Json.__eq__
    __hash__ = _Json.__hash__


def _structured(raw: Any, trusted: bool, tags: frozenset[str]) -> Any:
    """A plain JSON value as render values: strings neutralised (unless trusted), lists and
    objects as JsonList / JsonObject (depth already bounded by the check)."""
    if isinstance(raw, str):
        return raw if trusted else outside_text(raw, tags)
    if isinstance(raw, list):
        return JsonList([_structured(item, trusted, tags) for item in raw], raw, trusted, tags)
    if isinstance(raw, dict):
        return JsonObject({k: _structured(v, trusted, tags) for k, v in raw.items()}, raw,
                          trusted, tags)
    return raw


def render_value(spec: InputRules, value: Any, trusted: bool | None = None,
                 tags: frozenset[str] = OWN_TAGS) -> Any:
    """What a template sees for a checked value: text (strings neutralised unless trusted,
    against the elements `tags`), a switch for a boolean, a list or object of render
    values."""
    trust = spec.trusted if trusted is None else trusted
    if spec.type in ("list", "object"):
        return _structured(thaw(value), trust, tags)
    if isinstance(value, bool):
        return Flag("true" if value else "false")
    if isinstance(value, (int, float)):
        return str(value)
    if spec.type == "string" and not trust:
        return outside_text(value, tags)
    return value


# --- a request's values ------------------------------------------------------------------------

def _missing(spec: InputRules, undeclared: Sequence[str]) -> str:
    hint = did_you_mean(spec.name, undeclared)
    if hint:
        hint = hint.replace(" (did you mean", " (a value was given for", 1)
    return f"required input {spec.name!r} has no value{hint}"


def _declared_value(spec: InputRules, runtime: Mapping[str, Any], undeclared: Sequence[str],
                    report: Reporter, tags: frozenset[str]) -> Any:
    """A declared input's render value: the runtime value if valid, else its default (None:
    none); a missing required value or a broken declaration is reported as refused."""
    value = runtime.get(spec.name)
    if value is None:  # absent, or null: not given
        if spec.default is None:
            if spec.required:
                report("error", "input-missing", _missing(spec, undeclared), spec.name)
            return None
        return render_value(spec, spec.default, trusted=True)  # the pack's own words
    value = read_value(spec.type, value)
    problem = value_problem(spec, value)
    if problem is None and spec.required and not spec.allow_empty and \
            isinstance(value, str) and not value.strip():
        problem = "is required and may not be empty (declare `allow_empty = true` to allow it)"
    if problem:
        report("error", "input-invalid", f"input {spec.name!r} {problem}", spec.name)
        return None
    return render_value(spec, value, tags=tags)


def resolve_inputs(specs: Sequence[InputRules], runtime: Mapping[str, Any],
                   overridable: Mapping[str, str], report: Reporter,
                   tags: frozenset[str] = OWN_TAGS) -> dict[str, Any]:
    """Validate runtime values against declarations; return the render value of every input.

    `overridable` maps the names a runtime value may set without a declaration (component
    sections, standard placeholders, placeholder defaults) to what such a value replaces. The
    runtime layer is the top placeholder layer, so such a value is applied, but never quietly:
    it is reported (a warning, refused in strict mode) naming what it replaces. Diagnostics
    coded in REFUSED are the caller's to refuse in every mode. `tags`: the elements a value
    may not open or close (the compiler's own).
    """
    declared = {s.name: s for s in specs}
    undeclared = [name for name in runtime if name not in declared]
    values: dict[str, Any] = {}
    for spec in specs:
        value = _declared_value(spec, runtime, undeclared, report, tags)
        if value is not None:
            values[spec.name] = value
    for name in undeclared:
        text = _undeclared_value(name, runtime[name], declared, overridable, report, tags)
        if text is not None:
            values[name] = text
    return values


def _undeclared_value(name: str, value: Any, declared: Mapping[str, InputRules],
                      overridable: Mapping[str, str], report: Reporter,
                      tags: frozenset[str]) -> str | None:
    """A runtime value no input declares: used (and reported) only where it replaces
    something a runtime value may set."""
    replaces = overridable.get(name)
    if replaces is None:
        report("warning", "input-undeclared",
               f"runtime value {name!r} is not a declared input of this variant" +
               did_you_mean(name, [*declared, *sorted(overridable)]), name)
        return None
    if not isinstance(value, (str, int, float, bool)):
        report("error", "input-invalid", f"runtime value {name!r} must be text, a number "
               f"or a boolean, not {type(value).__name__}; it is not used", name)
        return None
    report("warning", "input-undeclared",
           f"runtime value {name!r} is not a declared input of this variant: it replaces "
           f"{replaces} (request-class from now on)", name)
    if isinstance(value, bool):
        return "true" if value else "false"
    return outside_text(value, tags) if isinstance(value, str) else str(value)
