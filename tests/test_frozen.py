"""Frozen data: hashable, comparable by value, safe at any depth."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from promptc import McpTool, PromptContext
from promptc._base.frozen import FreshCopies, FrozenDict, compact_json, freeze, thaw

json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.floats(-2, 2),
              st.text(max_size=4)),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner,
                                                                max_size=3),
    max_leaves=15)


@settings(deadline=None)
@given(json_values, json_values)
def test_flat_keys_agree_with_json_equality(a: object, b: object) -> None:
    fa, fb = freeze({"v": a}), freeze({"v": b})
    same_json = _json_equal(a, b)
    assert (fa.flat == fb.flat) is same_json
    if same_json:
        assert hash(McpTool("t", input_schema={"v": a})) == \
            hash(McpTool("t", input_schema={"v": b}))
    assert thaw(fa) == {"v": a}


def _json_equal(a: object, b: object) -> bool:
    """Equality as JSON sees it: 1, 1.0 and true are different values."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_json_equal(a[k], b[k]) for k in a) \
            if set(a) == set(b) and len(a) == len(b) else False
    if isinstance(a, list):
        return len(a) == len(b) and all(_json_equal(x, y) for x, y in zip(a, b))
    return a == b


def test_key_order_and_types_make_different_keys() -> None:
    a, b = freeze({"x": 1, "y": 2}), freeze({"y": 2, "x": 1})
    assert dict(a) == dict(b)  # as plain mappings they are equal
    assert a != b and a.flat != b.flat  # but they render differently, so they are other keys
    assert freeze({"x": 1}) != freeze({"x": True}) != freeze({"x": 1.0})
    assert len({freeze({"x": 1}), freeze({"x": True}), freeze({"x": 1.0})}) == 3


def test_contexts_with_equal_content_are_one_key() -> None:
    def make() -> PromptContext:
        return PromptContext(features={"browser": True}, mcp_servers=[
            {"name": "s", "tools": [{"name": "t", "input_schema": {"type": "object",
                                                                   "properties": {}}}]}])
    assert make() == make() and hash(make()) == hash(make())
    assert make() != PromptContext(features={"browser": False},
                                   mcp_servers=make().mcp_servers)
    assert isinstance(make().features, FrozenDict)


@settings(deadline=None)
@given(json_values)
def test_fresh_copies_are_equal_typed_and_unshared(value: object) -> None:
    copies = FreshCopies({"v": value})
    a, b = copies(), copies()
    assert _json_equal(a, {"v": value}) and _json_equal(b, {"v": value})
    assert not _shared_containers(a, b)


def _nested(depth: int) -> object:
    value: object = {"leaf": 1}
    for i in range(depth):
        value = {"k": [value, i]} if i % 2 else {"k": value}
    return value


def _shared_containers(a: object, b: object) -> bool:
    """Whether two copies share a dict or list anywhere (found without recursion)."""
    ids: set[int] = set()
    for root, collect in ((a, True), (b, False)):
        stack = [root]
        while stack:
            node = stack.pop()
            if isinstance(node, (dict, list)):
                if collect:
                    ids.add(id(node))
                elif id(node) in ids:
                    return True
                stack.extend(node.values() if isinstance(node, dict) else node)
    return False


def test_fresh_copies_keep_big_integers_lone_surrogates_and_deep_nesting() -> None:
    for value in ({"big": 2**64, "neg": -(2**63) - 1, "huge": 10**30},
                  {"s": "\ud800 lone"}, _nested(1_100), _nested(5_000)):
        copies = FreshCopies(value)
        a, b = copies(), copies()
        assert compact_json(a) == compact_json(value) == compact_json(b)
        assert not _shared_containers(a, b)
    big = FreshCopies({"n": 2**64})()["n"]
    assert type(big) is int and big == 2**64
    nan = FreshCopies([float("nan")])()[0]
    assert type(nan) is float and nan != nan


def test_fresh_copies_share_no_table_or_list_with_the_value_or_each_other() -> None:
    shared = {"x": [1, "s"]}
    for value in ({"a": shared, "b": shared, "c": [shared, []]}, [shared, [shared]], [[]],
                  {"e": {}}, [{"only": [{"deep": {}}]}]):
        copies = FreshCopies(value)
        a, b = copies(), copies()
        assert compact_json(a) == compact_json(value) == compact_json(b)
        assert not _shared_containers(a, b) and not _shared_containers(value, a)
        seen: list[int] = []  # within one copy too: a table the value holds twice is two
        stack: list[object] = [a]
        while stack:
            node = stack.pop()
            if isinstance(node, (dict, list)):
                seen.append(id(node))
                stack.extend(node.values() if isinstance(node, dict) else node)
        assert len(seen) == len(set(seen))
    for scalar in ("text", 3, 2.5, True, None):
        assert FreshCopies(scalar)() == scalar
