"""Dynamic placement: the session- and request-class text moved out of the system prompt.

`compile(..., dynamic="message")` keeps in the system prompt only the static block, which every
user of a deployment shares, and hands the rest back as the text of a first user message,
wrapped in an `<environment_details>` element. The system prompt ends with the
`environment_note` component (prose in components/, overridable per variant), which tells the
model where its environment details are, joined to the static block with the same glue the
variant's template puts between sections. A prompt with nothing after its static block is
returned as it is.

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
from .result import CompiledPrompt, Section

__all__ = ["Placement", "PLACEMENTS", "NOTE", "MESSAGE_TAG", "note_text", "place_in_message",
           "message_update", "CATALOGUE_READS"]

Placement = Literal["system", "message"]
PLACEMENTS: tuple[Placement, ...] = ("system", "message")
NOTE = "environment_note"  # the component that says where the environment details are
MESSAGE_TAG = "environment_details"
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
    blocks = prompt.blocks
    cut = len(blocks[0].text) if blocks and blocks[0].cache == "static" else 0
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
    """The prompt with everything after its static block moved to `message`; `components`
    (the registry's) tell which sections describe the session's tools (`message_cut`)."""
    cut, moved = _split(prompt)
    if not moved:
        return attrs.evolve(prompt, dynamic="message")
    first = prompt.spans[moved[0]][0]
    system, sections, spans = _system(prompt, cut, first, note, origin, counter)
    opening = f"<{MESSAGE_TAG}>\n"
    shift = len(opening) - first
    report = prompt.tokens
    if report is not None and counter is not None:
        report = attrs.evolve(report, total=counter.count(system, prompt.encoding[0]))
    message_sections = tuple(prompt.sections[i] for i in moved)
    message_spans = tuple((a + shift, b + shift) for a, b in (prompt.spans[i] for i in moved))
    return attrs.evolve(
        prompt, text=system, sections=tuple(sections), spans=tuple(spans), tokens=report,
        dynamic="message", message=f"{opening}{prompt.text[first:]}\n</{MESSAGE_TAG}>",
        message_sections=message_sections, message_spans=message_spans,
        message_cut=_catalogue_cut(message_sections, message_spans, components or {}),
        _memo={})


def message_update(prompt: CompiledPrompt, previous: CompiledPrompt) -> str:
    """What to send with the latest message when the details changed since `previous`: an
    `<environment_details>` element with the sections whose text changed ("" when none did);
    every section when one appeared or went, since an absent section says nothing."""
    before = {s.id: s.text for s in previous.message_sections}
    now = prompt.message_sections
    if [s.id for s in now] != list(before):
        return prompt.message
    changed = [s.text for s in now if before.get(s.id) != s.text]
    if not changed:
        return ""
    return f"<{MESSAGE_TAG}>\n" + "\n\n".join(changed) + f"\n</{MESSAGE_TAG}>"
