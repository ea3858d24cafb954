"""promptc plugin for the Acme Coder models (an example of every kind of contribution).

- `promptc_template_folders`: the `acme` variant, as data shipped inside this package;
- `promptc_components`: `acme_notes`, a section computed in Python;
- `promptc_tools`: the `sandbox_snapshot` tool;
- `promptc_contribute_context`: the sandbox's shell, when the client does not say which.

promptc imports this module through the entry point `acme = "promptc_acme"` (group `promptc`) and
calls each function marked `@hookimpl` whose name is a promptc hook.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from promptc import Component, PromptContext, ProviderInfo, Variant, hookimpl, normalize_model_id

__all__ = ["DATA", "SANDBOX_SHELL"]

DATA = Path(__file__).parent / "data"

# Acme models run their commands in the Acme sandbox, whose only shell is a POSIX sh.
SANDBOX_SHELL = "/bin/sh"


# --- load time: called once, when a promptc Compiler is built ------------------------------------

@hookimpl
def promptc_template_folders() -> list[Path]:
    """`data/` is laid out like promptc's own folders: `variants/acme/…`."""
    return [DATA]


_NOTES = """\
# Working with the Acme sandbox

- Every command runs in a disposable Linux sandbox with a copy of the repository. Files you change there are what the user reviews and merges; nothing outside the repository copy is kept.
- The sandbox has no network access except the package registries of the project's languages. Do not plan steps that need other hosts.
- In act mode, before a change that is hard to undo by hand (a bulk rename, a code generator run, a dependency upgrade), record a checkpoint with sandbox_snapshot so it can be rolled back in one step."""

_MINI = """
- You are the compact Acme model: plan in short steps, read only the parts of large files you need, and check each step before starting the next."""


def acme_notes(variant: Variant, context: PromptContext) -> str | None:
    """The `acme_notes` section. Depends only on the model (never on the request), so it is
    computed once per model and cached as a static section: hence `reads=()` below."""
    model = normalize_model_id(context.provider.model) if context.provider else ""
    mini = "mini" in model.split("-")
    return _NOTES + (_MINI if mini else "") + "\n"


@hookimpl
def promptc_components() -> list[Component]:
    return [Component(id="acme_notes", function=acme_notes, reads=())]


@hookimpl
def promptc_tools() -> list[dict[str, Any]]:
    """Shaped like a `components/tools/<name>.toml` file."""
    return [{
        "name": "sandbox_snapshot",
        "description": (
            "Record a checkpoint of the files in the Acme sandbox, so that a change which is "
            "hard to undo by hand can be rolled back in one step. Returns the checkpoint's id. "
            "A checkpoint holds files only: running processes and their state are not kept."),
        "modes": ["act"],
        "parameters": [{
            "name": "label",
            "type": "string",
            "required": True,
            "instruction": "A few words naming what the checkpoint protects; shown when "
                           "checkpoints are listed.",
            "usage": "before upgrading the ORM",
        }],
    }]


# --- per request: called on every build ----------------------------------------------------------

def _is_acme(provider: ProviderInfo | None) -> bool:
    if provider is None:
        return False
    return provider.provider == "acme" or normalize_model_id(provider.model).startswith("acme-")


@hookimpl
def promptc_contribute_context(context: PromptContext, provider: ProviderInfo
                               ) -> dict[str, str] | None:
    """Tell the model which shell it has when the client left `shell` empty (Acme models only).

    promptc fills only empty fields: a shell the client gave always wins."""
    if context.shell or not _is_acme(provider):
        return None
    return {"shell": SANDBOX_SHELL}
