"""Calls written in a model's own format instead of the taught one.

Models trained for their own chat templates fall back on them. Five families are recognized,
each from the format's own documentation:

* `hermes`: Hermes / Qwen2.5 JSON in a `<tool_call>` block,
  `<tool_call>{"name": "read_file", "arguments": {"path": "a.py"}}</tool_call>`;
* `qwen3-coder`: Qwen3-Coder's XML, `<tool_call><function=read_file><parameter=path>a.py
  </parameter></function></tool_call>` (the `<tool_call>` wrapper optional);
* `glm`: GLM-4.5's keys and values, `<tool_call>read_file<arg_key>path</arg_key>
  <arg_value>a.py</arg_value></tool_call>`;
* `json`: a bare `{"name": …, "arguments": …}` (or `"parameters"`, Llama's spelling), or a list
  of them, standing alone as the whole message or as the whole of a code fence; the other shapes
  models write are read too: the name under `tool`, `tool_name`, `function` or `function_name`,
  the arguments under `input`, `args` or `params`, OpenAI's `{"function": {"name": …,
  "arguments": …}}`, and a flat `{"tool": "read_file", "path": …}` whose other keys are the
  arguments (when it names an offered tool: JSON that merely has a "name" stays prose);
* `mistral`: `[TOOL_CALLS][{"name": …, "arguments": …}]`, and the later
  `[TOOL_CALLS]name[ARGS]{…}` form.

Each is unambiguous where it is recognized, so the policy is the same for all five: the call is
read and checked like a taught one, and the reader adds a `foreign-format` warning that carries
the same call in the taught form. A block that names no readable call is an error whose message
shows the taught form; nothing in these formats is ever passed over as prose. Values in the XML
formats are text (converted by each parameter's type); in the JSON formats they are JSON.
"""

from __future__ import annotations

import json
import re
from typing import Any

import attrs

from .scan import TextIndex, skip_space
from .values import load_json, load_json_prefix, pairs

__all__ = ["ForeignCall", "Foreign", "FORMAT_NAMES", "read_tool_call_block",
           "read_function_block", "read_mistral", "read_bare_json", "MISTRAL", "FUNCTION_TAG"]

FORMAT_NAMES = {
    "hermes": "JSON in a <tool_call> block (Hermes, Qwen2.5)",
    "qwen3-coder": "<function=…><parameter=…> tags (Qwen3-Coder)",
    "glm": "<arg_key>/<arg_value> tags (GLM-4.5)",
    "json": "a bare JSON object",
    "mistral": "[TOOL_CALLS] (Mistral)",
}
MISTRAL = "[TOOL_CALLS]"
FUNCTION_TAG = re.compile(r"<function=([^>\n]{1,80})>")
_PARAMETER_TAG = re.compile(r"<parameter=([^>\n]{1,80})>")
_MISTRAL_NAMED = re.compile(r"([A-Za-z0-9_.\-]{1,80})(?:\[CALL_ID\][^\[\n]{0,80})?\[ARGS\]")
_ARG_KEY = "<arg_key>"
_NAME_KEYS = ("name", "tool", "tool_name", "toolName", "function", "function_name",
              "functionName")
_ARGUMENT_KEYS = ("arguments", "parameters", "input", "args", "params", "tool_input",
                  "toolInput")
_FLAT_HEAD = re.compile(r'\[?\s*\{\s*"(?:name|tool|tool_name|toolName|function|function_name|'
                        r'functionName)"\s*:\s*"([^"\\\n]{1,80})"')
_CALL_HEAD = re.compile(r'\[?\s*\{\s*"(?:name|tool|tool_name|toolName|function|function_name|'
                        r'functionName)"\s*:\s*"[^"\\\n]{1,80}"\s*,\s*'
                        r'"(?:arguments|parameters|input|args|params|tool_input|toolInput)"\s*:')


@attrs.frozen
class ForeignCall:
    name: str
    given: list[tuple[str, Any]]
    text_values: bool  # XML formats: values are text, converted by the parameter's type


@attrs.frozen
class Foreign:
    """One block in a foreign format, from `start` to `end`: the calls it holds, or why it
    holds none (`problem`)."""

    format: str
    start: int
    end: int
    calls: tuple[ForeignCall, ...] = ()
    problem: str = ""


# --- <tool_call> blocks --------------------------------------------------------------------

