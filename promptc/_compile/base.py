"""The base template: its names sorted once per plan (a section, a standard placeholder, a
variant default, a declared input, or missing: reported, rendered empty), and a request's
values joined into its layout, with each section's place in the text."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import accumulate
from typing import Any, Literal

import attrs

from .._base.frozen import FrozenDict
from .._base.suggest import did_you_mean
from .._model.component import Component
from .._model.diagnostics import Diagnostic
from .._model.placeholders import STANDARD
from .._model.request import Request
from .._model.variant import Variant
from .._text.fence import element
from .._text.layout import Layout, filled
from .._text.template import Use, flat_names
from .compiled import Dropped, Section
from .names import SCALAR, ItemScope, Resolved, input_scope, resolve_names
from .steps import Step, not_in, unchecked_notes

__all__ = ["Assembled", "BaseSlots", "Slot", "SlotKind", "base_slots", "base_names", "Placed", "base_scope",
           "place_sections", "FlatLayout", "flat_layout", "join_flat"]

Placed = list[tuple[Section, tuple[int, int]]]  # sections in text order, with their spans


@attrs.frozen(eq=False)
class Assembled:
    """Stages 3–4's result: the text, the sections placed in it (in text order, with their
    spans), which layer supplied each placeholder, and what a budget cut."""

    text: str
    placed: Placed
    layers: Mapping[str, str]
    dropped: tuple[Dropped, ...] = ()

SlotKind = Literal["section", "standard", "default", "input", "missing"]
Slot = tuple[str, SlotKind, int]  # (name, kind, index of the step for a section, else -1)


@attrs.frozen(eq=False)
class BaseSlots:
    """Every name the base template uses, in order, with what supplies it."""

    slots: tuple[Slot, ...]
    names: frozenset[str]
    sections_only: bool  # every slot is a section: the common, fast case
    section_slots: Mapping[str, int]  # section name -> step index
    component_layers: FrozenDict  # every slot's layer when sections fill them all
    # What a runtime value that is not a declared input would replace (it is reported).
    overridable: Mapping[str, str]
    # A template of sections only, with no section of its own: each {{name}}'s step index, in
    # order (then the present sections alone decide its shape); None otherwise.
    flat: tuple[int, ...] | None = None


def _unknown(v: Variant, use: Use, schemas: tuple[str, ...], fields: tuple[str, ...],
             inputs: set[str]) -> Diagnostic:
    head = use.name.split(".")[0]
    return Diagnostic(
        "error", "placeholder-unknown",
        f"{v.template.source}:{use.line}: template names {{{{{use.name}}}}}, which is no "
        f"component, standard placeholder, default or declared input{not_in(schemas)}; it "
        "renders empty" +
        did_you_mean(head, [*fields, *v.components, *STANDARD, *v.placeholders, *inputs]),
        head)


def _slot(v: Variant, name: str, by_id: Mapping[str, int], components: Mapping[str, Component],
          inputs: set[str], diags: list[Diagnostic]) -> Slot:
    if name in by_id:
        return name, "section", by_id[name]
    if name in v.components or name in v.removed:
        # listed but unregistered (reported by its step), or removed by a section edit
        return name, "missing", -1
    if name in components:
        diags.append(Diagnostic(
            "error", "component-not-in-order",
            f"template of variant {v.id!r} uses component {name!r}, which is not in its "
            "component order; it renders empty", name))
        return name, "missing", -1
    kind: SlotKind = "standard" if name in STANDARD else "default" if name in v.placeholders \
        else "input" if name in inputs else "missing"  # missing: reported by base_slots
    return name, kind, -1


def _overridable(v: Variant, names: frozenset[str], steps: Sequence[Step]) -> dict[str, str]:
    out = {n: f"the variant's default for {{{{{n}}}}}" for n in v.placeholders}
    out.update((n, f"the standard placeholder {{{{{n}}}}}") for n in STANDARD)
    out.update((n, f"the value of {{{{{n}}}}} in the template") for n in names if n not in out)
    out.update((s.cid, f"the section of component {s.cid!r}") for s in steps)
    return out


def _used_sections(v: Variant, steps: Sequence[Step], slots: Sequence[Slot]
                   ) -> list[Diagnostic]:
    used = {name for name, kind, _ in slots if kind == "section"}
    return [Diagnostic("error", "component-not-in-template",
                       f"component {s.cid!r} is in the order of variant {v.id!r} but its "
                       "template has no {{" + s.cid + "}}; the section is dropped", s.cid)
            for s in steps if s.cid not in used]


def base_names(v: Variant, components: Mapping[str, Component]) -> Resolved:
    """The names of the base template's own scope, wherever they stand in it (a field of a
    structured input's items is not one)."""
    specs = {i.name: i for i in v.inputs}
    known = {*v.components, *components, *STANDARD, *v.placeholders, *specs}

    def top_scope(name: str) -> ItemScope:
        head, *rest = name.split(".")
        spec = specs.get(head)
        return SCALAR if spec is None else input_scope(spec, rest)
    return resolve_names(v.template, known, top_scope)


