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
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import promptc
from promptc import CompiledPrompt, Compiler, PromptContext, ProviderInfo
from promptc._emit.schemas import (EXPANSION_FLOOR, EXPANSION_GROWTH, checked_root,
                                   drop_unasked_nulls, gemini_form, gemini_schema, object_root,
                                   openai_strict, strict_form)
from promptc._emit.schemas.gemini import schema_size
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
        prompt = builtins.compile(provider, ctx, variant=vid, dynamic="system")
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
        freeform = {s.name for s in prompt.tools.specs if s.freeform}
        for tool in prompt.tools.openai("responses"):
            if tool["type"] == "custom":  # a free-form tool: raw text, no schema (see below)
                assert tool["name"] in freeform
                continue
            assert tool["strict"] is True
            schema = tool["parameters"]
            assert strict_problems(schema) == [], (tool["name"], strict_problems(schema))
            assert ensure_strict_json_schema(copy.deepcopy(schema)) == schema, tool["name"]


def test_optional_parameters_become_nullable_not_required(builtins: Compiler) -> None:
    prompt = builtins.compile(NATIVE["openai"], make_context("full"), dynamic="system")
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
    prompt = builtins.compile(NATIVE["openai"], corpus_context, dynamic="system")
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
        assert verbatim["description"] == "[MCP github] " + SERVERS[3]["tools"][0]["description"]
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
        custom = {t["name"] for t in sent if t.get("type") == "custom"}  # free-form: no schema
        assert custom == ({s.name for s in prompt.tools.specs if s.freeform}
                          if api == "responses" else set())
        sent = [t for t in sent if t["name"] not in custom]
        flags = {t["name"]: t["strict"] for t in sent}
        assert flags == {n: f for n, f in prompt.tools.strict_flags().items() if n not in custom}
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


# --- hostile and sloppy servers: nothing blows up, nothing poisons the request ------------------

def bomb(levels: int) -> dict[str, Any]:
    """Each definition uses the next one twice: copied in naively, 2**levels nodes."""
    defs: dict[str, Any] = {f"D{i}": {"type": "object", "properties": {
        "a": {"$ref": f"#/$defs/D{i + 1}"}, "b": {"$ref": f"#/$defs/D{i + 1}"}}}
        for i in range(levels)}
    defs[f"D{levels}"] = {"type": "string", "description": "leaf"}
    return {"type": "object", "properties": {"x": {"$ref": "#/$defs/D0"}}, "$defs": defs}


