"""Variants: a prompt written for one model family, as data (variant.toml + template.md).

A variant says when it applies (matcher, priority, fallback), which components run in which order,
which tools it offers and how (text or native), and its placeholder defaults and runtime inputs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import attrs

from ._errors import VariantConfigError
from ._frozen import EMPTY, FrozenDict
from ._matchers import NEVER, Matcher
from ._schema import _describe
from ._suggest import did_you_mean
from ._template import Template

__all__ = ["Variant", "InputSpec", "ComponentSettings", "VARIANT_KEYS", "check_variant_table",
           "parse_inputs", "parse_component_settings", "INPUT_TYPES", "ID_PATTERN"]

import re

ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,63}$")
INPUT_TYPES = ("string", "number", "boolean", "select", "date")
ToolMode = Literal["text", "native", "auto"]
ActiveToolMode = Literal["text", "native"]  # what "auto" comes to for one provider


@attrs.frozen
class InputSpec:
    """A runtime value a variant accepts: validated at compile time, rendered as a form field."""

    name: str
    type: str = "string"
    required: bool = False
    default: Any = None
    options: tuple[str, ...] = ()
    label: str = ""
    description: str = ""
    origin: str = ""


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
        if key not in VARIANT_KEYS:
            raise VariantConfigError("unknown key" + did_you_mean(key, VARIANT_KEYS),
                                     source=source, field=key)
        tp = VARIANT_KEYS[key]
        if not isinstance(value, tp) or (tp is int and isinstance(value, bool)):
            raise VariantConfigError(f"must be {_type_name(tp)}, got {_describe(value)}",
                                     source=source, field=key)
        if isinstance(value, list):  # tp is list: no other key type admits a list
            for i, item in enumerate(value):
                if not isinstance(item, str):
                    raise VariantConfigError("must be a list of strings", source=source,
                                             field=f"{key}[{i}]")
            if len(set(value)) != len(value):
                dup = next(v for i, v in enumerate(value) if v in value[:i])
                raise VariantConfigError(f"lists {dup!r} twice", source=source, field=key)
    if "tool_mode" in data and data["tool_mode"] not in ("text", "native", "auto"):
        raise VariantConfigError("must be 'text', 'native' or 'auto'", source=source,
                                 field="tool_mode")
    for key in ("placeholders",):
        for name, value in data.get(key, {}).items():
            if not isinstance(value, str):
                raise VariantConfigError("placeholder defaults must be strings", source=source,
                                         field=f"{key}.{name}")
    if "priority" in data and not -1_000_000 <= data["priority"] <= 1_000_000:
        raise VariantConfigError("must be between -1000000 and 1000000", source=source,
                                 field="priority")


_INPUT_KEYS = ("type", "required", "default", "options", "label", "description")


def parse_inputs(table: Mapping[str, Any], source: str) -> dict[str, InputSpec]:
    out: dict[str, InputSpec] = {}
    for name, spec in table.items():
        field = f"inputs.{name}"
        if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", name):
            raise VariantConfigError("input names must be identifiers", source=source,
                                     field=field)
        if not isinstance(spec, Mapping):
            raise VariantConfigError("must be a table", source=source, field=field)
        for key in spec:
            if key not in _INPUT_KEYS:
                raise VariantConfigError("unknown key" + did_you_mean(key, _INPUT_KEYS),
                                         source=source, field=f"{field}.{key}")
        tp = spec.get("type", "string")
        if tp not in INPUT_TYPES:
            raise VariantConfigError(f"type must be one of {list(INPUT_TYPES)}" +
                                     did_you_mean(str(tp), INPUT_TYPES), source=source,
                                     field=f"{field}.type")
        options = spec.get("options", [])
        if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
            raise VariantConfigError("must be a list of strings", source=source,
                                     field=f"{field}.options")
        if tp == "select" and not options:
            raise VariantConfigError("a select input needs options", source=source,
                                     field=f"{field}.options")
        if tp != "select" and options:
            raise VariantConfigError("only select inputs take options", source=source,
                                     field=f"{field}.options")
        for key in ("required",):
            if key in spec and not isinstance(spec[key], bool):
                raise VariantConfigError("must be true or false", source=source,
                                         field=f"{field}.{key}")
        for key in ("label", "description"):
            if key in spec and not isinstance(spec[key], str):
                raise VariantConfigError("must be a string", source=source,
                                         field=f"{field}.{key}")
        default = spec.get("default")
        if default is not None:
            from ._inputs import check_value
            problem = check_value(tp, tuple(options), default)
            if problem:
                raise VariantConfigError(f"default {problem}", source=source,
                                         field=f"{field}.default")
        out[name] = InputSpec(name=name, type=tp, required=spec.get("required", False),
                              default=default, options=tuple(options),
                              label=spec.get("label", ""), description=spec.get("description", ""),
                              origin=source)
    return out


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
            else:
                raise VariantConfigError("unknown key" + did_you_mean(key, ("priority",
                                         "required")), source=source, field=f"{field}.{key}")
        out[cid] = ComponentSettings(priority=spec.get("priority"), required=spec.get("required"))
    return out
