"""What the built-in prompts forbid in a call's values, caught before the call runs.

Each rule is the other half of a sentence the model read:

* an optional parameter sent as an empty tag (components/tools.md: "never as an empty tag") is
  an error in a text call: the tag says nothing the model meant;
* XML entities in a text call's value (`&lt;`, `&amp;`; components/tool_use.md: values are plain
  text, "without … XML entities") are a warning, not an error: HTML and XML content
  legitimately hold them, so the call runs and the model is told its text arrives as written;
* replace_in_file's `diff` marked with merge-conflict markers (`<<<<<<< SEARCH`, `>>>>>>>
  REPLACE`) instead of the taught `------- SEARCH` / `+++++++ REPLACE` (editing_files.md) is an
  error, and so is apply_patch's `input` that does not run from `*** Begin Patch` to `*** End
  Patch`: either would fail later, in the client, with nothing said to the model.

The last two describe built-in tools' formats, so they hold only for those tools as the built-in
pack defines them (`BuiltinTool.builtin`): a pack's own tool of the same name is its own.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .records import CallProblem, CallWarning, Notice, Problem

__all__ = ["value_problems", "value_warnings"]

_ENTITY = re.compile(r"&(?:lt|gt|amp|quot|apos|#[0-9]{1,7}|#x[0-9A-Fa-f]{1,6});")
_CONFLICT = re.compile(r"^(?:<{7} SEARCH|>{7} REPLACE)[ \t]*$", re.M)
_PATCH_START, _PATCH_END = "*** Begin Patch", "*** End Patch"


def value_problems(tool: Any, values: Mapping[str, Any], text: bool) -> list[CallProblem]:
    """What is wrong with a call's converted `values` (`tool`: a `checker.BuiltinTool`)."""
    problems: list[CallProblem] = []
    if text:
        problems.extend(
            CallProblem(Problem.BAD_VALUE, f"parameter {name!r} of {tool.name} is an empty tag: "
                        "leave out an optional parameter you do not need rather than sending "
                        "it empty", name)
            for name, value in values.items()
            if isinstance(value, str) and not value.strip() and name in tool.params
            and not tool.params[name].required and tool.params[name].type == "string")
    if tool.builtin:
        problems.extend(_format_problems(tool.name, values))
    return problems


def _format_problems(tool: str, values: Mapping[str, Any]) -> list[CallProblem]:
    diff = values.get("diff")
    if tool == "replace_in_file" and isinstance(diff, str) and _CONFLICT.search(diff):
        return [CallProblem(Problem.BAD_VALUE, "parameter 'diff' of replace_in_file is marked "
                            "with merge-conflict markers (<<<<<<< SEARCH, >>>>>>> REPLACE); "
                            "mark each block with ------- SEARCH, ======= and +++++++ REPLACE, "
                            "each alone on its line", "diff")]
    patch = values.get("input")
    if tool == "apply_patch" and isinstance(patch, str):
        lines = patch.strip().splitlines()
        if not lines or lines[0].strip() != _PATCH_START:
            return [CallProblem(Problem.BAD_VALUE, "parameter 'input' of apply_patch must start "
                                f"with the line {_PATCH_START}", "input")]
        if lines[-1].strip() != _PATCH_END:
            return [CallProblem(Problem.BAD_VALUE, "parameter 'input' of apply_patch has no "
                                f"closing {_PATCH_END} line: the patch is cut short or "
                                "unterminated", "input")]
    return []


def value_warnings(tool: Any, values: Mapping[str, Any]) -> tuple[CallWarning, ...]:
    """A text call's values holding XML entities (see the module docstring)."""
    out: list[CallWarning] = []
    for name, value in values.items():
        param = tool.params.get(name)
        if param is None or param.type != "string" or not isinstance(value, str):
            continue
        found = _ENTITY.search(value)
        if found is not None:
            out.append(CallWarning(
                Notice.XML_ENTITIES, f"parameter {name!r} of {tool.name} holds the XML entity "
                f"{found.group()}; values are plain text and arrive as written, so write <, > "
                "and & as themselves unless the text itself should hold the entity (as HTML "
                "may)", name=tool.name))
    return tuple(out)
