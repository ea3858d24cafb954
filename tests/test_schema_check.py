"""The checker's promise (promptc/_model/schema_check.py): whatever an MCP server's schema or a
model's arguments hold, checking does no I/O, raises nothing, and does bounded work.

Reproductions of issue 33's H1 (a `$ref` fetched over HTTP, a `file:` one read and shown to the
model), H5 (an unresolvable `$ref` raised) and H6 (a backtracking pattern, a quadratic
`uniqueItems`), through every door a call comes in by, and two properties: random schemas and
arguments never raise, and on what both can check the checker agrees with `jsonschema` (the
reference implementation, kept as the tests' oracle).
"""

from __future__ import annotations

import json
import socket
import sys
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promptc import CallError, Compiler, PromptContext, ProviderInfo, ToolCall
from promptc._model import schema_check
from promptc._model.schema_check import (MAX_STEPS, STEPS_PER_VALUE, SchemaChecker,
                                         check_against_schema)

from .conftest import python_calls

NATIVE = ProviderInfo("openai", "gpt-4.1")
TEXT = ProviderInfo("openai", "gpt-4.1", native_tools=False)
HANG = 60  # seconds: a check still running then is hanging (it takes milliseconds)


def finishes(work: Callable[[], Any]) -> Any:
    """`work()`'s result, failing (not hanging) when it does not return: a check that waits on
    a socket or backtracks for ever is the bug, not a slow machine."""
    box: list[Any] = []
    thread = threading.Thread(target=lambda: box.append(work()), daemon=True)
    thread.start()
    thread.join(HANG)
    assert not thread.is_alive(), "the check hangs"
    return box[0]


# --- H1: no I/O --------------------------------------------------------------------------------

class _Recorder(BaseHTTPRequestHandler):
    seen: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
        self.seen.append(self.path)
        body = b'{"enum": ["FETCHED-over-http"]}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def http_server() -> Iterator[tuple[str, list[str]]]:
    """A schema server on 127.0.0.1 that records every request it gets."""
    seen: list[str] = []
    handler = type("Handler", (_Recorder,), {"seen": seen})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", seen
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def silent_server() -> Iterator[tuple[str, list[socket.socket]]]:
    """A host that accepts connections and never answers (a check that fetched would hang)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    accepted: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                accepted.append(listener.accept()[0])
            except OSError:
                return
    threading.Thread(target=accept, daemon=True).start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}", accepted
    listener.close()
    for conn in accepted:
        conn.close()


@pytest.fixture(scope="module")
def secret_file(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    secret = "TOPSECRET-api-key-123"
    path = tmp_path_factory.mktemp("secret") / "secret.json"
    path.write_text(json.dumps({"enum": [secret]}), encoding="utf-8")
    return path.as_uri(), secret


def _schema(ref: str) -> dict[str, Any]:
    return {"type": "object", "properties": {"token": {"$ref": ref}, "n": {"type": "integer"}},
            "required": ["token"]}


def _doors(builtins: Compiler, schema: dict[str, Any]) -> list[ToolCall | CallError]:
    """One call of a tool with `schema`, through every door: a native call's arguments
    (`decode`), a provider's call object (`check`), and `use_mcp_tool` in a text reply."""
    context = PromptContext(mcp_servers=[{"name": "s", "tools": [
        {"name": "t", "description": "A tool.", "input_schema": schema}]}])
    native = builtins.compile(NATIVE, context, dynamic="system").tools
    text = builtins.compile(TEXT, context).tools
    arguments = {"token": "guess", "n": 1}
    parsed = text.parse("<use_mcp_tool>\n<server_name>s</server_name>\n<tool_name>t</tool_name>"
                        f"\n<arguments>{json.dumps(arguments)}</arguments>\n</use_mcp_tool>")
    return [native.decode("mcp__s__t", arguments),
            native.check({"type": "tool_use", "id": "1", "name": "mcp__s__t",
                          "input": arguments}),
            *[p for p in parsed.parts if not isinstance(p, str)]]


