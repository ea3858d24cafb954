"""One tool as each provider wants it: its schema's forms (as given, OpenAI strict, Gemini's
OpenAPI subset) and its entry per format.

Schemas are normalized per provider (promptc/_emit/schemas/): OpenAI strict where the schema
allows it, Gemini's OpenAPI subset (or its `parameters_json_schema`), Anthropic's object root.
Nothing here is handed out as it is: `copy` and `fresh` give new tables and lists all the way
down, so a client may change what it gets.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._base.frozen import FreshCopies
from .schemas import Converted, Problem, gemini_form, strict_form
from .schemas.strict import Reword

__all__ = ["SchemaForms", "Shape", "CUSTOM_FORMATS", "custom_entry", "tool_entry", "FORMATS",
           "FunctionList", "to_openai", "to_openai_responses", "to_anthropic", "to_gemini"]

FunctionList = list[tuple[str, str, dict[str, Any]]]  # (name, description, JSON schema)

FORMATS = ("functions", "openai", "openai-loose", "openai-responses", "openai-responses-loose",
           "anthropic", "gemini", "gemini-json")


class SchemaForms:
    """One JSON Schema in the forms the providers take (as given, OpenAI strict, Gemini's
    OpenAPI subset), each converted on first use and then kept. Shared by every tool with this
    schema, whatever its name: a new session whose MCP servers are named differently converts
    nothing again. The forms are never handed out as they are; `copy` gives fresh ones."""

    __slots__ = ("schema", "_problems", "_reword", "_strict", "_gemini", "_copies", "_found")

    def __init__(self, schema: dict[str, Any], problems: tuple[Problem, ...] = (),
                 reword: Reword | None = None) -> None:
        self.schema = schema
        self._problems = problems  # what checking the schema as it arrived found
        self._reword = reword  # the strict form's wording of optional parameters (built-ins)
        self._strict: Converted | None = None
        self._gemini: Converted | None = None
        self._copies: dict[str, FreshCopies] = {}
        self._found: dict[str, tuple[Problem, ...]] = {}  # problems by form, found once

    @property
    def strict(self) -> dict[str, Any] | None:
        """The schema in OpenAI strict form, or None when strict mode cannot express it."""
        done = self._strict
        if done is None:
            done = self._strict = strict_form(self.schema, self._reword)
        return done.schema

    @property
    def gemini(self) -> dict[str, Any] | None:
        """Gemini `parameters`, or None for a tool without arguments."""
        done = self._gemini
        if done is None:
            done = self._gemini = gemini_form(self.schema)
        return done.schema

    def problems(self, kind: str) -> tuple[Problem, ...]:
        """What is wrong with the schema, for one form (`json`, `strict`, `gemini`): found
        once per form (every session that connects the server asks)."""
        found = self._found.get(kind)
        if found is None:
            found = self._found[kind] = self._problems_of(kind)
        return found

    def _problems_of(self, kind: str) -> tuple[Problem, ...]:
        if kind == "json":
            return self._problems
        self.form(kind)
        done = self._strict if kind == "strict" else self._gemini
        assert done is not None
        return (*self._problems, *(p for p in done.problems if p not in self._problems))

    def form(self, kind: str) -> dict[str, Any] | None:
        return self.schema if kind == "json" else self.strict if kind == "strict" \
            else self.gemini

    def copy(self, kind: str) -> dict[str, Any] | None:
        copies = self._copies.get(kind)
        if copies is None:
            value = self.form(kind)
            if value is None:
                return None
            copies = self._copies[kind] = FreshCopies(value)
        fresh: dict[str, Any] = copies()
        return fresh


Get = Callable[[str], "dict[str, Any] | None"]  # a schema form by kind: shared or a copy


def _openai(name: str, description: str, forms: SchemaForms, get: Get) -> Any:
    strict = forms.strict is not None
    return {"type": "function", "function": {"name": name, "description": description,
                                             "parameters": get("strict" if strict else "json"),
                                             "strict": strict}}


def _openai_responses(name: str, description: str, forms: SchemaForms, get: Get) -> Any:
    strict = forms.strict is not None
    return {"type": "function", "name": name, "description": description,
            "parameters": get("strict" if strict else "json"), "strict": strict}


def _gemini(name: str, description: str, forms: SchemaForms, get: Get) -> Any:
    decl: dict[str, Any] = {"name": name, "description": description}
    if forms.gemini is not None:
        decl["parameters"] = get("gemini")
    return decl


_ENTRIES: dict[str, Callable[[str, str, SchemaForms, Get], Any]] = {
    "functions": lambda n, d, _f, get: [n, d, get("json")],
    "openai": _openai,
    "openai-responses": _openai_responses,
    "openai-loose": lambda n, d, _f, get: {"type": "function", "function": {
        "name": n, "description": d, "parameters": get("json")}},
    "openai-responses-loose": lambda n, d, _f, get: {
        "type": "function", "name": n, "description": d, "parameters": get("json"),
        "strict": False},
    "anthropic": lambda n, d, _f, get: {"name": n, "description": d, "input_schema": get("json")},
    "gemini": _gemini,
    "gemini-json": lambda n, d, _f, get: {"name": n, "description": d,
                                          "parameters_json_schema": get("json")},
}


def tool_entry(fmt: str, name: str, description: str, forms: SchemaForms, get: Get) -> Any:
    """One tool's entry in a format; `get(kind)` supplies the schema (shared or a copy)."""
    make = _ENTRIES.get(fmt)
    if make is None:
        raise ValueError(f"unknown tool format {fmt!r}")
    return make(name, description, forms, get)


