"""Placement: where the session- and request-class text goes when the prompt is sent.

Placement is an emission choice, not a different prompt: `prompt.text` is the whole prompt as
one string either way. With the split (`dynamic="message"`, the default) the result also
carries what is sent: the system part (`prompt.system`), the static block ended by the
`environment_note` component (prose in components/, overridable per variant), which tells the
model where its environment details are and that only a message of their own counts, joined
with the glue the variant's template puts between sections, byte-identical for every session of
the variant; and the first user message (`prompt.message`), the rest of the prompt verbatim in
an `<environment_details>` element. `dynamic="system"` sends `text` as the system prompt.

A pack without a note (a project with the built-ins off) keeps the single string unless the
split is asked for: the model would not be told where its details went (`promptc lint` says
so). A prompt with nothing after its static block is split into itself and no message.

The message opens with the sections that describe the session's tools (the MCP servers and
skills: components that read nothing else), which users of one team tend to share while their
machines, rules and dates differ; `message_cut` marks where they end, so that Anthropic's
adapter can put a cache marker there and a second user of the same servers and skills reads
them from the cache.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

import attrs

from .._model.component import Component
from .._model.variant import Variant
from .._text.cleanup import clean
from .._text.template import Template, render
from .._text.tokens import TokenCounter
from .._emit.blocks import static_end
from .._emit.details import MESSAGE_TAG
from .compiled import CompiledPrompt, Section

__all__ = ["Placement", "PLACEMENTS", "DEFAULT_PLACEMENT", "NOTE", "MESSAGE_TAG", "note_text",
           "place_in_message", "CATALOGUE_READS"]

Placement = Literal["system", "message"]
PLACEMENTS: tuple[Placement, ...] = ("system", "message")
# The library's default: nothing that changes during a session sits before the conversation.
# (A project's `placement` key, read by the Compiler, is the other way to choose.)
DEFAULT_PLACEMENT: Placement = "message"
NOTE = "environment_note"  # the component that says where the environment details are
# What a section describing the session's tools reads (the provider aside): MCP servers, skills
CATALOGUE_READS = frozenset({"mcp_servers", "skills"})


def note_text(variant: Variant, components: Mapping[str, Component]) -> tuple[str, str]:
    """(the note's text for this variant, where it came from); ("", "") when there is none."""
    template: Template | None = variant.component_templates.get(NOTE)
    origin = f"variant:{variant.id}"
    if template is None:
        component = components.get(NOTE)
        if component is None or component.parsed is None:
            return "", ""
        template, origin = component.parsed, component.origin
    return clean(render(template, [{}], [])).strip("\n"), origin


def _split(prompt: CompiledPrompt) -> tuple[int, list[int]]:
    """(where the static block ends, the indexes of the sections after it)."""
    cut = static_end(prompt.text, prompt.sections, prompt.spans)
    return cut, [i for i, (_a, end) in enumerate(prompt.spans) if end > cut]


def _system(prompt: CompiledPrompt, cut: int, first: int, note: str, origin: str,
            counter: TokenCounter | None) -> tuple[str, list[Section], list[tuple[int, int]]]:
    """The static block, the variant's glue, the note: text, sections and spans."""
    text = prompt.text
    head = text[:first] if cut else ""  # the static block and the glue after it
    kept = [i for i, (_a, end) in enumerate(prompt.spans) if end <= cut]
    sections = [prompt.sections[i] for i in kept]
    spans = [prompt.spans[i] for i in kept]
    if not note:
        return text[:cut], sections, spans
    counted = counter is not None and prompt.tokens is not None
    tokens = counter.count(note, prompt.encoding[0]) if counter and counted else None
    sections.append(Section(NOTE, note, "static", origin, required=True, tokens=tokens))
    spans.append((len(head), len(head) + len(note)))
    return head + note, sections, spans


def _describes_tools(component: Component | None) -> bool:
    reads = component.reads if component is not None else None
    return bool(reads) and reads is not None and reads - {"provider"} <= CATALOGUE_READS


def _catalogue_cut(sections: Sequence[Section], spans: Sequence[tuple[int, int]],
                   components: Mapping[str, Component]) -> int:
    """The end of the leading sections that describe the session's tools, when others follow
    (0: none lead, or nothing follows them)."""
    lead = 0
    while lead < len(sections) and _describes_tools(components.get(sections[lead].id)):
        lead += 1
    return spans[lead - 1][1] if 0 < lead < len(sections) else 0


def place_in_message(prompt: CompiledPrompt, note: str, origin: str,
                     counter: TokenCounter | None = None,
                     components: Mapping[str, Component] | None = None) -> CompiledPrompt:
    """The prompt with its split: everything after its static block as `message`, the static
    block and the note as `split_system`; `text` stays whole. `components` (the registry's)
    tell which sections describe the session's tools (`message_cut`)."""
    cut, moved = _split(prompt)
    if not moved:
        return attrs.evolve(prompt, dynamic="message", split_system=prompt.text,
                            split_sections=prompt.sections, split_spans=prompt.spans)
    first = prompt.spans[moved[0]][0]
    system, sections, spans = _system(prompt, cut, first, note, origin, counter)
    opening = f"<{MESSAGE_TAG}>\n"
    shift = len(opening) - first
    message_sections = tuple(prompt.sections[i] for i in moved)
    message_spans = tuple((a + shift, b + shift) for a, b in (prompt.spans[i] for i in moved))
    return attrs.evolve(
        prompt, dynamic="message", split_system=system, split_sections=tuple(sections),
        split_spans=tuple(spans),
        message=f"{opening}{prompt.text[first:]}\n</{MESSAGE_TAG}>",
        message_sections=message_sections, message_spans=message_spans,
        message_cut=_catalogue_cut(message_sections, message_spans, components or {}),
        _memo={})