def _unchecked_ref(result: ToolCall | CallError, ref: str) -> None:
    assert isinstance(result, ToolCall), result
    [warning] = result.warnings
    assert warning.code == "schema-unchecked" and ref[:50] in warning.message
    assert "never fetched or read" in warning.message


@pytest.mark.parametrize("shape", ["property", "root", "relative-to-id"])
def test_a_ref_over_http_is_never_fetched(builtins: Compiler, http_server: tuple[str, list[str]],
                                          shape: str) -> None:
    base, seen = http_server
    ref = f"{base}/x.json"
    schema = {"property": _schema(ref), "root": {"$ref": ref},
              "relative-to-id": {"$id": f"{base}/root.json", **_schema("x.json")}}[shape]
    results = finishes(lambda: _doors(builtins, schema))
    assert len(results) == 3
    for result in results:
        _unchecked_ref(result, "x.json")
        assert "FETCHED" not in json.dumps(result.to_dict())
    assert seen == []


def test_a_host_that_never_answers_is_never_waited_for(
        builtins: Compiler, silent_server: tuple[str, list[socket.socket]]) -> None:
    base, accepted = silent_server
    for result in finishes(lambda: _doors(builtins, _schema(f"{base}/x.json"))):
        _unchecked_ref(result, base)
    assert accepted == []  # not even a connection


def test_a_file_ref_is_never_read(builtins: Compiler, secret_file: tuple[str, str]) -> None:
    uri, secret = secret_file
    for result in finishes(lambda: _doors(builtins, _schema(uri))):
        _unchecked_ref(result, uri)
        assert secret not in json.dumps(result.to_dict())
        assert secret not in repr(result)


# --- H5: nothing raises ----------------------------------------------------------------------

@pytest.mark.parametrize("ref", ["#/nope", "urn:x", "#missing-anchor", "http://[::1", "#/0/x",
                                 "other.json#/a"])
def test_a_ref_that_names_nothing_is_reported_never_raised(builtins: Compiler, ref: str) -> None:
    for result in _doors(builtins, _schema(ref)):
        assert isinstance(result, ToolCall), result
        [warning] = result.warnings
        assert warning.code == "schema-unchecked", warning.message


def test_refs_inside_the_schema_are_followed() -> None:
    """JSON pointers, `$anchor`s and embedded `$id`s resolve, with no I/O, and check."""
    schema = {"$id": "https://example.com/root.json",
              "$defs": {"name": {"type": "string"},
                        "count": {"$anchor": "count", "type": "integer", "minimum": 0},
                        "inner": {"$id": "inner.json", "type": "boolean"},
                        "a~b/c": {"const": 1}},
              "properties": {"a": {"$ref": "#/$defs/name"}, "b": {"$ref": "#count"},
                             "c": {"$ref": "inner.json"}, "d": {"$ref": "#/$defs/a~0b~1c"},
                             "e": {"$ref": "https://example.com/root.json#/$defs/name"}}}
    good = {"a": "x", "b": 2, "c": True, "d": 1, "e": "y"}
    assert check_against_schema(good, schema).fits
    bad = check_against_schema({"a": 1, "b": -1, "c": "no", "d": 2, "e": 3}, schema)
    assert [(p.path, p.keyword) for p in bad.problems] == [
        (("a",), "type"), (("b",), "minimum"), (("c",), "type"), (("d",), "const"),
        (("e",), "type")]
    assert bad.notes == () and bad.uncheckable is None


def test_a_ref_cycle_and_a_schema_of_any_shape_end() -> None:
    looped = check_against_schema(1, {"$defs": {"a": {"$ref": "#/$defs/a"}},
                                      "$ref": "#/$defs/a"})
    assert looped.uncheckable is not None and "levels deep" in looped.uncheckable
    odd = {"properties": {"a": 7, "n": {"minimum": float("inf")},
                          "s": {"maxLength": 10**5000, "pattern": 3}},
           "required": "a", "type": "strnig", "enum": {"x": 1}}
    verdict = check_against_schema({"a": 1, "n": 2, "s": "x"}, odd)
    assert verdict.problems == () and len(verdict.notes) == 6, verdict.notes


