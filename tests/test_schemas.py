"""Tool schemas each provider accepts, checked through the real SDKs against a local server.

Every built-in tool and a corpus of real-world MCP schemas (tests/fixtures/mcp_schemas.json:
pydantic with Optional, `$ref`/`$defs`, `anyOf`, enums, type lists, recursion, open maps, root
unions, no-argument tools) go through the `anthropic`, `openai` and `google-genai` clients to a
FakeServer on 127.0.0.1; the tests assert what went over the wire. OpenAI strict mode is checked
against its documented rules and against the OpenAI Agents SDK's own strict conversion (our
schemas must already be in the form it produces, so it changes nothing).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest

from promptc import CompiledPrompt, Compiler, PromptContext, ProviderInfo
from promptc._emit.schemas import (drop_unasked_nulls, gemini_schema, object_root,
                                   openai_strict)
from promptc.testing import make_context

from .fakeserver import FakeServer

# The SDKs are imported by the tests that use them, not at collection: importing all three
# takes seconds, which the process that only collects this module should not pay.

CORPUS = json.loads((Path(__file__).parent / "fixtures" / "mcp_schemas.json").read_text())
SERVERS = [{**s, "tools": [{k: v for k, v in t.items() if k != "strict"} for t in s["tools"]]}
           for s in CORPUS["servers"]]
STRICT = {f"mcp__{s['name']}__{t['name']}": t["strict"]
          for s in CORPUS["servers"] for t in s["tools"]}
SCHEMAS = [t["input_schema"] for s in CORPUS["servers"] for t in s["tools"]]
NATIVE = {"anthropic": ProviderInfo("anthropic", "claude-sonnet-4-5"),
          "openai": ProviderInfo("openai", "gpt-4.1"),
          "gemini": ProviderInfo("google", "gemini-2.5-pro")}


@pytest.fixture(scope="module")
def corpus_context() -> PromptContext:
    return attrs.evolve(make_context("full"), mcp_servers=SERVERS)


@pytest.fixture(scope="module")
def server() -> Iterator[FakeServer]:
    with FakeServer() as s:
        yield s


def prompts(builtins: Compiler, ctx: PromptContext, provider: ProviderInfo
            ) -> Iterator[CompiledPrompt]:
    """Every built-in variant that can send native tools, with this context."""
    for vid in builtins.registry.variants:
        prompt = builtins.compile(provider, ctx, variant=vid)
        if prompt.tools.mode == "native":
            yield prompt


# --- OpenAI strict mode ----------------------------------------------------------------------

STRICT_KEYWORDS = {"type", "properties", "required", "additionalProperties", "items", "enum",
                   "anyOf", "$ref", "$defs", "definitions", "description", "title", "pattern",
                   "format", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
                   "multipleOf", "minItems", "maxItems", "const"}


def strict_problems(schema: dict[str, Any]) -> list[str]:
    """OpenAI's documented rules for strict schemas (Structured Outputs), checked by hand."""
    problems: list[str] = []
    if schema.get("type") != "object" or "anyOf" in schema:
        problems.append("root must be a plain object")

    def walk(node: Any, path: str, objects: int) -> None:
        if not isinstance(node, dict):
            problems.append(f"{path}: not a schema")
            return
        unknown = set(node) - STRICT_KEYWORDS
        if unknown:
            problems.append(f"{path}: keywords {sorted(unknown)}")
        if "$ref" in node and len(node) > 1:
            problems.append(f"{path}: $ref beside other keywords")
        kinds = node.get("type")
        kinds = kinds if isinstance(kinds, list) else [kinds]
        if "object" in kinds:
            if objects > 10:
                problems.append(f"{path}: nested deeper than 10 objects")
            if node.get("additionalProperties") is not False:
                problems.append(f"{path}: additionalProperties must be false")
            props = node.get("properties", {})
            if sorted(node.get("required", [])) != sorted(props):
                problems.append(f"{path}: every property must be required")
            for name, sub in props.items():
                walk(sub, f"{path}.{name}", objects + 1)
        if "array" in kinds:
            walk(node.get("items"), f"{path}[]", objects)
        for i, alt in enumerate(node.get("anyOf", ())):
            walk(alt, f"{path}|{i}", objects)
        for table in ("$defs", "definitions"):
            for name, sub in node.get(table, {}).items():
                walk(sub, f"#{name}", 0)
        if kinds == [None] and not ({"anyOf", "$ref", "enum", "const"} & set(node)):
            problems.append(f"{path}: no type")

    walk(schema, "$", 0)
    return problems


