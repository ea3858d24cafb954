"""Every built-in variant × the standard contexts, snapshotted as plain .md files in snapshots/,
with each variant's default payload split (system prompt, first message) in the full context.

The files are the same bytes `promptc snapshot --update --builtins-only` writes (both render
through promptc._review.snapshot). A changed, missing or unused snapshot fails the run; accept a change
on purpose with `pytest --snapshot-update` (or `promptc snapshot --update --builtins-only`).
"""

from __future__ import annotations

from typing import Any

import pytest

from promptc import Compiler
from promptc._review.snapshot import load_matrix, render_case, render_split, render_tools

MATRIX = load_matrix()


@pytest.mark.parametrize("case", MATRIX.cases, ids=[c.id for c in MATRIX.cases])
def test_prompt(case: Any, builtins: Compiler, promptc_snapshot: Any) -> None:
    assert render_case(builtins, case) == promptc_snapshot


@pytest.mark.parametrize("case", MATRIX.split_cases, ids=[c.id for c in MATRIX.split_cases])
def test_default_payload_split(case: Any, builtins: Compiler, promptc_snapshot: Any) -> None:
    assert render_split(builtins, case) == promptc_snapshot


@pytest.mark.parametrize("case", MATRIX.tool_cases, ids=[c.id for c in MATRIX.tool_cases])
def test_native_tools(case: Any, builtins: Compiler, promptc_json_snapshot: Any) -> None:
    assert render_tools(builtins, case) == promptc_json_snapshot