SLOPPY = {"name": "sloppy", "command": "sloppy-mcp", "tools": [
    {"name": "count", "description": "Count things.", "input_schema": {
        "type": "object", "required": ["n"], "properties": {
            "n": {"type": "integer", "minimum": "zero"}, "p": {"type": "string", "pattern": 5},
            "k": {"type": "string", "maxLength": -1}}}},
    {"name": "ghost", "description": "Name a ghost.", "input_schema": {
        "type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", "b"]}},
    {"name": "address", "description": "Store an address.", "input_schema": {
        "type": "object", "properties": {"home": {"$ref": "#/$defs/Address",
                                                  "required": ["zip"]}},
        "$defs": {"Address": {"type": "object", "required": ["street"], "properties": {
            "street": {"type": "string"}, "zip": {"type": "string"}}}}}},
    {"name": "bomb", "description": "Explode.", "input_schema": bomb(24)},
    {"name": "fine", "description": "Work fine.", "input_schema": {
        "type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}},
]}
SLOPPY_NAMES = [f"mcp__sloppy__{t['name']}" for t in SLOPPY["tools"]]


@pytest.fixture(scope="module")
def sloppy_context() -> PromptContext:
    return attrs.evolve(make_context("full"), mcp_servers=[SLOPPY])


def findings(prompt: CompiledPrompt) -> set[tuple[str, str]]:
    return {(d.code, d.source) for d in prompt.diagnostics if d.code.startswith("schema-")}


def test_sloppy_schemas_are_reported_per_format_naming_tool_and_keyword(
        builtins: Compiler, sloppy_context: PromptContext) -> None:
    dropped = {("schema-keyword-dropped", "sloppy/count")}
    expected = {"anthropic": dropped,
                "openai": dropped | {("schema-required-unknown", "sloppy/ghost")},
                "gemini": dropped | {("schema-required-unknown", "sloppy/ghost"),
                                     ("schema-too-large", "sloppy/bomb")}}
    for wire, provider in NATIVE.items():
        prompt = builtins.compile(provider, sloppy_context, dynamic="system")
        assert findings(prompt) == expected[wire], wire
        messages = [d.message for d in prompt.diagnostics if d.source == "sloppy/count"]
        for keyword in ("'minimum'", "'pattern'", "'maxLength'"):
            assert any(keyword in m and "'count'" in m and "'sloppy'" in m
                       for m in messages), (wire, keyword, messages)
    with pytest.raises(promptc.PromptcError, match="minimum"):
        builtins.compile(NATIVE["gemini"], sloppy_context, strict=True, dynamic="system")


def test_required_without_a_property_is_sent_without_strict_mode(
        builtins: Compiler, sloppy_context: PromptContext) -> None:
    prompt = builtins.compile(NATIVE["openai"], sloppy_context, dynamic="system")
    flags = prompt.tools.strict_flags()
    assert flags["mcp__sloppy__ghost"] is False and flags["mcp__sloppy__fine"] is True
    [ghost] = [t for t in prompt.tools.openai("responses") if t["name"] == "mcp__sloppy__ghost"]
    assert ghost["parameters"]["required"] == ["a", "b"]  # as the server wrote it, not strict
    gemini = gemini_form(SLOPPY["tools"][1]["input_schema"])
    assert gemini.schema is not None and gemini.schema["required"] == ["a"]
    assert [p.code for p in gemini.problems] == ["schema-required-unknown"]


def test_required_beside_a_ref_is_kept_for_gemini() -> None:
    from google.genai import types
    out = gemini_schema(SLOPPY["tools"][2]["input_schema"])
    assert out is not None
    home = out["properties"]["home"]
    assert home["required"] == ["street", "zip"] and set(home["properties"]) == {"street", "zip"}
    types.Schema.model_validate(out)


def test_reference_copies_grow_linearly_with_the_schema() -> None:
    sizes = []
    for levels in (4, 24, 48):
        schema = bomb(levels)
        converted = gemini_form(schema)
        assert converted.schema is not None
        sizes.append(len(json.dumps(converted.schema)))
        limit = max(EXPANSION_FLOOR, EXPANSION_GROWTH * schema_size(schema))
        assert sizes[-1] <= 2 * limit, (levels, sizes[-1], limit)
        assert [p.code for p in converted.problems] == (
            ["schema-too-large"] if levels > 4 else [])
    assert sizes[2] < 4 * sizes[1]  # twice the schema, not 2**24 times the copy


@pytest.mark.scale
def test_no_depth_of_nesting_reaches_the_recursion_limit(scale: int) -> None:
    depth = 5000 * scale  # five times the recursion limit; 50,000 deep with --full-scale
    deep: dict[str, Any] = {"type": "object", "properties": {}}
    node = deep
    for _ in range(depth):
        child: dict[str, Any] = {"type": "object", "properties": {}, "minimum": "x"}
        node["properties"]["x"] = child
        node = child
    checked = checked_root(deep)
    assert len(checked.problems) == depth  # every level cleaned, no RecursionError
    assert strict_form(deep).schema is None
    assert gemini_form(deep).schema is not None


def _nested(key: str, depth: int) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "string"}
    for _ in range(depth):
        node = {"type": "object", "properties": {"x": node}} if key == "properties" else \
            {"type": "array", "items": node}
    return {"type": "object", "properties": {"a": node}}