# --- H6: bounded work ------------------------------------------------------------------------

def test_a_backtracking_pattern_is_checked_in_linear_time() -> None:
    """`^(a+)+$` against 31 characters took a backtracking engine more than 30 s; on RE2 it is
    linear, at any length."""
    schema = {"properties": {"x": {"pattern": "^(a+)+$"}}}
    for size in (31, 100_000):
        verdict = finishes(lambda: check_against_schema({"x": "a" * size + "!"}, schema))
        assert [p.keyword for p in verdict.problems] == ["pattern"]
        assert check_against_schema({"x": "a" * size}, schema).fits


@pytest.mark.parametrize("pattern", ["(a)\\1", "(?=a)b", "(?<!x)y", "a{1001}"])
def test_a_pattern_re2_cannot_run_is_a_note(pattern: str) -> None:
    verdict = check_against_schema({"x": "ab"}, {"properties": {"x": {"pattern": pattern}}})
    assert verdict.problems == () and "cannot be run in linear time" in verdict.notes[0]


def test_ecma_unicode_escapes_and_classes_run() -> None:
    schema = {"pattern": "^[\\u4e00-\\u9fa5]+$"}
    assert check_against_schema("中文", schema).fits
    assert not check_against_schema("abc", schema).fits
    assert check_against_schema("x1", {"pattern": "^\\w\\d$"}).fits


@pytest.mark.scale
@pytest.mark.parametrize("schema", [
    {"uniqueItems": True},
    {"uniqueItems": True, "items": {"type": "object", "properties": {"a": {"enum": [1, 2]}}}},
    {"items": {"enum": [{"a": i} for i in range(50)] + [[1]]}},
], ids=["uniqueItems", "uniqueItems-and-items", "enum-of-objects"])
def test_array_checks_do_the_same_work_per_item_at_every_size(schema: dict[str, Any],
                                                              scale: int) -> None:
    """`uniqueItems` over 3,000 small objects took 9-26 s (pairwise comparison): hashed
    canonical forms make it linear. Calls per item at one size and at ten times it."""
    checker = SchemaChecker(schema)
    per_item = []
    for size in (300 * scale, 3_000 * scale):
        value = [{"a": i % 2 + 1, "b": [i]} for i in range(size)]
        per_item.append(python_calls(lambda: checker.check(value)) / size)
    assert per_item[1] <= per_item[0] * 1.25, per_item


def test_unique_items_finds_equal_items_by_json_equality() -> None:
    check = SchemaChecker({"uniqueItems": True}).check
    assert not check([{"a": 1, "b": 2}, {"b": 2, "a": 1.0}]).fits
    assert check([1, True, "1", [1], {"1": 1}, None, 0, False]).fits
    assert "items 0 and 2" in check([[1, 2], 3, [1, 2]]).problems[0].message


def test_an_exponential_schema_stops_at_its_budget() -> None:
    """Each definition applies the one below it twice: 2**40 applications, stopped by the
    step budget and reported as uncheckable."""
    defs: dict[str, Any] = {"d0": {"type": "string"}}
    for i in range(1, 41):
        defs[f"d{i}"] = {"allOf": [{"$ref": f"#/$defs/d{i - 1}"}] * 2}
    verdict = finishes(lambda: check_against_schema("x", {"$defs": defs,
                                                          "$ref": "#/$defs/d40"}))
    assert verdict.uncheckable is not None and "steps" in verdict.uncheckable
    assert verdict.steps <= MAX_STEPS + STEPS_PER_VALUE + 1