# The formats that take a free-form tool (the Responses API's `custom` tools; its Chat
# Completions shape takes them too, but the OpenAI-compatible servers that speak that shape
# do not all, so a free-form tool goes there as a function of its one string parameter).
CUSTOM_FORMATS = frozenset(("openai-responses", "openai-responses-loose"))


def custom_entry(name: str, description: str) -> dict[str, Any]:
    """A free-form tool as the Responses API takes it: the model writes its input as raw
    text (a `custom_tool_call`), with no JSON around it."""
    return {"type": "custom", "name": name, "description": description,
            "format": {"type": "text"}}


class Shape:
    """One tool as each provider wants it: its name, its description (verbatim) and the forms
    of its schema. `entry` is the shared entry (made once, never handed out); `fresh` a new
    one built from copies, for a client that may change it. `freeform`: the tool is a
    free-form one where the format takes such tools (`CUSTOM_FORMATS`)."""

    __slots__ = ("name", "description", "forms", "freeform", "_entries")

    def __init__(self, name: str, description: str, forms: SchemaForms,
                 freeform: bool = False) -> None:
        self.name = name
        self.description = description
        self.forms = forms
        self.freeform = freeform
        self._entries: dict[str, Any] = {}

    @property
    def schema(self) -> dict[str, Any]:
        return self.forms.schema

    @property
    def strict(self) -> dict[str, Any] | None:
        return self.forms.strict

    def entry(self, fmt: str) -> Any:
        made = self._entries.get(fmt)
        if made is None:
            made = self._entries[fmt] = self._make(fmt, self.forms.form)
        return made

    def fresh(self, fmt: str) -> Any:
        return self._make(fmt, self.forms.copy)

    def _make(self, fmt: str, get: Get) -> Any:
        if self.freeform and fmt in CUSTOM_FORMATS:
            return custom_entry(self.name, self.description)
        return tool_entry(fmt, self.name, self.description, self.forms, get)


def _shaped(functions: FunctionList, fmt: str) -> list[Any]:
    return [Shape(n, d, SchemaForms(s)).entry(fmt) for n, d, s in functions]


def to_openai(functions: FunctionList) -> list[dict[str, Any]]:
    """Chat Completions `tools`, plain JSON Schema (optional parameters optional)."""
    return _shaped(functions, "openai-loose")


def to_openai_responses(functions: FunctionList) -> list[dict[str, Any]]:
    """Responses API `tools` (flat function objects), not strict."""
    return _shaped(functions, "openai-responses-loose")


def to_anthropic(functions: FunctionList) -> list[dict[str, Any]]:
    return _shaped(functions, "anthropic")


def to_gemini(functions: FunctionList) -> list[dict[str, Any]]:
    """Function declarations with `parameters` in Gemini's OpenAPI subset (left out for a tool
    without arguments)."""
    return [{"function_declarations": _shaped(functions, "gemini")}]