@pytest.mark.parametrize("key", ["properties", "items"])
@pytest.mark.parametrize("depth", [100, 250, 300])
def test_an_mcp_schema_nested_hundreds_deep_is_sent_as_given(key: str, depth: int) -> None:
    """Issue 33 H3: entries were made by eval of their repr, so a schema 100-250 levels deep
    raised SyntaxError (too many nested parentheses) and 300 levels of items MemoryError, from
    to_anthropic() and tools.openai(). Every payload, asked for again and again (the first ones
    are assembled from the tools, the later ones copied whole), holds the schema as given."""
    schema = _nested(key, depth)
    data = {"mcp_servers": [{"name": "s", "tools": [{"name": "t", "description": "d",
                                                     "input_schema": schema}]}]}
    compiler = Compiler.default(project=False, user=False)
    # the session's MCP tools as functions of their own (the single-string placement)
    claude = compiler.compile(ProviderInfo("anthropic", "claude-sonnet-4-5"), data,
                              dynamic="system")
    gpt = compiler.compile(ProviderInfo("openai", "gpt-4.1"), data, dynamic="system")
    gemini = compiler.compile(ProviderInfo("google", "gemini-3-pro-preview"), data,
                              dynamic="system")
    # the default split: the schema reaches the first message as text, under use_mcp_tool
    split = compiler.compile(ProviderInfo("anthropic", "claude-sonnet-4-5"), data)
    assert split.message.count("\n- a (object") + split.message.count("\n- a (array") == 1
    assert split.to_anthropic()["messages"][0]["content"]
    for _ in range(4):
        [sent] = [e["input_schema"] for e in claude.to_anthropic()["tools"]
                  if e["name"] == "mcp__s__t"]
        assert sent == schema
        [entry] = [e["function"] for e in gpt.tools.openai()
                   if e["function"]["name"] == "mcp__s__t"]
        assert entry["parameters"] == schema and entry["strict"] is False  # too deep for strict
        assert [s for n, _, s in gpt.tools.functions() if n == "mcp__s__t"] == [schema]
        [declared] = [d for d in gemini.to_gemini()["tools"][0]["function_declarations"]
                      if d["name"] == "mcp__s__t"]
        assert declared["parameters"]["type"] == "object"


keywords = st.sampled_from([
    "type", "properties", "required", "items", "enum", "const", "anyOf", "oneOf", "allOf",
    "$ref", "$defs", "minimum", "maximum", "pattern", "format", "minItems", "maxLength",
    "description", "nullable", "additionalProperties", "default", "not", "title"])
junk = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False),
              st.sampled_from(["string", "object", "array", "null", "integer", "zero", "",
                               "#/$defs/A", "#/$defs/missing", "date-time", "enum"])),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.one_of(keywords, st.sampled_from(["A", "x"])),
                                            inner, max_size=4)),
    max_leaves=25)


@pytest.mark.property
@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(junk)
def test_any_schema_converts_to_what_the_sdks_accept(schema: Any) -> None:
    from google.genai import types
    gemini = gemini_form(schema)
    if gemini.schema is not None:
        types.FunctionDeclaration(name="t", description="d", parameters=gemini.schema)
    strict = strict_form(schema)
    if strict.schema is not None:
        assert strict_problems(strict.schema) == [], strict.schema
    root = checked_root(schema)
    assert root.schema is not None and root.schema["type"] == "object"
    for problem in (*gemini.problems, *strict.problems, *root.problems):
        assert problem.keyword in problem.message() and problem.code.startswith("schema-")


