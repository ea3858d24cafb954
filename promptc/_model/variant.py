"""Variants: a prompt written for one model family, as data (variant.toml + template.md).

A variant says when it applies (matcher, priority, fallback), which components run in which order,
which tools it offers and how (text or native), and its placeholder defaults and runtime inputs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import attrs

import re

from .._base.errors import VariantConfigError
from .._base.frozen import EMPTY, FrozenDict
from .._base.record_builder import describe
from .._base.suggest import unknown_key
from .._text.template import Template
from .edits import EDIT_KEYS, edit_specs
from .inputs import InputSpec
from .matchers import NEVER, Matcher
from .provider import ProviderInfo

__all__ = ["Variant", "ComponentSettings", "VARIANT_KEYS", "check_variant_table",
           "parse_component_settings", "tool_mode_of", "ToolMode", "ActiveToolMode",
           "ToolModeChoice", "choose_tool_mode", "ID_PATTERN"]

ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,63}$")
ToolMode = Literal["text", "native", "auto"]
ActiveToolMode = Literal["text", "native"]  # what "auto" comes to for one provider


@attrs.frozen
class ComponentSettings:
    """Per-variant budget settings for one component (override the component's own)."""

    priority: int | None = None
    required: bool | None = None


@attrs.frozen
class Variant:
    """A fully resolved variant (its `extends` chain already applied)."""

    id: str
    template: Template
    family: str = "generic"
    description: str = ""
    priority: int = 100
    matcher: Matcher = NEVER
    fallback: bool = False
    extends: str | None = None
    components: tuple[str, ...] = ()
    component_templates: FrozenDict = EMPTY  # component id -> Template (this variant's overrides)
    component_settings: FrozenDict = EMPTY  # component id -> ComponentSettings
    placeholders: FrozenDict = EMPTY
    tools: tuple[str, ...] = ()
    tool_overrides: FrozenDict = EMPTY  # tool name -> ToolSpec (this variant's overrides)
    labels: tuple[str, ...] = ()
    tool_mode: ToolMode = "auto"
    inputs: tuple[InputSpec, ...] = ()
    source: str = "builtin"
    path: str = ""
    origins: FrozenDict = EMPTY  # "template" / "variant.toml" -> where it came from
    tool_specs: tuple[Any, ...] = attrs.field(default=(), eq=False, repr=False)
    # section edits (see edits.py): component id -> its SectionEdits, the parent's first
    edits: FrozenDict = EMPTY
    removed: tuple[str, ...] = ()  # sections an edit removed from what the parent has
    # the `extends` chain, this variant first: (id, source, variant.toml path) each
    lineage: tuple[tuple[str, str, str], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "family": self.family, "priority": self.priority,
                "source": self.source, "extends": self.extends, "fallback": self.fallback,
                "description": self.description, "labels": list(self.labels),
                "tool_mode": self.tool_mode, "match": self.matcher.description,
                "path": self.path}


VARIANT_KEYS = {
    "id": str, "family": str, "description": str, "priority": int, "fallback": bool,
    "extends": str, "template": str, "tool_mode": str, "components": list, "tools": list,
    "labels": list, "placeholders": dict, "match": dict, "component": dict, "inputs": dict,
}


def _type_name(tp: type) -> str:
    return {str: "a string", int: "an integer", bool: "a boolean", list: "a list",
            dict: "a table"}[tp]


def check_variant_table(data: Mapping[str, Any], source: str) -> None:
    """Reject unknown keys and wrong value types in a variant.toml, naming the key."""
    for key, value in data.items():
        _check_variant_key(key, value, source)
    if "tool_mode" in data and data["tool_mode"] not in ("text", "native", "auto"):
        raise VariantConfigError("must be 'text', 'native' or 'auto'", source=source,
                                 field="tool_mode")
    for name, value in data.get("placeholders", {}).items():
        if not isinstance(value, str):
            raise VariantConfigError("placeholder defaults must be strings", source=source,
                                     field=f"placeholders.{name}")
    if "priority" in data and not -1_000_000 <= data["priority"] <= 1_000_000:
        raise VariantConfigError("must be between -1000000 and 1000000", source=source,
                                 field="priority")
    edit_specs(data, source)


def _check_variant_key(key: str, value: Any, source: str) -> None:
    """A known key with a value of its type (a list: of distinct strings)."""
    if key not in VARIANT_KEYS:
        raise VariantConfigError(unknown_key(key, VARIANT_KEYS), source=source, field=key)
    tp = VARIANT_KEYS[key]
    if not isinstance(value, tp) or (tp is int and isinstance(value, bool)):
        raise VariantConfigError(f"must be {_type_name(tp)}, got {describe(value)}",
                                 source=source, field=key)
    if isinstance(value, list):  # tp is list: no other key type admits a list
        _check_string_list(key, value, source)


def _check_string_list(key: str, value: list[Any], source: str) -> None:
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise VariantConfigError("must be a list of strings", source=source,
                                     field=f"{key}[{i}]")
    if len(set(value)) != len(value):
        dup = next(v for i, v in enumerate(value) if v in value[:i])
        raise VariantConfigError(f"lists {dup!r} twice", source=source, field=key)


def parse_component_settings(table: Mapping[str, Any], source: str
                             ) -> dict[str, ComponentSettings]:
    out = {}
    for cid, spec in table.items():
        field = f"component.{cid}"
        if not isinstance(spec, Mapping):
            raise VariantConfigError("must be a table", source=source, field=field)
        for key, value in spec.items():
            if key == "priority":
                if not isinstance(value, int) or isinstance(value, bool):
                    raise VariantConfigError("must be an integer", source=source,
                                             field=f"{field}.priority")
            elif key == "required":
                if not isinstance(value, bool):
                    raise VariantConfigError("must be true or false", source=source,
                                             field=f"{field}.required")
            elif key not in EDIT_KEYS:  # section edits: checked by edit_specs
                allowed = ("priority", "required", *EDIT_KEYS)
                raise VariantConfigError(unknown_key(key, allowed), source=source,
                                         field=f"{field}.{key}")
        out[cid] = ComponentSettings(priority=spec.get("priority"), required=spec.get("required"))
    return out


@attrs.frozen
class ToolModeChoice:
    """Which tool mode a request gets, and which link of the chain decided it.

    The chain, first link that has an answer wins: the client's explicit choice
    (`native_tools` set on the ProviderInfo it passed) → the variant's pinned mode (a variant
    whose prose is written for one mode says `tool_mode = "text"` or `"native"`) → the model's
    capability (`native_tools` from the model data) → text.
    """

    mode: ActiveToolMode
    decided_by: Literal["client", "variant", "model", "default"]
    reason: str
    overrides_variant: bool = False  # the client's choice differs from the variant's pinned mode

    def to_dict(self) -> dict[str, Any]:
        return {"mode": self.mode, "decided_by": self.decided_by, "reason": self.reason,
                "overrides_variant": self.overrides_variant}


def choose_tool_mode(variant: Variant, provider: ProviderInfo,
                     client_choice: bool | None = None) -> ToolModeChoice:
    """Walk the chain (see ToolModeChoice). `provider` is the resolved provider; `client_choice`
    is `native_tools` as the client gave it (None: the client did not say)."""
    pinned = variant.tool_mode
    if client_choice is not None:
        mode: ActiveToolMode = "native" if client_choice else "text"
        clash = pinned != "auto" and pinned != mode
        return ToolModeChoice(mode, "client", f"the client set native_tools = "
                              f"{'true' if client_choice else 'false'}" +
                              (f" (variant {variant.id!r} is written for {pinned} tools)"
                               if clash else ""), clash)
    if pinned != "auto":
        return ToolModeChoice(pinned, "variant",
                              f"variant {variant.id!r} is written for {pinned} tools")
    if provider.native_tools is not None:
        mode = "native" if provider.native_tools else "text"
        return ToolModeChoice(mode, "model", f"model {provider.model!r} "
                              f"{'calls' if provider.native_tools else 'does not call'} "
                              "tools natively (model data)")
    return ToolModeChoice("text", "default", "nothing is known of the model's tool calling")


def tool_mode_of(variant: Variant, provider: ProviderInfo,
                 client_choice: bool | None = None) -> ActiveToolMode:
    """The mode the chain arrives at (see `choose_tool_mode`)."""
    return choose_tool_mode(variant, provider, client_choice).mode
