"""The generated model table's format (`promptc-models/1`), read and written here.

One string per normalized model id: `entry|context_window|max_output|images|…` (the LiteLLM
map entry's id, then TABLE_FIELDS: `t`/`f` for booleans, empty when unknown), then for each
provider whose entries differ, `;provider=entry|…` with just the differences. json.loads reads
a few thousand strings far faster than as many lists and objects, and a row is decoded (and
checked) only when a model is looked up. `dump_table` writes one model per line, so a refresh
reads well in a diff.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import attrs

from ..._base.errors import ConfigError
from ..._base.files import parse_json
from .capabilities import INT_FACTS

__all__ = ["TABLE_FIELDS", "TABLE_FORMAT", "MAX_TABLE_FILE", "ModelTable", "decode_row",
           "encode_row", "parse_table", "dump_table"]

# The facts the generated table carries, in the order of each row (after the entry id).
TABLE_FIELDS = ("context_window", "max_output", "images", "native_tools", "parallel_tools",
                "prompt_caching", "cache_min_tokens", "reasoning", "responses_only")
# A table written before `responses_only` existed has one column fewer: its rows read as
# "unknown" there.
_LEGACY_TABLE_FIELDS = TABLE_FIELDS[:-1]
TABLE_FORMAT = "promptc-models/1"
MAX_TABLE_FILE = 32 * 1024 * 1024

Row = list[Any]  # [entry id, *TABLE_FIELDS values]


@attrs.frozen(repr=False)
class ModelTable:
    """A generated table: `models` maps a normalized id to its row string (see the module)."""

    path: str
    user: bool
    source: Mapping[str, Any]
    models: Mapping[str, str]
    width: int = len(TABLE_FIELDS)  # facts per row; fewer for a table an older promptc wrote

    def __repr__(self) -> str:
        return f"ModelTable({self.path!r}, {len(self.models)} models)"

    @property
    def label(self) -> str:
        src = self.source
        return f"{src.get('name', 'LiteLLM')} {src.get('version', 'unknown')}"

    def row(self, key: str, provider: str = "") -> tuple[Row | None, Row | None]:
        """(the model's row, the provider's row) for a normalized id, decoded and checked."""
        text = self.models.get(key)
        if text is None:
            return None, None
        head, rest = self._split(key, text)
        base = decode_row(head, self.path, f"models.{key}", self.width)
        if not (provider and rest):
            return base, None
        own = next((row for name, row in self._parts(key, rest, named=False)
                    if name == provider), None)
        return base, None if own is None else decode_row(own, self.path,
                                                         f"models.{key};{provider}", self.width)

    def check(self) -> None:
        """Decode every row (rows are otherwise checked when used)."""
        for key, text in self.models.items():
            head, rest = self._split(key, text)
            decode_row(head, self.path, f"models.{key}", self.width)
            for name, row in self._parts(key, rest, named=True):
                decode_row(row, self.path, f"models.{key};{name}", self.width)

    def without_bad_rows(self) -> tuple[ModelTable, tuple[str, ...]]:
        """This table with every row that does not decode left out, and why each was (a
        user's table: one bad row must not break every lookup)."""
        problems: list[str] = []
        good: dict[str, str] = {}
        for key, text in self.models.items():
            try:
                attrs.evolve(self, models={key: text}).check()
            except ConfigError as exc:
                problems.append(str(exc))
                continue
            good[key] = text
        if not problems:
            return self, ()
        return attrs.evolve(self, models=good), tuple(problems)

    def provider_rows(self) -> int:
        return sum(text.count(";") for text in self.models.values() if isinstance(text, str))

    def _split(self, key: str, text: Any) -> tuple[str, str]:
        """(the model's row, the providers' parts) of a row string."""
        if not isinstance(text, str):
            raise ConfigError("must be a string", source=self.path, field=f"models.{key}")
        head, _, rest = text.partition(";")
        return head, rest

    def _parts(self, key: str, rest: str, *, named: bool) -> Iterator[tuple[str, str]]:
        """(provider, row) of each `;provider=row` part; `named`: an empty provider is an
        error too (a lookup never asks for one, a full check refuses it)."""
        for part in rest.split(";") if rest else ():
            name, eq, row = part.partition("=")
            if not eq or (named and not name):
                raise ConfigError(f"a provider's part must be `provider=row`, got {part!r}",
                                  source=self.path, field=f"models.{key}")
            yield name, row


def decode_row(text: Any, path: str, field: str, width: int = len(TABLE_FIELDS)) -> Row:
    """A row string as [entry id, *values], each value checked for its field's type; a row of
    an older table (`width` facts) reads as unknown in the columns it lacks."""
    parts = text.split("|") if isinstance(text, str) else []
    if len(parts) != width + 1 or not parts[0]:
        raise ConfigError(f"must be a string of the entry id and {width} values "
                          f"separated by `|` ({', '.join(TABLE_FIELDS[:width])}); run `promptc "
                          "models update` again", source=path, field=field)
    return [parts[0], *(_decode_value(name, value, path, field)
                        for name, value in zip(TABLE_FIELDS, parts[1:])),
            *[None] * (len(TABLE_FIELDS) - width)]


def _decode_value(name: str, value: str, path: str, field: str) -> Any:
    if not value:
        return None
    if name in INT_FACTS:
        if not (value.isascii() and value.isdigit()):  # '²' is a digit to isdigit
            raise ConfigError(f"{name} must be a whole number, got {value!r}", source=path,
                              field=field)
        return int(value)
    if value in ("t", "f"):
        return value == "t"
    raise ConfigError(f"{name} must be t, f or empty, got {value!r}", source=path, field=field)


def encode_row(row: Sequence[Any]) -> str:
    """[entry id, *values] as a row string (the inverse of `decode_row`)."""
    return "|".join("" if v is None else ("t" if v else "f") if isinstance(v, bool) else str(v)
                    for v in row)


def parse_table(text: str, path: str, *, user: bool = False, deep: bool = False) -> ModelTable:
    """A generated table from its JSON text. Rows are checked when used (`deep`: all now)."""
    data = parse_json(text, path, ConfigError)
    width = _check_header(data, path)
    table = ModelTable(path=path, user=user, source=data["source"], models=data["models"],
                       width=width)
    if deep:
        table.check()
    return table


def _check_header(data: Any, path: str) -> int:
    """Everything but the rows: the format, the fields, the source and a non-empty `models`;
    the number of facts each row holds."""
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
    return width


def _table_width(fields: Any, path: str) -> int:
    """How many facts each row of a table with these `fields` holds: the current columns, or
    the ones a table written before the last column was added has."""
    for known in (TABLE_FIELDS, _LEGACY_TABLE_FIELDS):
        if fields == list(known):
            return len(known)
    raise ConfigError(f"fields must be {list(TABLE_FIELDS)}; run `promptc models update` "
                      "to rewrite it", source=path, field="fields")


def dump_table(table: Mapping[str, Any]) -> str:
    """The table as JSON text, one model per line so a refresh reads well in a diff."""
    def row(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)

    lines = ["{", f'"format":{row(table["format"])},', f'"source":{row(table["source"])},',
             f'"fields":{row(table["fields"])},', '"models":{']
    models = table["models"]
    lines += [f"{row(k)}:{row(models[k])}{',' if i < len(models) - 1 else ''}"
              for i, k in enumerate(models)]
    lines += ["}", "}"]
    return "\n".join(lines) + "\n"