def test_sloppy_tools_reach_every_sdk_and_the_rest_are_unharmed(
        builtins: Compiler, server: FakeServer, sloppy_context: PromptContext) -> None:
    """All three SDKs send every tool of the request: the malformed keyword values are gone,
    the healthy tools are as they would be without the sloppy ones."""
    anthropic = pytest.importorskip("anthropic")
    openai = pytest.importorskip("openai")
    genai = pytest.importorskip("google.genai")
    from google.genai import types
    bad = ('"minimum": "zero"', '"pattern": 5', '"maxLength": -1')

    prompt = builtins.compile(NATIVE["anthropic"], sloppy_context, dynamic="system")
    before = len(server.requests)
    anthropic.Anthropic(api_key="k", base_url=server.url, max_retries=0).messages.create(
        model="claude-sonnet-4-5", max_tokens=8, tools=prompt.tools.anthropic(),
        messages=[{"role": "user", "content": "hi"}])
    sent = server.requests[before].body["tools"]
    assert [t["name"] for t in sent if t["name"].startswith("mcp__sloppy")] == SLOPPY_NAMES
    assert not any(b in json.dumps(sent) for b in bad)

    prompt = builtins.compile(NATIVE["openai"], sloppy_context, dynamic="system")
    before = len(server.requests)
    openai.OpenAI(api_key="k", base_url=server.url + "/v1", max_retries=0).responses.create(
        model="gpt-4.1", input="hi", tools=prompt.tools.openai("responses"))
    sent = server.requests[before].body["tools"]
    assert [t["name"] for t in sent if t["name"].startswith("mcp__sloppy")] == SLOPPY_NAMES
    assert not any(b in json.dumps(sent) for b in bad)
    for tool in sent:
        if tool["strict"]:
            assert strict_problems(tool["parameters"]) == [], tool["name"]

    prompt = builtins.compile(NATIVE["gemini"], sloppy_context, dynamic="system")
    payload = prompt.tools.gemini()
    before = len(server.requests)
    client = genai.Client(api_key="k", http_options=types.HttpOptions(base_url=server.url))
    reply = client.models.generate_content(model="gemini-2.5-pro", contents="hi",
                                           config=types.GenerateContentConfig(tools=payload))
    assert reply.text == "OK"
    [wire] = server.requests[before].body["tools"]
    names = [d["name"] for d in wire["functionDeclarations"]]
    assert [n for n in names if n.startswith("mcp__sloppy")] == SLOPPY_NAMES
    assert len(json.dumps(wire)) < 2_000_000 and "minimum" not in json.dumps(
        next(d for d in wire["functionDeclarations"] if d["name"] == "mcp__sloppy__count"))
    alone = builtins.compile(NATIVE["gemini"], attrs.evolve(sloppy_context, mcp_servers=[
        {**SLOPPY, "tools": [SLOPPY["tools"][-1]]}]), dynamic="system").tools.gemini()
    [fine] = [d for d in payload[0]["function_declarations"] if d["name"] == "mcp__sloppy__fine"]
    assert fine == alone[0]["function_declarations"][-1]


def test_strict_definitions_say_to_send_null_for_the_default(builtins: Compiler,
                                                             server: FakeServer) -> None:
    openai = pytest.importorskip("openai")
    prompt = builtins.compile(NATIVE["openai"], make_context("full"), dynamic="system")
    client = openai.OpenAI(api_key="k", base_url=server.url + "/v1", max_retries=0)
    for strict in (True, False):
        before = len(server.requests)
        client.chat.completions.create(model="gpt-4.1", tools=prompt.tools.openai(strict=strict),
                                       messages=[{"role": "user", "content": "hi"}])
        [run] = [t["function"] for t in server.requests[before].body["tools"]
                 if t["function"]["name"] == "execute_command"]
        timeout = run["parameters"]["properties"]["timeout_seconds"]["description"]
        if strict:
            assert "send null for the default" in timeout and "leave out" not in timeout
            assert timeout.startswith("Seconds to wait")
        else:
            assert "leave out for the default" in timeout
    for tool in prompt.tools.openai():  # no optional parameter of the pack says "leave out"
        params = tool["function"]["parameters"]
        for name, prop in params["properties"].items():
            if tool["function"]["strict"] and "null" in json.dumps(prop.get("type")):
                assert not re.search(r"\b(leave (it )?out|omit)\b", prop.get("description", ""),
                                     re.I), (tool["function"]["name"], name)
