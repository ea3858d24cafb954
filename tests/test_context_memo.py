"""The compiler's memo of contexts from plain data (promptc/_compile/contexts.py): its key says
the data exactly, part lists written on their own included, and a new session's part lists
come back as the records built before."""

from __future__ import annotations

from typing import Any

import pytest

from promptc import Compiler, ContextError

TOOL = {"name": "query", "description": "Run a query.",
        "input_schema": {"type": "object", "properties": {"sql": {"type": "string"}}}}


def _data(name: str, **extra: Any) -> dict[str, Any]:
    return {"cwd": "/w", "mcp_servers": [{"name": name, "command": "db", "tools": [dict(TOOL)]}],
            **extra}


@pytest.fixture(scope="module")
def compiler() -> Compiler:
    return Compiler.default(project=False, user=False)


def test_a_part_list_and_none_in_its_place_are_different_data(compiler: Compiler) -> None:
    with_list = compiler.context({"skills": [{"name": "s", "description": "d"}]})
    assert compiler.context({"skills": None}).skills == ()
    assert [s.name for s in with_list.skills] == ["s"]


def test_the_same_tools_on_another_server_make_another_context(compiler: Compiler) -> None:
    two = [{"name": "a", "tools": [dict(TOOL)]}, {"name": "b"}]
    swapped = [{"name": "a"}, {"name": "b", "tools": [dict(TOOL)]}]
    first = compiler.context({"mcp_servers": two})
    second = compiler.context({"mcp_servers": swapped})
    assert [len(s.tools) for s in first.mcp_servers] == [1, 0]
    assert [len(s.tools) for s in second.mcp_servers] == [0, 1]


def test_a_new_session_gets_the_tool_records_built_before(compiler: Compiler) -> None:
    contexts = [compiler.context(_data(f"db-{i}")) for i in range(4)]
    tools = [c.mcp_servers[0].tools for c in contexts]
    assert tools[1] is tools[2] is tools[3]  # kept from the list's second sight
    assert [c.mcp_servers[0].name for c in contexts] == ["db-0", "db-1", "db-2", "db-3"]


def test_equal_data_is_one_context_and_changed_tools_are_not(compiler: Compiler) -> None:
    seen = [compiler.context(_data("x")) for _ in range(3)]
    assert seen[1] is seen[2]  # kept from the data's second sight
    changed = _data("x")
    changed["mcp_servers"][0]["tools"][0]["description"] = "Run a read-only query."
    assert compiler.context(changed).mcp_servers[0].tools[0].description == \
        "Run a read-only query."


def test_a_surrogate_in_a_part_list_is_refused_naming_its_path(compiler: Compiler) -> None:
    bad = _data("x")
    bad["mcp_servers"][0]["tools"][0]["description"] = "\ud800"
    with pytest.raises(ContextError, match="lone surrogate") as err:
        compiler.context(bad)
    assert "mcp_servers[0].tools[0].description" in str(err.value)