def test_openai_strict_mode_accepts_every_builtin_tool(builtins: Compiler) -> None:
    from agents.strict_schema import ensure_strict_json_schema
    for prompt in prompts(builtins, make_context("full"), NATIVE["openai"]):
        assert all(prompt.tools.strict_flags().values()), prompt.variant.id
        for tool in prompt.tools.openai("responses"):
            assert tool["strict"] is True
            schema = tool["parameters"]
            assert strict_problems(schema) == [], (tool["name"], strict_problems(schema))
            assert ensure_strict_json_schema(copy.deepcopy(schema)) == schema, tool["name"]


def test_optional_parameters_become_nullable_not_required(builtins: Compiler) -> None:
    prompt = builtins.compile(NATIVE["openai"], make_context("full"))
    [tool] = [t for t in prompt.tools.openai() if t["function"]["name"] == "list_files"]
    params = tool["function"]["parameters"]
    assert params["required"] == ["path", "recursive"]
    assert params["properties"]["recursive"]["type"] == ["boolean", "null"]
    assert params["properties"]["path"]["type"] == "string"
    loose = [t for t in prompt.tools.openai(strict=False)
             if t["function"]["name"] == "list_files"][0]["function"]
    assert "strict" not in loose and loose["parameters"]["required"] == ["path"]


def test_mcp_corpus_is_strict_where_strict_mode_can_say_it(builtins: Compiler,
                                                           corpus_context: PromptContext) -> None:
    from agents.strict_schema import ensure_strict_json_schema
    prompt = builtins.compile(NATIVE["openai"], corpus_context)
    flags = prompt.tools.strict_flags()
    for name, expected in STRICT.items():
        assert flags[name] is expected, name
    for tool in prompt.tools.openai("responses"):
        if tool["strict"]:
            schema = tool["parameters"]
            assert strict_problems(schema) == [], (tool["name"], strict_problems(schema))
            assert ensure_strict_json_schema(copy.deepcopy(schema)) == schema, tool["name"]
        else:  # the documented fallback: the server's schema as it is, not strict
            original = next(t["input_schema"] for s in SERVERS for t in s["tools"]
                            if f"mcp__{s['name']}__{t['name']}" == tool["name"])
            assert tool["parameters"] == object_root(original)


def test_strict_nulls_are_dropped_on_the_way_back() -> None:
    schema = SCHEMAS[[t["name"] for s in CORPUS["servers"] for t in s["tools"]]
                     .index("create_ticket")]
    strict = openai_strict(schema)
    assert strict is not None
    sent = {"name": "n", "priority": None, "address": {"street": "s", "city": "c", "zip": None},
            "tags": [], "count": None}
    # priority does not admit null (a strict stand-in): dropped; zip and count do: kept
    assert drop_unasked_nulls(sent, schema) == {"name": "n", "address": {
        "street": "s", "city": "c", "zip": None}, "tags": [], "count": None}