def read_tool_call_block(index: TextIndex, start: int, partial: bool) -> Foreign | None:
    """The `<tool_call>` block opening at `start`; None while a streamed one is unclosed."""
    text = index.text
    body = start + len("<tool_call>")
    close = index.next_closer("tool_call", body)
    if close is None and partial:
        return None
    end = len(text) if close is None else close + len("</tool_call>")
    inner = text[body:len(text) if close is None else close]
    stripped = inner.strip()
    if stripped.startswith(("{", "[")):
        return _json_block("hermes", start, end, stripped)
    m = FUNCTION_TAG.search(inner)
    if m is not None and not inner[:m.start()].strip():
        return _functions(inner, start, end)
    return _glm(inner, start, end)


def _json_block(fmt: str, start: int, end: int, body: str) -> Foreign:
    decoded = load_json(body)
    if decoded.problem is not None:
        return Foreign(fmt, start, end, problem=f"its JSON {decoded.problem}")
    calls, problem = _json_calls(decoded.value)
    return Foreign(fmt, start, end, calls, problem)


def _json_calls(value: Any) -> tuple[tuple[ForeignCall, ...], str]:
    items = value if isinstance(value, list) else [value]
    calls = []
    for item in items:
        call = _json_call(_unwrapped(item))
        if isinstance(call, str):
            return (), call
        calls.append(call)
    if not calls:
        return (), "it holds an empty list"
    return tuple(calls), ""


def _unwrapped(item: Any) -> Any:
    """OpenAI's `{"type": "function", "function": {"name": …, "arguments": …}}`: the inner
    object."""
    inner = item.get("function") if isinstance(item, dict) else None
    if isinstance(inner, dict) and _name_key(inner) is not None:
        return inner
    return item


def _name_key(item: dict[str, Any]) -> str | None:
    return next((k for k in _NAME_KEYS if isinstance(item.get(k), str)), None)


def _arguments_key(item: dict[str, Any]) -> str | None:
    return next((k for k in _ARGUMENT_KEYS if k in item), None)


def _json_call(item: Any) -> ForeignCall | str:
    key = _name_key(item) if isinstance(item, dict) else None
    if key is None:
        return 'it is not an object with a "name"'
    where = _arguments_key(item)
    if where is None:  # flat: every other key is an argument
        arguments: Any = {k: v for k, v in item.items() if k not in (key, "type", "id")}
    else:
        arguments = item[where]
    if isinstance(arguments, str):  # some models encode the arguments object as a string
        decoded = load_json(arguments) if arguments.strip() else load_json("{}")
        if decoded.problem is not None:
            return f"its arguments text {decoded.problem}"
        arguments = decoded.value
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        return "its arguments are not an object"
    return ForeignCall(item[key], pairs(arguments), False)


def _functions(inner: str, start: int, end: int) -> Foreign:
    calls = []
    pos = 0
    while True:
        m = FUNCTION_TAG.search(inner, pos)
        if m is None:
            break
        close = inner.find("</function>", m.end())
        body_end = len(inner) if close < 0 else close
        calls.append(ForeignCall(m.group(1).strip(), _parameters(inner, m.end(), body_end),
                                 True))
        pos = body_end
    return Foreign("qwen3-coder", start, end, tuple(calls))


def _parameters(text: str, pos: int, end: int) -> list[tuple[str, Any]]:
    """`<parameter=name>value</parameter>` pairs; one line break after the opening tag and one
    before the closing tag are layout (the format writes both)."""
    given: list[tuple[str, Any]] = []
    while True:
        m = _PARAMETER_TAG.search(text, pos, end)
        if m is None:
            return given
        nxt = _PARAMETER_TAG.search(text, m.end(), end)
        limit = end if nxt is None else nxt.start()
        close = text.find("</parameter>", m.end(), limit)
        stop = limit if close < 0 else close
        value = text[m.end():stop]
        value = value[1:] if value.startswith("\n") else value
        value = value[:-1] if value.endswith("\n") else value
        given.append((m.group(1).strip(), value))
        pos = stop


def _glm(inner: str, start: int, end: int) -> Foreign:
    first = inner.find(_ARG_KEY)
    name = (inner if first < 0 else inner[:first]).strip()
    if not name or "\n" in name or "<" in name:
        return Foreign("glm", start, end, problem="it names no tool")
    given: list[tuple[str, Any]] = []
    pos = first
    while pos >= 0:
        key_end = inner.find("</arg_key>", pos)
        value_open = inner.find("<arg_value>", key_end)
        value_close = inner.find("</arg_value>", value_open)
        if min(key_end, value_open, value_close) < 0:
            return Foreign("glm", start, end, problem="an <arg_key> has no closed <arg_value>")
        key = inner[pos + len(_ARG_KEY):key_end].strip()
        given.append((key, inner[value_open + len("<arg_value>"):value_close]))
        pos = inner.find(_ARG_KEY, value_close)
    return Foreign("glm", start, end, (ForeignCall(name, given, True),))


