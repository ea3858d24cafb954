"""Which source a load error belongs to.

Names (`extends`, components, tools) resolve once every source is stacked, so an error found
then may be any source's. Each step of building the registry says whose data it is working on;
an error raised inside carries that source out, so a plugin at fault can be skipped (lenient,
with a diagnostic) while a fault of the project's own files stops the load.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["LayerFault", "blame"]


class LayerFault(Exception):
    """A load error, and the source it is blamed on (None: no one source)."""

    def __init__(self, error: BaseException, source: str | None) -> None:
        super().__init__(str(error))
        self.error = error
        self.source = source


@contextmanager
def blame(source: str) -> Iterator[None]:
    """Blame an error raised inside on `source`, unless an inner step already blamed one."""
    try:
        yield
    except LayerFault:
        raise
    except Exception as exc:  # a plugin's data may break promptc's code in any way
        raise LayerFault(exc, source) from None
