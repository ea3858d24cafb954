"""The words promptc adds to native tool definitions, from components/wire.toml.

Prose lives in data: this module only reads the file once, checks it (a missing key, a value
that is not text or an unknown placeholder is a `ToolSpecError` naming the file and key), and
applies it:

- `mcp_description(server, tool, description)`: an MCP tool's description as every native format
  sends it, its server first (the provenance mark), then the server's words fenced as a body
  (promptc._text.fence.marked: they cannot contain the mark, open or close promptc's elements,
  or start a section);
- `strict_reword(instruction)`: a built-in optional parameter's instruction as OpenAI's strict
  definitions send it (an optional parameter there is sent as null, not left out).

Placeholders are filled in one pass over the template; a value is never read again.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

import attrs

from .._base.errors import ToolSpecError
from .._base.files import read_text_file
from .._text.control import neutral
from .._text.fence import marked, one_line

__all__ = ["Wording", "wording", "mcp_description", "strict_reword", "WIRE_FILE"]

WIRE_FILE = "wire.toml"
_PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")
_MCP_KEYS = {"description": ("server", "description"), "no_description": ("server", "tool")}


def _wire_path() -> Path:
    """components/wire.toml: inside the wheel, or in the source checkout."""
    package = Path(__file__).resolve().parent.parent
    packaged = package / "_builtin" / "components" / WIRE_FILE
    return packaged if packaged.is_file() else package.parent / "components" / WIRE_FILE


def _fill(template: str, values: Mapping[str, str]) -> str:
    """The template with its placeholders filled in one pass (split once per template: the
    fill runs for every MCP tool of every new session)."""
    parts = _split(template)
    return "".join([values[part] if i % 2 else part for i, part in enumerate(parts)])


@lru_cache(maxsize=16)
def _split(template: str) -> list[str]:
    """Literal text and placeholder names, alternating (the wording's own templates)."""
    return _PLACEHOLDER.split(template)


@lru_cache(maxsize=16)
def _mark(template: str) -> str:
    return template.split("{{", 1)[0].strip()


@lru_cache(maxsize=4096)
def _server_words(mark: str, text: str) -> str:
    """A server's text fenced behind the mark (memoized: a new session brings the same
    descriptions under new server names; a pure function of its two strings)."""
    return marked(mark, text)


@attrs.frozen
class Wording:
    """The checked contents of wire.toml."""

    mcp: Mapping[str, str]
    optional: tuple[tuple[str, str], ...]

    @property
    def mark(self) -> str:
        """The text before the first placeholder of the MCP description (the provenance mark)."""
        return _mark(self.mcp["description"])

    def mcp_description(self, server: str, tool: str, description: str) -> str:
        mark = self.mark
        if description.strip():
            return _fill(self.mcp["description"], {
                "server": neutral(one_line(server)),
                "description": _server_words(mark, description)})
        return _fill(self.mcp["no_description"], {
            "server": neutral(one_line(server)), "tool": _server_words(mark, one_line(tool))})

    def strict_reword(self, instruction: str) -> str:
        for phrase, replacement in self.optional:
            instruction = instruction.replace(phrase, replacement)
        return instruction


def _text(table: Mapping[str, Any], key: str, allowed: tuple[str, ...], path: Path,
          where: str) -> str:
    value = table.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ToolSpecError(f"{where}.{key} must be text", source=str(path))
    unknown = sorted(set(_PLACEHOLDER.findall(value)) - set(allowed))
    if unknown:
        raise ToolSpecError(f"{where}.{key}: unknown placeholder {unknown[0]!r} (this one "
                            f"takes {', '.join(allowed)})", source=str(path))
    return value


def _phrases(table: Any, path: Path) -> tuple[tuple[str, str], ...]:
    if not isinstance(table, Mapping) or not all(
            isinstance(k, str) and k and isinstance(v, str) for k, v in table.items()):
        raise ToolSpecError("openai_strict.optional must map phrases to phrases",
                            source=str(path))
    return tuple(table.items())


def read_wording(path: Path) -> Wording:
    """wire.toml, checked."""
    try:
        data = tomllib.loads(read_text_file(path, ToolSpecError))
    except tomllib.TOMLDecodeError as exc:
        raise ToolSpecError(f"not valid TOML: {exc}", source=str(path)) from None
    mcp = data.get("mcp")
    if not isinstance(mcp, Mapping):
        raise ToolSpecError("the [mcp] table is missing", source=str(path))
    strict = data.get("openai_strict")
    optional = strict.get("optional") if isinstance(strict, Mapping) else None
    return Wording({k: _text(mcp, k, allowed, path, "mcp") for k, allowed in _MCP_KEYS.items()},
                   _phrases(optional, path))


@lru_cache(maxsize=1)
def wording() -> Wording:
    """The built-in wording (read once per process)."""
    return read_wording(_wire_path())


def mcp_description(server: str, tool: str, description: str) -> str:
    return wording().mcp_description(server, tool, description)


def strict_reword(instruction: str) -> str:
    return wording().strict_reword(instruction)
