"""The elements the loaded packs' templates use: what outside text may not forge.

A body of outside text may neither open nor close an element of the prompt's own
(promptc/_text/fence.py). Which elements those are depends on the packs loaded: the coding pack
wraps text in `<user_rules>` and `<default_to_action>`, a support assistant's project in
`<policies>` or `<customer>`. So the set is read from every loaded template and component text
once, when the registry is built, and every fence of the compiler's uses it: an element a
template opens or closes on a line of its own (promptc._text.fence.element_names), plus the
fences the engine itself writes and the coding pack's fixed list (`OWN_TAGS`, which a set
never loses, whatever is loaded). A tool call shown as an example (`<read_file>` on a line of its
own, its parameters inside) is not an element of the prompt's: a value may quote a call, and
the call checker, not the fence, decides what runs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from .._model.component import Component
from .._model.tools import ToolSpec
from .._model.variant import Variant
from .._text.fence import OWN_TAGS, element_names

__all__ = ["own_tags"]


def _texts(variants: Iterable[Variant], components: Iterable[Component]) -> set[str]:
    """Every template text loaded (each once: variants that extend another share its texts)."""
    texts: set[str] = set()
    for v in variants:
        texts.add(v.template.text)
        texts.update(t.text for t in v.component_templates.values())
    for c in components:
        texts.update(t for t in (c.template, c.short_template) if t)
    return texts


def own_tags(variants: Mapping[str, Variant], components: Mapping[str, Component],
             tools: Mapping[str, ToolSpec]) -> frozenset[str]:
    """The element names a body may not open or close: `OWN_TAGS`, and every element the
    templates use that is not a tool or one of its parameters (lower-case)."""
    specs = [*tools.values(), *(s for v in variants.values() for s in v.tool_specs)]
    calls = {spec.name.lower() for spec in specs} | {
        p.name.lower() for spec in specs for p in spec.parameters}
    found: set[str] = set()
    for text in _texts(variants.values(), components.values()):
        if "<" in text:
            found |= element_names(text)
    return OWN_TAGS | frozenset(found - calls)
