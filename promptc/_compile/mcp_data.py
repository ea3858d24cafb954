"""The MCP servers section's values: made once per set of servers (by what they offer), and
used with each request's own texts filled in.

A new session rarely brings new tools: what changes is the servers' names, and in native mode
the function names made from them. So the table the template reads is built once per set of
servers, with a stand-in for each server's name and each function name (see
promptc._text.layout: `stand_in`, `Filled`), and each request fills those in: the template's
walk is then taken from the table's fragment, whatever the number of tools. Every name, URI and
description is the server's text, fenced (promptc._text.fence); a native function name is
exactly what is sent.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping, Sequence
from typing import Any

from .._base.frozen import FrozenDict, dumps_json, thaw
from .._base.memo import Memo
from .._emit.schemas.clean import carried_numbers
from .._model.context import McpServer, McpTool
from .._model.tools import McpBinding
from .._text.fence import OWN_TAGS, attribute, body
from .._text.layout import Filled, Row, stand_in
from .schema_lines import NONE, ParameterLines, parameter_lines

__all__ = ["McpValues"]


class _Section:
    """The table for one set of servers (by what they offer), with its stand-ins. It holds
    the servers' part lists, so the ids in its key stay theirs while it is kept."""

    __slots__ = ("parts", "row", "names", "functions")

    def __init__(self, servers: Sequence[McpServer], text_mode: bool, values: McpValues) -> None:
        self.parts = tuple((s.tools, s.resources, s.resource_templates) for s in servers)
        self.names = [stand_in("server") for _ in servers]
        self.functions = [] if text_mode else [stand_in("function")
                                               for s in servers for _ in s.tools]
        functions = iter(self.functions)
        self.row = Row({
            "servers": [_server(s, name, text_mode, values, functions)
                        for s, name in zip(servers, self.names)],
            "text_mode": text_mode, "native_mode": not text_mode,
            "any_resources": any(s.resources or s.resource_templates for s in servers)})

    def fills(self, servers: Sequence[McpServer], bindings: Sequence[McpBinding]
              ) -> dict[str, str]:
        fills = {name: attribute(s.name) for name, s in zip(self.names, servers)}
        fills.update(zip(self.functions, (b.native_name for b in bindings)))
        return fills


def _server(s: McpServer, name: str, text_mode: bool, values: McpValues,
            functions: Iterator[str]) -> dict[str, Any]:
    """One server's values (a tool's `server` is found on its server, around it)."""
    rows = values.tool_rows(s.tools, text_mode)
    tools = rows if text_mode else [Row({**row, "function": next(functions)}) for row in rows]
    return {"name": name, "server": name, "command": attribute(s.command or s.url),
            "tools": tools,
            "resources": [{"uri": attribute(x.uri), "name": attribute(x.name),
                           "description": body(x.description, tags=values.tags),
                           "mime_type": attribute(x.mime_type)} for x in s.resources],
            "resource_templates": [{"uri_template": attribute(x.uri_template),
                                    "name": attribute(x.name),
                                    "description": body(x.description, tags=values.tags),
                                    "mime_type": attribute(x.mime_type)}
                                   for x in s.resource_templates]}


def _key(servers: Sequence[McpServer], text_mode: bool) -> Hashable:
    """What a table depends on besides the names: each server's command (or URL) and its
    part lists, by identity (a session's records come from the compiler's memo of parts, so
    equal lists are one object; the table kept holds them, so no other object takes their
    ids). Unequal lists never share a key; equal ones that are not one object only miss."""
    return text_mode, tuple((s.command, s.url, id(s.tools), id(s.resources),
                             id(s.resource_templates)) for s in servers)


class McpValues:
    """The MCP section's memos, owned by one plan."""

    __slots__ = ("_sections", "_rows", "_schemas", "tags")

    def __init__(self, size: int = 2048, tags: frozenset[str] = OWN_TAGS) -> None:
        self.tags = tags  # the elements a server's text may not open or close
        # by the servers' part lists' identity: kept from a second time, so lists that are
        # equal but not one object (a context built by hand each request) leave nothing behind
        self._sections: Memo[Hashable, _Section] = Memo(size, second_sight=True)
        self._rows: Memo[tuple[tuple[McpTool, ...], bool], list[Row]] = Memo(size)
        self._schemas: Memo[str, tuple[str, ParameterLines]] = Memo(size)

    def values(self, servers: Sequence[McpServer], text_mode: bool,
               bindings: Sequence[McpBinding]) -> Mapping[str, Any]:
        """The section's values for these servers (and, in native mode, their functions)."""
        key = _key(servers, text_mode)
        section = self._sections.get(key)
        if section is None:
            section = self._sections.put(key, _Section(servers, text_mode, self))
        return Filled(section.row, section.fills(servers, bindings),
                      lambda: self._table(servers, text_mode, bindings))

    def _table(self, servers: Sequence[McpServer], text_mode: bool,
               bindings: Sequence[McpBinding]) -> dict[str, Any]:
        """The same values as a plain table, for a template that reads more than them."""
        functions = iter([b.native_name for b in bindings])
        return {"servers": [_server(s, attribute(s.name), text_mode, self, functions)
                            for s in servers],
                "text_mode": text_mode, "native_mode": not text_mode,
                "any_resources": any(s.resources or s.resource_templates for s in servers)}

    def tool_rows(self, tools: tuple[McpTool, ...], text_mode: bool) -> list[Row]:
        """A server's tools as rows of their own values, fenced, made once per list of tool
        records (the complete, typed input). A list handed out is read, never changed."""
        rows = self._rows.get((tools, text_mode))
        if rows is None:
            rows = self._rows.put((tools, text_mode), [self._row(t, text_mode) for t in tools])
        return rows

    def _row(self, tool: McpTool, text_mode: bool) -> Row:
        values = {"name": attribute(tool.name),
                  "description": body(tool.description, tags=self.tags),
                  "read_only": tool.read_only}
        text, lines = self.schema_text(tool.input_schema) if text_mode else ("", NONE)
        # native mode: the function (named with the session) carries the schema
        values.update(schema=text, schema_lines=bool(lines.parameters),
                      parameters=lines.parameters, schema_keywords=lines.schema_keywords)
        if text_mode:
            values["function"] = ""
        return Row(values)

    def schema_text(self, schema: FrozenDict) -> tuple[str, ParameterLines]:
        """An input schema as one line of minified JSON (fenced: a string in it cannot close
        an element), and as one row per parameter when it has the usual shape
        (promptc._compile.schema_lines), made once per distinct schema (keyed by its
        canonical JSON text, which is typed and complete). A value holding a number JSON
        cannot carry (`1e400` read as infinity) is left out of both, as the tool set reports
        (`ToolSet` diagnostics)."""
        if not schema:
            return "", NONE
        key = schema.json_text
        made = self._schemas.get(key)
        if made is None:
            shown, _dropped = carried_numbers(thaw(schema))
            text = body(dumps_json(shown, indent=None, separators=(",", ":")), tags=self.tags)
            made = self._schemas.put(key, (text, parameter_lines(shown, self.tags)))
        return made