@pytest.mark.scale
def test_an_over_budget_mcp_call_is_refused_as_uncheckable(
        builtins: Compiler, scale: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """A schema whose check doubles with each level runs past the step budget: the call is
    refused as uncheckable, through every door. The real budget costs each door a good part
    of a second, so the default run holds the walk to a tenth of it (--full-scale: all)."""
    if scale == 1:
        monkeypatch.setattr(schema_check, "MAX_STEPS", schema_check.MAX_STEPS // 10)
    defs: dict[str, Any] = {"d0": {"type": "string"}}
    for i in range(1, 41):
        defs[f"d{i}"] = {"allOf": [{"$ref": f"#/$defs/d{i - 1}"}] * 2}
    schema = {"type": "object", "$defs": defs, "properties": {"token": {"$ref": "#/$defs/d40"}}}
    [result, *_] = _doors(builtins, schema)
    assert isinstance(result, CallError) and result.code == "uncheckable", result
    assert "steps" in result.message


# --- properties ------------------------------------------------------------------------------

KEYWORDS = ["type", "properties", "required", "items", "prefixItems", "enum", "const",
            "anyOf", "oneOf", "allOf", "not", "if", "then", "else", "$ref", "$defs", "$id",
            "minimum", "maximum", "exclusiveMinimum", "multipleOf", "minLength", "maxLength",
            "pattern", "patternProperties", "additionalProperties", "minItems", "uniqueItems",
            "contains", "maxContains", "propertyNames", "dependentRequired",
            "dependentSchemas", "unevaluatedProperties", "unevaluatedItems", "$anchor",
            "minProperties", "format", "dependencies", "additionalItems", "$dynamicRef"]
scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.integers(),
                    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=4),
                    st.sampled_from(["string", "object", "array", "null", "integer", "number",
                                     "#", "#/$defs/A", "#/nope", "urn:x", "http://127.0.0.1:9/",
                                     "file:///etc/passwd", "A", "^a+$", "(a)\\1", "(", "a*"]))
junk = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3),
    st.dictionaries(st.one_of(st.sampled_from(KEYWORDS), st.sampled_from(["A", "a", "x"])),
                    inner, max_size=4)), max_leaves=30)
values = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(-3, 3),
                                st.floats(allow_nan=False, allow_infinity=False),
                                st.text(max_size=3)),
                      lambda inner: st.lists(inner, max_size=3) |
                      st.dictionaries(st.sampled_from(["a", "x", "A", "b"]), inner, max_size=3),
                      max_leaves=12)


@pytest.mark.property
@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(junk, values)
def test_any_schema_and_any_value_give_a_verdict(schema: Any, value: Any) -> None:
    verdict = check_against_schema(value, schema)
    json.dumps([p.message for p in verdict.problems] + list(verdict.notes))  # plain text
    assert verdict.steps <= MAX_STEPS + STEPS_PER_VALUE * 1000


# Schemas both checkers read the same way: local references only, patterns without the
# features where Python's `re` and RE2 differ, numbers that are integers (jsonschema divides
# floats for multipleOf, this checker is exact).
typed = st.sampled_from(["string", "object", "array", "null", "integer", "number", "boolean"])
simple = st.one_of(
    st.fixed_dictionaries({"type": st.one_of(typed, st.lists(typed, min_size=1, max_size=2,
                                                             unique=True))}),
    st.fixed_dictionaries({"enum": st.lists(values, min_size=1, max_size=3)}),
    st.fixed_dictionaries({"const": values}),
    st.fixed_dictionaries({"minimum": st.integers(-2, 2)}),
    st.fixed_dictionaries({"exclusiveMaximum": st.integers(-2, 2)}),
    st.fixed_dictionaries({"multipleOf": st.integers(1, 3)}),
    st.fixed_dictionaries({"minLength": st.integers(0, 3), "maxLength": st.integers(0, 3)}),
    st.fixed_dictionaries({"pattern": st.sampled_from(["^a", "b$", "[0-9]", "^$", "x|y"])}),
    st.fixed_dictionaries({"required": st.lists(st.sampled_from(["a", "x"]), max_size=2,
                                                unique=True)}),
    st.fixed_dictionaries({"minItems": st.integers(0, 2), "uniqueItems": st.booleans()}),
    st.fixed_dictionaries({"minProperties": st.integers(0, 2)}), st.booleans())