def test_strict_gives_up_on_what_it_cannot_say() -> None:
    assert openai_strict({"type": "object", "properties": {"x": {}}}) is None  # untyped
    assert openai_strict({"type": "object", "properties": {"m": {
        "type": "object", "additionalProperties": {"type": "string"}}}}) is None  # open map
    assert openai_strict({"type": "object", "properties": {"x": {
        "not": {"type": "string"}}}}) is None
    deep: dict[str, Any] = {"type": "object", "properties": {}}
    node = deep
    for _ in range(12):
        node["properties"]["x"] = {"type": "object", "properties": {}, "required": []}
        node = node["properties"]["x"]
    node["properties"]["leaf"] = {"type": "string"}
    assert openai_strict(deep) is None  # more than 10 levels of objects
    very_deep: dict[str, Any] = {"type": "object"}
    node = very_deep
    for _ in range(600):
        node["properties"] = {"x": {"type": "object"}}
        node = node["properties"]["x"]
    assert openai_strict(very_deep) is None  # no RecursionError either
    assert gemini_schema(very_deep) is not None


def test_object_root() -> None:
    assert object_root("nope") == {"type": "object", "properties": {}}
    assert object_root({"type": "string"}) == {"type": "object", "properties": {}}
    assert object_root({"properties": {"a": {"type": "string"}}})["type"] == "object"
    either = object_root({"oneOf": [
        {"type": "object", "properties": {"a": {"type": "string"}, "c": {}}, "required": ["a", "c"]},
        {"type": "object", "properties": {"b": {"type": "integer"}, "c": {}}, "required": ["c"]}]})
    assert set(either["properties"]) == {"a", "b", "c"} and either["required"] == ["c"]
    ref = object_root({"$ref": "#/$defs/A", "$defs": {"A": {"type": "object", "properties": {
        "x": {"type": "string"}}}}})
    assert ref["properties"] == {"x": {"type": "string"}}


# --- Gemini ----------------------------------------------------------------------------------

def test_gemini_openapi_subset() -> None:
    by_name = {t["name"]: t["input_schema"] for s in CORPUS["servers"] for t in s["tools"]}
    query = gemini_schema(by_name["query"])
    assert query is not None
    props = query["properties"]
    assert props["sql"] == {"description": "SQL text", "type": "string", "nullable": True}
    assert props["id"]["anyOf"] == [{"type": "string"}, {"type": "integer"}]
    assert props["kind"]["enum"] == ["select"]
    ticket = gemini_schema(by_name["create_ticket"])
    assert ticket is not None
    assert ticket["properties"]["priority"]["enum"] == ["low", "medium", "high"]
    assert ticket["properties"]["address"]["nullable"] is True
    assert ticket["properties"]["address"]["properties"]["zip"]["nullable"] is True
    tree = gemini_schema(by_name["tree"])
    assert tree is not None and tree["properties"]["root"]["properties"]["children"]["items"]
    for schema in SCHEMAS:
        out = gemini_schema(schema)
        text = json.dumps(out)
        for banned in ('"$ref"', '"$defs"', '"additionalProperties"', '"$schema"', '"const"',
                       '"oneOf"', '"allOf"', '"default"', '"exclusiveMaximum"'):
            assert banned not in text, (banned, text)
        assert not re.search(r'"type": \[', text)
    assert gemini_schema({"type": "object", "properties": {}}) is None  # no arguments


# --- the real SDKs, against a local server ---------------------------------------------------

def test_anthropic_sdk_sends_every_tool_as_given(builtins: Compiler, server: FakeServer,
                                                 corpus_context: PromptContext) -> None:
    anthropic = pytest.importorskip("anthropic")
    client = anthropic.Anthropic(api_key="sk-ant-test", base_url=server.url, max_retries=0)
    for prompt in prompts(builtins, corpus_context, NATIVE["anthropic"]):
        payload = prompt.to_anthropic()
        before = len(server.requests)
        client.messages.create(model="claude-sonnet-4-5", max_tokens=64,
                               system=payload["system"], tools=payload["tools"],
                               messages=[{"role": "user", "content": "hi"}])
        body = server.requests[before].body
        assert body["tools"] == payload["tools"] and body["system"] == payload["system"]
        names = [t["name"] for t in body["tools"]]
        assert names == list(prompt.tools.names) and len(set(names)) == len(names)
        assert all(re.fullmatch(r"[A-Za-z0-9_-]{1,64}", n) for n in names)
        assert all(t["input_schema"]["type"] == "object" and "anyOf" not in t["input_schema"]
                   for t in body["tools"])
        verbatim = next(t for t in body["tools"] if t["name"] == "mcp__github__create_issue")
        assert verbatim["description"] == SERVERS[3]["tools"][0]["description"]
        assert 1 <= sum("cache_control" in x for x in [*body["tools"], *body["system"]]) <= 4


