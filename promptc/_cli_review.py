"""Review commands (snapshot, diff, new-variant): registered on the main parser."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

__all__ = ["add_review_commands"]


def add_review_commands(sub: Any, commands: dict[str, Callable[[argparse.Namespace], int]],
                        add_target: Callable[..., None], add_sources: Callable[..., None]) -> None:
    return None
