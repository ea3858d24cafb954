"""Cache blocks: the prompt split where its cache class rises (static → session → request)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import attrs

from .._model.cache import RANK, CacheClass

__all__ = ["Block", "split_blocks", "static_end"]


@attrs.frozen
class Block:
    """A run of the prompt with one cache class; blocks in order rebuild the text exactly."""

    cache: CacheClass
    text: str
    sections: tuple[str, ...]


class Cached(Protocol):
    """What splitting needs of a section (promptc's Section has it)."""

    @property
    def id(self) -> str: ...

    @property
    def cache(self) -> CacheClass: ...


def split_blocks(text: str, sections: Sequence[Cached],
                 spans: Sequence[tuple[int, int]]) -> tuple[Block, ...]:
    """A section that comes after a more volatile one is cached with it: the class of a block is
    the most volatile class seen so far. Each boundary sits at the end of the last section of
    the run, so literal glue belongs to the block after it and the static prefix does not
    depend on what follows."""
    blocks: list[Block] = []
    start = 0
    current: CacheClass = "static"
    members: list[str] = []
    last_end = 0
    for section, (_s_start, s_end) in zip(sections, spans):
        cls = section.cache if RANK[section.cache] > RANK[current] else current
        if cls != current:
            if members:
                blocks.append(Block(current, text[start:last_end], tuple(members)))
                start = last_end
            current = cls
            members = []
        members.append(section.id)
        last_end = s_end
    blocks.append(Block(current, text[start:], tuple(members)))
    return tuple(b for b in blocks if b.text or b.sections)


def static_end(text: str, sections: Sequence[Cached], spans: Sequence[tuple[int, int]]) -> int:
    """Where the static block of `split_blocks` ends (0: the prompt has none), found without
    making the blocks: at the end of the last section before the first that is not static,
    or the whole text when every section is static (a request's split needs only this)."""
    end = 0
    for section, (_start, s_end) in zip(sections, spans):
        if section.cache != "static":
            return end
        end = s_end
    return len(text)
