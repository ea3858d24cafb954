"""A model-family variant shipped as its own package, built on a project's prompts: the
`support-mistral` variant extends the support assistant's `support-claude` (a project's
variant, not a built-in one), keeps its `policies` and `customer` sections and its
`lookup_order` tool, and adds a section of its own (`data/components/brevity.md`)."""

from __future__ import annotations

from pathlib import Path

from promptc import hookimpl

DATA = Path(__file__).parent / "data"


@hookimpl
def promptc_template_folders() -> list[Path]:
    return [DATA]
