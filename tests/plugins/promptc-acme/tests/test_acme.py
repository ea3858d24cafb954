"""The plugin's own tests, written with promptc's pytest plugin (`promptc.testing`).

With promptc and this package installed (`pip install -e . pytest syrupy`), run `pytest` here.
The first time, `pytest --snapshot-update` writes `tests/snapshots/*.md`; commit them, and every
later run fails when a rendered prompt changes, showing the difference.

Fixtures used (no import needed, pytest loads them from promptc's `pytest11` entry point):
- `promptc_compiler`: built-ins + installed plugins, without your own user or project folders;
- `promptc_context`: standard contexts by name ("full", "plan", "minimal", …), fields changeable;
- `promptc_snapshot`: syrupy's snapshot, one plain `.md` file per parameter id.
"""

from __future__ import annotations

import pytest

from promptc import ProviderInfo
from promptc.testing import assert_renders_cleanly

MODELS = {
    "acme-coder-2": ProviderInfo(provider="acme", model="acme-coder-2"),
    "acme-coder-2-mini": ProviderInfo(provider="openrouter", model="acme/acme-coder-2-mini"),
}


@pytest.mark.parametrize("model", sorted(MODELS))
def test_acme_models_route_to_acme(promptc_compiler, model):
    assert promptc_compiler.resolve(MODELS[model]).variant.id == "acme"


def test_other_models_do_not(promptc_compiler):
    assert promptc_compiler.resolve(ProviderInfo("openai", "acme-like-9")).variant.id != "acme"


@pytest.mark.parametrize("model", sorted(MODELS))
def test_renders_cleanly(promptc_compiler, model):
    # Strict render in every standard context: no diagnostic, no leftover {{…}}, no HTML escape,
    # no empty header or dangling separator.
    assert_renders_cleanly(promptc_compiler, "acme", MODELS[model])


def test_sections_come_from_this_plugin(promptc_compiler, promptc_context):
    prompt = promptc_compiler.compile(MODELS["acme-coder-2"], promptc_context("full"), strict=True)
    origins = {s.id: s.origin for s in prompt.sections}
    assert origins["agent_role"].startswith("plugin:acme:")
    assert origins["acme_notes"].startswith("plugin:acme:")
    assert "sandbox_snapshot" in prompt.tools.names


def test_shell_is_filled_only_when_the_client_gives_none(promptc_compiler, promptc_context):
    acme = MODELS["acme-coder-2"]
    filled = promptc_compiler.compile(acme, promptc_context("minimal"), strict=True)
    assert 'shell="/bin/sh"' in filled.text
    given = promptc_compiler.compile(acme, promptc_context("full", shell="/bin/zsh"), strict=True)
    assert 'shell="/bin/zsh"' in given.text


# Snapshot ids name the files (tests/snapshots/<id>.md): keep them free of "/" and ":".
SNAPSHOTS = {
    "acme-full": ("acme-coder-2", "full"),
    "acme-mini-plan": ("acme-coder-2-mini", "plan"),
}


@pytest.mark.parametrize("case", sorted(SNAPSHOTS))
def test_prompt_snapshot(case, promptc_compiler, promptc_context, promptc_snapshot):
    model, context = SNAPSHOTS[case]
    prompt = promptc_compiler.compile(MODELS[model], promptc_context(context), strict=True)
    assert prompt.text == promptc_snapshot