def read_function_block(index: TextIndex, m: re.Match[str], partial: bool) -> Foreign | None:
    """A Qwen3-Coder `<function=…>` block without the `<tool_call>` wrapper."""
    text = index.text
    close = text.find("</function>", m.end())
    if close < 0 and partial:
        return None
    end = len(text) if close < 0 else close + len("</function>")
    body_end = len(text) if close < 0 else close
    call = ForeignCall(m.group(1).strip(), _parameters(text, m.end(), body_end), True)
    return Foreign("qwen3-coder", m.start(), end, (call,))


# --- Mistral and bare JSON -----------------------------------------------------------------

def read_mistral(whole: str, start: int, partial: bool) -> tuple[Foreign | None, int]:
    """The `[TOOL_CALLS]` block at `start` and how far it was read (None while a streamed one
    may still grow). A block ends where the next `[TOOL_CALLS]` begins: the blocks are read as
    separate slices, so a broken one is never read past its own end (a JSON parser's error
    message counts the lines up to the error, which must not cost more than the block)."""
    nxt = whole.find(MISTRAL, start + len(MISTRAL))
    stop = len(whole) if nxt < 0 else nxt
    foreign, end = _read_mistral(whole[start:stop], partial and nxt < 0)
    if foreign is None:
        return None, start + end
    return attrs.evolve(foreign, start=start, end=start + foreign.end), start + end


def _read_mistral(text: str, partial: bool) -> tuple[Foreign | None, int]:
    start = 0
    pos = skip_space(text, start + len(MISTRAL))
    named = _MISTRAL_NAMED.match(text, pos)
    if named is not None:
        decoded, end = load_json_prefix(text, skip_space(text, named.end()))
        if decoded.problem is not None:
            return _mistral_failed(start, end, decoded.problem, partial)
        arguments = decoded.value
        if not isinstance(arguments, dict):
            return Foreign("mistral", start, end, problem="its arguments are not an object"), end
        return Foreign("mistral", start, end,
                       (ForeignCall(named.group(1), pairs(arguments), False),)), end
    decoded, end = load_json_prefix(text, pos)
    if decoded.problem is not None:
        return _mistral_failed(start, end, decoded.problem, partial)
    calls, problem = _json_calls(decoded.value)
    return Foreign("mistral", start, end, calls, problem), end


def _mistral_failed(start: int, end: int, problem: str, partial: bool
                    ) -> tuple[Foreign | None, int]:
    if partial:
        return None, end
    return Foreign("mistral", start, end, problem=f"what follows it {problem}"), end


def read_bare_json(text: str, start: int, end: int, offered: frozenset[str] = frozenset()
                   ) -> Foreign | None:
    """`text[start:end]` (stripped) as a bare JSON call or list of calls, or None when it is
    not one (not JSON, or JSON that is not shaped like a call: then it is prose). JSON shaped
    like a call that cannot be read (a number out of range, `NaN`, a broken object after a
    call's head) is a call that cannot be read, as it is in a `<tool_call>` block."""
    body = text[start:end].strip()
    if not body.startswith(("{", "[")) or not any(f'"{k}"' in body for k in _NAME_KEYS):
        return None
    decoded = load_json(body)
    if decoded.problem is not None:
        if _shaped_like_a_call(body, offered):
            return Foreign("json", start, end, problem=f"its JSON {decoded.problem}")
        return None
    if not _is_call_list(decoded.value, offered):
        return None  # JSON with a "name", but not shaped like a call: prose
    calls, problem = _json_calls(decoded.value)
    if problem:
        return None
    return Foreign("json", start, end, calls)


def _is_call_list(value: Any, offered: frozenset[str]) -> bool:
    """Every item names a tool and gives its arguments, or names an offered tool (flat)."""
    items = value if isinstance(value, list) else [value]
    return bool(items) and all(_is_call(_unwrapped(i), offered) for i in items)


def _is_call(item: Any, offered: frozenset[str]) -> bool:
    key = _name_key(item) if isinstance(item, dict) else None
    return key is not None and (_arguments_key(item) is not None or item[key] in offered)


def _shaped_like_a_call(body: str, offered: frozenset[str]) -> bool:
    """JSON the strict reading refused: read leniently (any number, NaN), is it a call? When
    even that fails, does it open like one (`{"name": "…", "arguments": …`)?"""
    try:
        value = json.loads(body, parse_int=lambda _s: 0, parse_float=lambda _s: 0.0,
                           parse_constant=lambda _s: 0)
    except (ValueError, RecursionError):
        flat = _FLAT_HEAD.match(body)
        return _CALL_HEAD.match(body) is not None or (flat is not None and
                                                       flat.group(1) in offered)
    return _is_call_list(value, offered) and not _json_calls(value)[1]