def base_slots(v: Variant, steps: Sequence[Step], components: Mapping[str, Component],
               diags: list[Diagnostic], unchecked: list[Diagnostic] | None = None
               ) -> BaseSlots:
    """Sort every name the base template uses; report unknown names and sections the
    template leaves out."""
    inputs = {i.name for i in v.inputs}
    by_id = {s.cid: i for i, s in enumerate(steps)}
    resolved = base_names(v, components)
    if unchecked is not None:
        unchecked.extend(unchecked_notes(v.template, resolved.unchecked, v.id))
    diags.extend(_unknown(v, use, schemas, fields, inputs)
                 for use, schemas, fields in resolved.unknown)
    slots = tuple(_slot(v, name, by_id, components, inputs, diags) for name in resolved.top)
    diags.extend(_used_sections(v, steps, slots))
    names = frozenset(n for n, _, _ in slots)
    sections = {name: idx for name, kind, idx in slots if kind == "section"}
    return BaseSlots(slots, names, len(sections) == len(slots), sections,
                     FrozenDict(dict.fromkeys((n for n, _, _ in slots), "component")),
                     _overridable(v, names, steps), _flat(v, sections, len(slots)))


def _flat(v: Variant, sections: Mapping[str, int], slots: int) -> tuple[int, ...] | None:
    order = flat_names(v.template) if len(sections) == slots else None
    return None if order is None else tuple(sections[n] for n in order)


# --- per request --------------------------------------------------------------------------

Scope = tuple[dict[str, Any], Mapping[str, str], bool]  # values, layer of each, overridden


def base_scope(base: BaseSlots, v: Variant, sections: Sequence[Section | None],
               request: Request) -> Scope:
    """The base template's values for a request, which layer supplied each, and whether a
    runtime value replaces a slot."""
    inputs = request.inputs
    override = bool(inputs) and not base.names.isdisjoint(inputs)
    if base.sections_only and not override:
        scope: dict[str, Any] = {}
        for name, _kind, idx in base.slots:
            s = sections[idx]
            if s is not None:
                scope[name] = s.text
        return scope, base.component_layers, False
    scope, layers = _slot_values(base, v, sections, request)
    return scope, layers, override


def _slot_value(v: Variant, name: str, kind: SlotKind, section: Section | None,
                request: Request) -> tuple[str | None, str]:
    if kind == "section":
        return (section.text if section is not None else None), "component"
    if kind == "standard":
        return STANDARD[name][1](request), "standard"
    if kind == "default":
        return v.placeholders[name], "default"
    return None, "missing"


def _slot_values(base: BaseSlots, v: Variant, sections: Sequence[Section | None],
                 request: Request) -> tuple[dict[str, Any], dict[str, str]]:
    inputs = request.inputs
    runtime = request.context.runtime
    scope: dict[str, Any] = {}
    layers: dict[str, str] = {}
    for name, kind, idx in base.slots:
        value, layer = _slot_value(v, name, kind, sections[idx] if idx >= 0 else None, request)
        if name in inputs:
            value = inputs[name]
            layer = "runtime" if name in runtime else "default"
            if layer == "runtime" and kind == "section":  # the client's text, fenced
                value = element("runtime_value", value, request.own_tags, name=name)
        if value is not None:
            scope[name] = value
        layers[name] = layer
    return scope, layers


FlatLayout = tuple[Layout, tuple[tuple[int, int], ...]]  # the layout; (op position, step index)


def flat_layout(layout: Layout, present: Sequence[int]) -> FlatLayout:
    """Where each present section sits in a flat template's layout (`present`: the step index
    of each collected text; a section used twice is placed where it first appears)."""
    seen: set[int] = set()
    positions = []
    for i, op in enumerate(layout):
        if not isinstance(op, str) and present[op] not in seen:
            seen.add(present[op])
            positions.append((i, present[op]))
    return layout, tuple(positions)


def join_flat(made: FlatLayout, sections: Sequence[Section | None], present: Sequence[int]
              ) -> tuple[str, Placed]:
    """A flat template's text for these sections, and each one's span."""
    layout, positions = made
    texts = [sections[i].text for i in present]  # type: ignore[union-attr]
    parts = filled(layout, texts)
    ends = list(accumulate(map(len, parts)))
    placed: Placed = [(sections[idx], (ends[i - 1] if i else 0, ends[i]))  # type: ignore[misc]
                      for i, idx in positions]
    return "".join(parts), placed


def place_sections(base: BaseSlots, layout: Layout, texts: Sequence[str], names: Sequence[str],
                   sections: Sequence[Section | None], layers: Mapping[str, str],
                   override: bool) -> tuple[str, Placed]:
    """The joined text, and each present section with its span (a slot used twice: the first
    place is the section's). A runtime value that replaces a slot is placed as a request-class
    section of its own (origin "runtime"), so it never sits inside the static or session
    block."""
    parts = filled(layout, texts)
    ends = list(accumulate(map(len, parts)))
    placed: Placed = []
    seen: set[str] = set()
    for i, op in enumerate(layout):
        if isinstance(op, str) or names[op] in seen:
            continue
        name = names[op]
        seen.add(name)
        span = (ends[i - 1] if i else 0, ends[i])
        section = _placed(base, name, texts[op], sections, override and
                          layers.get(name) == "runtime")
        if section is not None:
            placed.append((section, span))
    return "".join(parts), placed


def _placed(base: BaseSlots, name: str, text: str, sections: Sequence[Section | None],
            runtime: bool) -> Section | None:
    if runtime:
        return Section(name, text, "request", "runtime", 0, False)
    idx = base.section_slots.get(name, -1)
    return sections[idx] if idx >= 0 else None
