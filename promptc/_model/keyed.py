"""Records compared through one prebuilt, typed key, and built straight from plain data.

Clients build a new, equal context for every request, and promptc's first step is to find the
equal context it already knows. Comparing attrs records field by field runs Python code for
every nested record; comparing one prebuilt tuple of tuples runs in C. `keyed` writes, for each
record class, the code that builds that key, and a builder from a plain table that does what the
attrs constructor does (converters, then checks) without its calls per field: a new session's
records are built on every request that brings one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import attrs

from .._base.errors import PromptcError
from .._base.frozen import FrozenDict
from .._base.surrogates import surrogate_in

__all__ = ["Keyed", "keyed", "features_key", "frozen_key", "schema_key", "KeyKind"]


class Keyed:
    """Equality and hashing through one nested, typed tuple built at construction."""

    __slots__ = ("_key", "_h")  # filled by __attrs_post_init__; not attrs fields
    __key_fields__: ClassVar[tuple[str, ...]]  # set by @keyed: the attrs fields, in order
    __field_set__: ClassVar[frozenset[str]]
    __plain__: ClassVar[Callable[[Mapping[str, Any]], Any]]  # set by @keyed
    _key: tuple[Any, ...]
    _h: int | None

    def __attrs_post_init__(self) -> None:  # written per class by @keyed
        raise TypeError(f"{type(self).__name__} needs @keyed")

    def __eq__(self, other: object) -> bool:
        if other is self:
            return True
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._key == other._key

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self) -> int:
        h = self._h
        if h is None:
            h = hash((self.__class__.__name__, self._key))
            object.__setattr__(self, "_h", h)
        return h

    @property
    def key(self) -> tuple[Any, ...]:
        """The record's complete, typed identity (what caches key on)."""
        return self._key


def features_key(value: FrozenDict) -> Any:
    """The features' part of a key: their (name, switch) pairs, in order (every switch is a
    boolean, so the pairs are typed as they are)."""
    return tuple(value._items().items())  # the table itself: a view would iterate in Python


def frozen_key(value: FrozenDict) -> Any:
    """A table's part of a record key, always of one kind per field: its flat tuple. (Taking
    the JSON text when a hash had cached it made equal contexts unequal: `PromptContext()`
    differed from itself once the shared empty table had been hashed.)"""
    return value.flat


def schema_key(value: FrozenDict) -> Any:
    """A schema's part of a key: its canonical JSON text (schemas are kept packed)."""
    return value.json_text


# How a field whose converter is listed enters the key: "records" (a tuple of Keyed records, by
# their keys), "schema", "features" or "frozen" (the functions above); others as they are.
KeyKind = str
_KEY_PARTS = {"records": "tuple([x._key for x in self.{name}])",
              "schema": "schema_key(self.{name})", "features": "features_key(self.{name})",
              "frozen": "frozen_key(self.{name})"}


def _key_source(fields: list[attrs.Attribute[Any]], kinds: Mapping[Any, KeyKind]) -> str:
    parts = [_KEY_PARTS.get(kinds.get(f.converter, ""), "self.{name}").format(name=f.name)
             for f in fields]
    return ("def __attrs_post_init__(self):\n"
            f"    _set(self, '_key', ({', '.join(parts)},))\n"
            "    _set(self, '_h', None)\n")


def _field_source(f: attrs.Attribute[Any], text: Any, namespace: dict[str, Any]) -> list[str]:
    """Reading one field from the table `d`: its default when absent (already converted and
    valid), else converted then checked, as the attrs constructor does."""
    name = f.name
    if f.default is attrs.NOTHING:
        lines = [f"    v_{name} = d['{name}']"]
        pad = "    "
    else:
        if isinstance(f.default, attrs.Factory):  # type: ignore[arg-type]
            raise TypeError(f"{name}: a default made per record is not supported here")
        convert: Any = f.converter
        namespace[f"D_{name}"] = convert(f.default) if convert is not None else f.default
        lines = [f"    v_{name} = d.get('{name}', M)", f"    if v_{name} is M:",
                 f"        v_{name} = D_{name}", "    else:"]
        pad = "        "
    if f.converter is not None:
        namespace[f"C_{name}"] = f.converter
        lines.append(f"{pad}v_{name} = C_{name}(v_{name})")
    if f.validator is text:
        lines.append(f"{pad}if v_{name}.__class__ is not str or not v_{name}.isascii() and "
                     f"S(v_{name}) is not None: return None")
    elif f.validator is not None:
        namespace[f"V_{name}"], namespace[f"A_{name}"] = f.validator, f
        lines.append(f"{pad}V_{name}(None, A_{name}, v_{name})")
    if len(lines) == 4:
        lines.append(f"{pad}pass")
    return lines


def _plain_source(cls: type, fields: list[attrs.Attribute[Any]], text: Any,
                  namespace: dict[str, Any]) -> str:
    body = [line for f in fields for line in _field_source(f, text, namespace)]
    sets = [f"    _set(o, '{f.name}', v_{f.name})" for f in fields]
    lines = [*body, "    o = _new(cls)", *sets, "    o.__attrs_post_init__()", "    return o"]
    return "\n".join(["def __plain__(d):", " try:", *(" " + line for line in lines),
                      " except (PromptcError, TypeError, ValueError, KeyError):",
                      "     return None"])


def keyed(kinds: Mapping[Any, KeyKind], text: Any) -> Callable[[type], type]:
    """A class decorator for attrs records on `Keyed`: a key builder written out for their
    fields (a loop over fields costs about twice as much), and `cls.__plain__(table)`, the
    record for a plain table of known keys, or None when anything in it is not as the
    constructor would take it (the constructor then says what); written on its first use.
    `kinds`: how a field enters the key, by its converter; `text`: the validator of a text
    field, checked inline."""
    def decorate(cls: type) -> type:
        fields = [f for f in attrs.fields(cls) if not f.name.startswith("_")]
        cls.__key_fields__ = tuple(f.name for f in fields)  # type: ignore[attr-defined]
        cls.__field_set__ = frozenset(cls.__key_fields__)  # type: ignore[attr-defined]
        namespace: dict[str, Any] = {"_set": object.__setattr__, "frozen_key": frozen_key,
                                     "schema_key": schema_key, "features_key": features_key}
        exec(compile(_key_source(fields, kinds), f"<promptc record key {cls.__name__}>",
                     "exec"), namespace)  # noqa: S102
        cls.__attrs_post_init__ = namespace["__attrs_post_init__"]  # type: ignore[attr-defined]

        def first_plain(table: Mapping[str, Any]) -> Any:
            made: dict[str, Any] = {"_set": object.__setattr__, "_new": object.__new__,
                                    "cls": cls, "M": object(), "PromptcError": PromptcError,
                                    "S": surrogate_in}
            source = _plain_source(cls, fields, text, made)
            exec(compile(source, f"<promptc record {cls.__name__}>", "exec"),  # noqa: S102
                 made)
            cls.__plain__ = staticmethod(made["__plain__"])  # type: ignore[attr-defined]
            return made["__plain__"](table)
        cls.__plain__ = staticmethod(first_plain)  # type: ignore[attr-defined]
        return cls
    return decorate
