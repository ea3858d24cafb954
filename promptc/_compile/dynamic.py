"""Dynamic placement: the session- and request-class text moved out of the system prompt.

`compile(..., dynamic="message")` keeps in the system prompt only the static block, which every
user of a deployment shares, and hands the rest back as the text of a first user message,
wrapped in an `<environment_details>` element. The system prompt ends with the
`environment_note` component (prose in components/, overridable per variant), which tells the
model where its environment details are, joined to the static block with the same glue the
variant's template puts between sections. A prompt with nothing after its static block is
returned as it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

import attrs

from .._model.component import Component
from .._model.variant import Variant
from .._text.cleanup import clean
from .._text.template import Template, render
from .._text.tokens import TokenCounter
from .result import CompiledPrompt, Section

__all__ = ["Placement", "PLACEMENTS", "NOTE", "MESSAGE_TAG", "note_text", "place_in_message",
           "message_update"]

Placement = Literal["system", "message"]
PLACEMENTS: tuple[Placement, ...] = ("system", "message")
NOTE = "environment_note"  # the component that says where the environment details are
MESSAGE_TAG = "environment_details"


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


def place_in_message(prompt: CompiledPrompt, note: str, origin: str,
                     counter: TokenCounter | None = None) -> CompiledPrompt:
    """The prompt with everything after its static block moved to `message`."""
    blocks = prompt.blocks
    cut = len(blocks[0].text) if blocks and blocks[0].cache == "static" else 0
    kept = [(s, span) for s, span in zip(prompt.sections, prompt.spans) if span[1] <= cut]
    moved = [(s, span) for s, span in zip(prompt.sections, prompt.spans) if span[1] > cut]
    if not moved:
        return attrs.evolve(prompt, dynamic="message")
    text = prompt.text
    first = moved[0][1][0]
    head = text[:cut] + text[cut:first] if cut else ""  # the variant's glue between sections
    system = head + note if note else text[:cut]
    sections = [s for s, _ in kept]
    spans = [span for _, span in kept]
    if note:
        tokens = counter.count(note, prompt.encoding[0]) if counter and prompt.tokens else None
        sections.append(Section(NOTE, note, "static", origin, required=True, tokens=tokens))
        spans.append((len(head), len(system)))
    opening = f"<{MESSAGE_TAG}>\n"
    message = f"{opening}{text[first:]}\n</{MESSAGE_TAG}>"
    shift = len(opening) - first
    report = prompt.tokens
    if report is not None and counter is not None:
        report = attrs.evolve(report, total=counter.count(system, prompt.encoding[0]))
    return attrs.evolve(
        prompt, text=system, sections=tuple(sections), spans=tuple(spans), tokens=report,
        dynamic="message", message=message,
        message_sections=tuple(s for s, _ in moved),
        message_spans=tuple((a + shift, b + shift) for _, (a, b) in moved), _memo={})


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