schemas = st.recursive(simple | st.just({"$ref": "#/$defs/A"}), lambda inner: st.one_of(
    st.fixed_dictionaries({"properties": st.dictionaries(st.sampled_from(["a", "x"]), inner,
                                                         max_size=2)},
                          optional={"additionalProperties": inner,
                                    "patternProperties": st.dictionaries(
                                        st.sampled_from(["^a", "x"]), inner, max_size=1)}),
    st.fixed_dictionaries({"items": inner}, optional={"prefixItems": st.lists(inner,
                                                                              max_size=2)}),
    st.fixed_dictionaries({"contains": inner}, optional={"maxContains": st.integers(0, 2)}),
    st.fixed_dictionaries({"anyOf": st.lists(inner, min_size=1, max_size=3)}),
    st.fixed_dictionaries({"oneOf": st.lists(inner, min_size=1, max_size=3)}),
    st.fixed_dictionaries({"allOf": st.lists(inner, min_size=1, max_size=3)}),
    st.fixed_dictionaries({"not": inner}),
    st.fixed_dictionaries({"if": inner}, optional={"then": inner, "else": inner}),
    st.fixed_dictionaries({"propertyNames": inner}),
    st.fixed_dictionaries({"dependentSchemas": st.dictionaries(st.sampled_from(["a", "x"]),
                                                               inner, max_size=1)}),
    st.fixed_dictionaries({"allOf": st.lists(inner, min_size=1, max_size=2)},
                          optional={"unevaluatedProperties": inner,
                                    "unevaluatedItems": inner}),
), max_leaves=8)


@pytest.mark.property
@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schemas, simple, values)
def test_the_checker_agrees_with_the_reference_validator(schema: Any, definition: Any,
                                                         value: Any) -> None:
    import jsonschema
    root = {"$defs": {"A": definition}, "allOf": [schema]}
    expected = jsonschema.Draft202012Validator(root).is_valid(value)
    verdict = check_against_schema(value, root)
    assert verdict.notes == () and verdict.uncheckable is None
    assert verdict.fits == expected, (verdict.problems, root, value)


def test_the_checker_needs_no_schema_library() -> None:
    """The check imports neither jsonschema nor anything that can fetch (checked in a fresh
    interpreter: this one may have them loaded for other tests)."""
    import subprocess
    code = ("import sys\nfrom promptc._model.schema_check import check_against_schema\n"
            "check_against_schema({'a': 'x'}, {'properties': {'a': {'$ref': 'http://h/x', "
            "'pattern': '^x$'}}})\n"
            "bad = {'jsonschema', 'referencing', 'urllib.request', 'http.client', 'requests',"
            " 'httpx'} & set(sys.modules)\nassert not bad, bad\n")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parent)


@pytest.mark.property
@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(junk, st.dictionaries(st.sampled_from(["a", "x", "A"]), values, max_size=3))
def test_an_mcp_call_against_any_schema_is_a_verdict_for_the_model(schema: Any,
                                                                   arguments: Any) -> None:
    """The messages layer too (`mcp_check`): any schema, any arguments, a result whose every
    problem and warning is text that can be sent back as JSON."""
    from promptc._calls.mcp_check import check_arguments

    class Memo(dict[Any, Any]):
        def put(self, key: Any, value: Any) -> Any:
            self[key] = value
            return value
    verdict = check_arguments(arguments, schema if isinstance(schema, dict) else {}, "k", "s/t",
                              Memo())
    json.dumps([p.to_dict() for p in verdict.problems] +
               [w.to_dict() for w in verdict.warnings], allow_nan=False)
