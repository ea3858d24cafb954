"""One tool as each provider wants it: its schema's forms (as given, open, OpenAI strict,
Gemini's OpenAPI subset) and its entry per format (each format's shape: promptc/_model/formats.py).

Schemas are normalized per provider (promptc/_emit/schemas/): OpenAI strict where the schema
allows it, Gemini's OpenAPI subset (or its `parameters_json_schema`), Anthropic's object root.
Nothing here is handed out as it is: `copy` and `fresh` give new tables and lists all the way
down, so a client may change what it gets.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._base.frozen import FreshCopies
from .._model.formats import TOOL_FORMS, tool_form
from .schemas import Converted, SchemaProblem, gemini_form, strict_form
from .schemas.strict import Reword

__all__ = ["SchemaForms", "Shape", "tool_entry", "FORMATS", "FunctionList"]

FunctionList = list[tuple[str, str, dict[str, Any]]]  # (name, description, JSON schema)

# Every tool format: the plain (name, description, schema) triples, and each format's forms.
FORMATS = ("functions", *TOOL_FORMS)


class SchemaForms:
    """One JSON Schema in the forms the providers take (as given, OpenAI strict, Gemini's
    OpenAPI subset), each converted on first use and then kept. Shared by every tool with this
    schema, whatever its name: a new session whose MCP servers are named differently converts
    nothing again. The forms are never handed out as they are; `copy` gives fresh ones."""

    __slots__ = ("schema", "_problems", "_reword", "_open", "_strict", "_gemini", "_copies",
                 "_found")

    def __init__(self, schema: dict[str, Any], problems: tuple[SchemaProblem, ...] = (),
                 reword: Reword | None = None, open_form: dict[str, Any] | None = None) -> None:
        self.schema = schema
        self._problems = problems  # what checking the schema as it arrived found
        self._reword = reword  # the strict form's wording of optional parameters (built-ins)
        # the `open` form: a built-in tool's schema without the closing `additionalProperties:
        # false` (None: the schema as given, an MCP server's own)
        self._open = open_form
        self._strict: Converted | None = None
        self._gemini: Converted | None = None
        self._copies: dict[str, FreshCopies] = {}
        self._found: dict[str, tuple[SchemaProblem, ...]] = {}  # problems by form, found once

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

    def problems(self, kind: str) -> tuple[SchemaProblem, ...]:
        """What is wrong with the schema, for one form (`json`, `strict`, `gemini`): found
        once per form (every session that connects the server asks)."""
        found = self._found.get(kind)
        if found is None:
            found = self._found[kind] = self._problems_of(kind)
        return found

    def _problems_of(self, kind: str) -> tuple[SchemaProblem, ...]:
        if kind in ("json", "open"):
            return self._problems
        self.form(kind)
        done = self._strict if kind == "strict" else self._gemini
        assert done is not None
        return (*self._problems, *(p for p in done.problems if p not in self._problems))

    def form(self, kind: str) -> dict[str, Any] | None:
        if kind == "open":
            return self.schema if self._open is None else self._open
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


def tool_entry(fmt: str, name: str, description: str, forms: SchemaForms, get: Get) -> Any:
    """One tool's entry in a tool format (`functions`, or a form of the format table:
    promptc/_model/formats.py); `get(kind)` supplies the schema (shared or a copy). A strict
    form sends the strict schema where strict mode can say it, else the schema as given with
    `strict: false`."""
    if fmt == "functions":
        return [name, description, get("json")]
    form = tool_form(fmt)[1]
    strict = form.dialect == "strict" and forms.strict is not None
    kind = "json" if form.dialect == "strict" and not strict else form.dialect
    return form.entry(name, description, get(kind), strict)


class Shape:
    """One tool as each provider wants it: its name, its description (verbatim) and the forms
    of its schema. `entry` is the shared entry (made once, never handed out); `fresh` a new
    one built from copies, for a client that may change it. `freeform`: the tool is a
    free-form one, sent as such where the format's form writes them (`ToolForm.custom`)."""

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
        custom = TOOL_FORMS[fmt][1].custom if self.freeform and fmt in TOOL_FORMS else None
        if custom is not None:
            return custom(self.name, self.description)
        return tool_entry(fmt, self.name, self.description, self.forms, get)