@pytest.mark.parametrize("api", ["chat", "responses"])
def test_openai_sdk_sends_strict_tools(builtins: Compiler, server: FakeServer,
                                       corpus_context: PromptContext, api: str) -> None:
    openai = pytest.importorskip("openai")
    client = openai.OpenAI(api_key="sk-test", base_url=server.url + "/v1", max_retries=0)
    for prompt in prompts(builtins, corpus_context, NATIVE["openai"]):
        payload = prompt.to_openai(api)
        before = len(server.requests)
        if api == "chat":
            client.chat.completions.create(
                model="gpt-4.1", messages=[*payload["messages"], {"role": "user",
                                                                  "content": "hi"}],
                tools=payload["tools"], prompt_cache_key=payload["prompt_cache_key"])
            sent = [t["function"] for t in server.requests[before].body["tools"]]
        else:
            client.responses.create(model="gpt-4.1", instructions=payload["instructions"],
                                    input="hi", tools=payload["tools"],
                                    prompt_cache_key=payload["prompt_cache_key"])
            sent = server.requests[before].body["tools"]
        body = server.requests[before].body
        assert body["tools"] == payload["tools"]
        assert body["prompt_cache_key"] == payload["prompt_cache_key"]
        flags = {t["name"]: t["strict"] for t in sent}
        assert flags == prompt.tools.strict_flags()
        assert [n for n, strict in flags.items() if not strict] == ["mcp__db__exec"]
        for tool in sent:
            if tool["strict"]:
                assert strict_problems(tool["parameters"]) == [], tool["name"]


@pytest.mark.parametrize("schema", ["openapi", "json"])
def test_google_genai_sdk_accepts_every_declaration(builtins: Compiler, server: FakeServer,
                                                    corpus_context: PromptContext,
                                                    schema: str) -> None:
    genai = pytest.importorskip("google.genai")
    from google.genai import types
    client = genai.Client(api_key="test", http_options=types.HttpOptions(base_url=server.url))
    for prompt in prompts(builtins, corpus_context, NATIVE["gemini"]):
        payload = prompt.to_gemini(schema=schema)  # type: ignore[arg-type]
        before = len(server.requests)
        config = types.GenerateContentConfig(
            system_instruction=payload["system_instruction"]["parts"][0]["text"],
            tools=payload["tools"])  # the SDK validates each declaration (pydantic)
        reply = client.models.generate_content(model="gemini-2.5-pro", contents="hi",
                                               config=config)
        assert reply.text == "OK"
        body = server.requests[before].body
        [sent] = body["tools"]
        [ours] = payload["tools"]
        declarations = sent["functionDeclarations"]
        assert [d["name"] for d in declarations] == list(prompt.tools.names)
        for mine, wire in zip(ours["function_declarations"], declarations):
            assert wire["description"] == mine["description"]
            if schema == "json":
                assert wire["parameters_json_schema"] == mine["parameters_json_schema"]
            elif "parameters" in mine:
                assert wire["parameters"] == as_sent(mine["parameters"])
            else:
                assert "parameters" not in wire  # a tool without arguments
        assert body["systemInstruction"]["parts"][0]["text"] == prompt.text


def as_sent(schema: Any, in_properties: bool = False) -> Any:
    """How google-genai writes a `Schema` on the wire: types upper-case, keys snake_case."""
    if isinstance(schema, list):
        return [as_sent(v) for v in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if in_properties:
            out[key] = as_sent(value)
            continue
        name = re.sub(r"(?<!^)([A-Z])", r"_\1", key).lower()
        if key == "type":
            value = value.upper()
        out[name] = as_sent(value, in_properties=key == "properties")
    return out
