"""References in a prompt's own words to parts that a render may lack.

A section named by its title ("under Tools", "see Editing files", "the Skills section"), a
tool's example in the text catalogue ("the replace_in_file example"), the tools "listed below":
each points at text that exists in some renders only (text tools have a catalogue and native
ones do not; the Skills section comes with skills). And a variant that teaches how to call in
one tool mode must teach it in the other mode it renders in: native tools without a
function-calling section, or text tools without the call format, leave the model guessing.
Only the pack's own words count (outside text is masked before this runs).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Any

from .._compile.compiled import CompiledPrompt
from .._model.diagnostics import Diagnostic

__all__ = ["pack_headings", "dangling_references", "matches_in", "CATALOGUES"]

_HEADING = re.compile(r"^#{1,3} ([^\n{}#]+?)[ \t]*$", re.MULTILINE)
# the tools a text catalogue lists: "the tools listed below", "the listed tools"
_CATALOGUE_WORDS = re.compile(r"\b(?:tools (?:listed )?below|listed tools)\b")
CATALOGUES = frozenset(("tools", "session_tools"))
_CALLING = {"native": "tool_calling", "text": "tool_use"}


def pack_headings(registry: Any) -> frozenset[str]:
    """Every section title the pack's templates write (a `#`, `##` or `###` line with no tag
    in it): the titles a reference may name. `registry`: a frozen Registry."""
    texts: list[str] = []
    for component in registry.components.values():
        texts += [t.text for t in (component.parsed, component.parsed_short) if t is not None]
    for variant in registry.variants.values():
        texts += [t.text for t in variant.component_templates.values()]
    return frozenset(m.group(1) for text in texts for m in _HEADING.finditer(text))


@functools.lru_cache(maxsize=1024)
def matches_in(pattern: re.Pattern[str], text: str) -> tuple[tuple[str, int], ...]:
    """(the first group that took part, else the whole match; its start) for each match of
    `pattern` in `text`. Lint renders every situation of a variant and most sections come out
    the same in each, so each text is scanned once per pattern."""
    return tuple((next((g for g in m.groups() if g is not None), m.group(0)), m.start())
                 for m in pattern.finditer(text))


@functools.lru_cache(maxsize=64)
def _section_refs(headings: tuple[str, ...]) -> re.Pattern[str]:
    """A reference to a section: "under T", "see T", "T section" (longest title first)."""
    titles = "|".join(map(re.escape, headings))
    return re.compile(rf"\b(?:(?:under|see) (?P<a>{titles})|(?P<b>{titles}) section)"
                      r"(?![\w-])")


# A reference to a tool's example: "the replace_in_file example", "the tool's example". Tool
# names are [A-Za-z0-9_-] (promptc/_model/tools.py), so a whole word of those is a candidate,
# kept when it names one of the render's tools.
_EXAMPLE_REFS = re.compile(r"(?<![\w-])(?P<tool>[\w-]+|tool's) example\b")


def _line(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def dangling_references(prompt: CompiledPrompt, label: str,
                        sections: list[tuple[str, str]],
                        headings: Iterable[str]) -> list[Diagnostic]:
    """Every reference in `sections` ((id, masked text) pairs) to a section title, a tool's
    example or the tool catalogue that this render lacks, and a missing call-teaching section
    (see the module's docstring). `headings`: the titles a reference may name."""
    out = _missing_sections(label, sections, headings)
    out += _missing_examples(prompt, label, sections)
    out += _missing_calling_section(prompt, label, {sid for sid, _ in sections})
    return out


def _missing_sections(label: str, sections: list[tuple[str, str]],
                      headings: Iterable[str]) -> list[Diagnostic]:
    known = tuple(sorted(set(headings), key=lambda h: (-len(h), h)))
    if not known:
        return []
    present = {title for _sid, text in sections for title, _ in matches_in(_HEADING, text)}
    out: list[Diagnostic] = []
    for sid, text in sections:
        for title, start in matches_in(_section_refs(known), text):
            if title not in present:
                out.append(Diagnostic(
                    "error", "names-missing-section",
                    f"{label}: section {sid!r} (line {_line(text, start)}) refers to the "
                    f"section {title!r}, which this render does not have", sid))
    return out


def _missing_examples(prompt: CompiledPrompt, label: str,
                      sections: list[tuple[str, str]]) -> list[Diagnostic]:
    """A tool's example and the listed tools exist only in a text catalogue of that tool."""
    catalogue = any(sid in CATALOGUES for sid, _ in sections)
    listed = set(prompt.tools.names) if catalogue and prompt.tools.mode == "text" else set()
    names = set(prompt.tools.names) | {"tool's"}
    shown = listed | {"tool's"} if listed else set()
    out: list[Diagnostic] = []
    for sid, text in sections:
        for tool, start in matches_in(_EXAMPLE_REFS, text):
            if tool in names and tool not in shown:
                out.append(Diagnostic(
                    "error", "names-missing-example",
                    f"{label}: section {sid!r} (line {_line(text, start)}) refers to "
                    f"{tool + ' example'!r}, but this render has no text catalogue showing it",
                    sid))
        out += [] if catalogue else _missing_catalogue(label, sid, text)
    return out


def _missing_catalogue(label: str, sid: str, text: str) -> list[Diagnostic]:
    """"The tools listed below" with no text catalogue to list them."""
    return [Diagnostic("error", "names-missing-example",
                       f"{label}: section {sid!r} (line {_line(text, hit.start())}) refers to "
                       f"{hit.group(0)!r}, but this render lists no tools in its text", sid)
            for hit in _CATALOGUE_WORDS.finditer(text)]


def _missing_calling_section(prompt: CompiledPrompt, label: str,
                             ids: set[str]) -> list[Diagnostic]:
    """A variant that teaches calling in one mode (it has `tool_use` or `tool_calling`) must
    teach it in the mode this render uses."""
    mode = prompt.tools.mode
    components = prompt.variant.components
    wanted = _CALLING.get(mode)
    if not prompt.tools.names or wanted is None or wanted in ids or \
            not any(c in components for c in _CALLING.values()):
        return []
    return [Diagnostic(
        "error", "calling-section-missing",
        f"{label}: tools are {mode}, but the render has no {wanted!r} section to say how to "
        "call them", prompt.variant.id)]
