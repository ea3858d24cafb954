"""Tool specs: conditions, parameter dependencies, enums from the request, MCP naming, JSON."""

from __future__ import annotations

from collections.abc import Callable

import jsonschema
import pytest

from promptc import Compiler, McpServer, McpTool, PromptContext, ProviderInfo
from promptc._model.conditions import CONDITION_KEYS, compile_condition
from promptc._model.tools import (NAME_PATTERN, mcp_bindings, mcp_function_name,
                                  sanitize_tool_name)
from promptc.testing import make_context


TEXT = ProviderInfo("x", "y", native_tools=False)
NATIVE = ProviderInfo("anthropic", "claude-sonnet-4-5")

TOOLS = {
    "components/tools/run.toml": 'name = "run"\ndescription = "Run."\n'
                                 '[[parameters]]\nname = "cmd"\nrequired = true\n'
                                 'instruction = "Command."\n',
    "components/tools/finish.toml": (
        'name = "finish"\ndescription = "Finish."\n'
        '[[parameters]]\nname = "result"\nrequired = true\ninstruction = "Result."\n'
        '[[parameters]]\nname = "demo"\ninstruction = "A demo command."\n'
        'depends_on = ["run"]\n'),
    "components/tools/look.toml": 'name = "look"\ndescription = "Look."\n[when]\n'
                                  'has = "attachments"\n',
    "components/tools/skill.toml": (
        'name = "skill"\ndescription = "Load a skill."\n[when]\nhas = "skills"\n'
        '[[parameters]]\nname = "name"\nrequired = true\ninstruction = "Which."\n'
        'enum_from = "skills"\n'),
    "components/tools.md": "# Tools\n{{#tools}}\n## {{name}}\n{{description}}\n{{#parameters}}\n- {{name}}\n"
                           "{{/parameters}}\n{{/tools}}\n",
    "variants/base/variant.toml": 'fallback = true\ncomponents = ["intro", "tools"]\n'
                                  'tools = ["run", "finish", "look", "skill"]\n',
    "variants/base/template.md": "{{intro}}\n{{tools}}\n",
    "variants/nat/variant.toml": 'extends = "base"\ntool_mode = "native"\n'
                                 'tools = ["finish", "look"]\n',
}


@pytest.fixture
def tc(mini: Callable[..., Compiler]) -> Compiler:
    return mini(TOOLS)


def test_conditions_are_evaluated_per_request_not_cached_across_them(tc: Compiler) -> None:
    plain = tc.compile(TEXT, PromptContext())
    with_image = tc.compile(TEXT, PromptContext(attachments=[{"name": "a.png",
                                                              "type": "image/png"}]))
    again = tc.compile(TEXT, PromptContext())
    assert "look" not in plain.tools.names and "## look" not in plain.text
    assert "look" in with_image.tools.names and "## look" in with_image.text
    assert again.tools.names == plain.tools.names


def test_parameter_dependencies_hold_in_text_and_native(tc: Compiler) -> None:
    text = tc.compile(TEXT, PromptContext())
    assert "- demo" in text.text
    [finish] = [f for f in text.tools.openai() if f["function"]["name"] == "finish"]
    assert "demo" in finish["function"]["parameters"]["properties"]
    native = tc.compile(ProviderInfo("x", "y"), PromptContext(), variant="nat")  # no `run`
    [finish] = [f for f in native.tools.anthropic() if f["name"] == "finish"]
    assert list(finish["input_schema"]["properties"]) == ["result"]
    assert native.tools.mode == "native" and native.section("tools") is None


def test_enum_from_the_request(tc: Compiler) -> None:
    ctx = PromptContext(skills=[{"name": "release"}, {"name": "deploy"}])
    out = tc.compile(TEXT, ctx)
    [skill] = [f for f in out.tools.anthropic() if f["name"] == "skill"]
    assert skill["input_schema"]["properties"]["name"]["enum"] == ["release", "deploy"]


def test_returned_json_is_a_copy(tc: Compiler) -> None:
    out = tc.compile(TEXT, PromptContext())
    out.tools.openai().clear()
    assert out.tools.openai()


def test_sanitize_names() -> None:
    assert sanitize_tool_name("create issue!") == "create_issue"
    assert sanitize_tool_name("ünïcode") == "n_code"
    long = sanitize_tool_name("x" * 200)
    assert len(long) == 64 and long.startswith("x" * 55 + "_")
    assert sanitize_tool_name("x" * 200) != sanitize_tool_name("x" * 201)
    assert sanitize_tool_name("///") == "tool"


def test_mcp_tools_are_always_namespaced_and_collisions_resolved() -> None:
    servers = [McpServer("a", tools=[McpTool("read_file"), McpTool("query")]),
               McpServer("a.b", tools=[McpTool("c")]),
               McpServer("a_b", tools=[McpTool("c"), McpTool("c")]),
               McpServer("my server", tools=[McpTool("x" * 80)])]
    notes: list[tuple[str, str]] = []
    bindings = mcp_bindings(servers, {"read_file"}, lambda s, m: notes.append((s, m)))
    names = [b.native_name for b in bindings]
    assert names[:3] == ["mcp__a__read_file", "mcp__a__query", "mcp__a_b__c"]
    assert names[3].startswith("mcp__a_b__c_") and names[4].startswith("mcp__a_b__c_")
    assert len(set(names)) == len(names) and all(len(n) <= 64 for n in names)
    assert all(NAME_PATTERN.match(n) for n in names)
    assert names[5].startswith("mcp__my_server__xxx") and len(names[5]) == 64
    assert [(b.server, b.tool) for b in bindings][3] == ("a_b", "c")
    # every name that is not the plain mcp__<server>__<tool> is reported, with why
    assert [s for s, _ in notes] == ["a.b/c", "a_b/c", "a_b/c", "my server/" + "x" * 80]
    assert "already taken" in notes[1][1] and "64 characters" in notes[3][1]
    assert mcp_bindings(servers, {"read_file"}) == bindings  # same input, same names


def lines_run_in(function: Callable[..., object], call: Callable[[], object]) -> int:
    """How many lines of `function` run while `call()` runs (traced, not timed)."""
    import sys
    count = 0

    def each_line(_frame: object, event: str, _arg: object) -> object:
        nonlocal count
        count += event == "line"
        return each_line

    def each_call(frame: object, _event: str, _arg: object) -> object:
        return each_line if getattr(frame, "f_code", None) is function.__code__ else None
    before = sys.gettrace()
    sys.settrace(each_call)
    try:
        call()
    finally:
        sys.settrace(before)
    return count


def test_mcp_names_are_linear_in_collisions() -> None:
    """n MCP tools that all want one name: finding each a free one tries each candidate once,
    so the work grows with n, not n² (counted in lines run, so a busy machine cannot fail it)."""
    from promptc._model import tools

    def work(n: int) -> int:
        servers = [McpServer("s", tools=[McpTool("read_file")] * n)]
        names: list[str] = []
        count = lines_run_in(tools._untaken, lambda: names.extend(
            b.native_name for b in mcp_bindings(servers, ())))
        assert len(set(names)) == n
        return count
    small, large = work(500), work(4000)
    assert large <= 8 * small * 1.01  # eight times the tools, eight times the work


def test_mcp_function_names() -> None:
    assert mcp_function_name("github", "create_issue") == "mcp__github__create_issue"
    assert mcp_function_name("my.server", "do it!") == "mcp__my_server__do_it"
    long = mcp_function_name("s" * 40, "t" * 40)
    assert len(long) == 64 and long.startswith("mcp__" + "s" * 16)
    assert mcp_function_name("s" * 40, "t" * 40) != mcp_function_name("s" * 40, "t" * 41)


def test_builtin_native_schemas_are_valid_json_schema(builtins: Compiler) -> None:
    ctx = make_context("full")
    for vid in builtins.registry.variants:
        for provider in (TEXT, NATIVE):
            tools = builtins.compile(provider, ctx, variant=vid).tools
            for fn in tools.openai():
                jsonschema.Draft202012Validator.check_schema(fn["function"]["parameters"])
            for fn in tools.anthropic():
                jsonschema.Draft202012Validator.check_schema(fn["input_schema"])
            for decl in tools.gemini()[0]["function_declarations"]:
                jsonschema.Draft202012Validator.check_schema(decl["parameters"])
                assert "additionalProperties" not in str(decl["parameters"])


def test_native_mcp_tools_never_take_a_builtin_name(builtins: Compiler) -> None:
    ctx = PromptContext(mcp_servers=[{"name": "files", "tools": [
        {"name": "read_file", "description": "Shadow the built-in.",
         "input_schema": {"type": "object"}}]}])
    out = builtins.compile(NATIVE, ctx, variant="native-next-gen", dynamic="system")
    assert out.tools.mode == "native"
    assert out.tools.names.count("read_file") == 1 and "mcp__files__read_file" in out.tools.names
    assert out.tools.mcp_target("mcp__files__read_file") == ("files", "read_file")
    assert not [d for d in out.diagnostics if d.code == "mcp-renamed"]
    # the MCP section names the function exactly as sent, and says whose words describe it
    section = out.section("mcp_servers").text
    assert '<mcp_tool name="read_file" function="mcp__files__read_file">' in section
    assert '<mcp_server name="files">' in section  # the server's own words, fenced
    [fn] = [f for f in out.tools.anthropic() if f["name"] == "mcp__files__read_file"]
    assert fn["description"] == "[MCP files] Shadow the built-in."  # its server, then its words


def test_builtin_tools_come_first_then_session_tools(builtins: Compiler) -> None:
    """The built-in block depends only on the variant, features, mode and model; tools that
    depend on the session (skills, MCP servers) follow it, then the MCP functions."""
    out = builtins.compile(NATIVE, make_context("full"), variant="native-next-gen", dynamic="system")
    names = out.tools.names
    stable = out.tools.stable
    assert names[stable:stable + 3] == ("access_mcp_resource", "load_skill",
                                        "load_skill_reference")
    assert all(n.startswith("mcp__") for n in names[stable + 3:])
    bare = builtins.compile(NATIVE, make_context("no_rules_skills"), variant="native-next-gen", dynamic="system")
    assert bare.tools.names[:bare.tools.stable] == names[:stable]


@pytest.mark.parametrize("context", ["full", "no_browser", "no_mcp", "no_rules_skills", "plan"])
def test_text_variants_list_exactly_the_enabled_tools(builtins: Compiler, context: str) -> None:
    import re
    ctx = make_context(context)
    for vid in builtins.registry.variants:
        for provider in (TEXT, NATIVE):
            out = builtins.compile(provider, ctx, variant=vid)
            section = out.section("tools")
            if "tools" not in out.variant.components:  # written for native tools only
                assert out.tools.mode == "native" or any(
                    d.code == "tool-mode-unsupported" for d in out.diagnostics)
                continue
            if out.tools.mode == "native":
                assert section is None and "<execute_command>" not in out.text
                continue
            # the static catalogue, then the tools this session brings (MCP, skills)
            extra = out.section("session_tools")
            text = section.text + ("\n" + extra.text if extra is not None else "")
            listed = re.findall(r"^## (\S+)$", text, re.M)
            assert listed == [s.name for s in out.tools.specs], (vid, context)


# --- the tool-mode chain ------------------------------------------------------------------------

@pytest.mark.parametrize("model", ["gpt-4.1", "gpt-4o", "o3", "claude-3-7-sonnet",
                                   "mistral-large-latest"])
def test_models_routed_to_generic_get_native_tools(builtins: Compiler, model: str) -> None:
    provider = {"claude-3-7-sonnet": "anthropic", "mistral-large-latest": "mistral"}.get(
        model, "openai")
    out = builtins.compile(ProviderInfo(provider, model), make_context("full"))
    assert out.variant.id == "generic"
    assert out.tools.mode == "native" and out.tools.decided_by == "model"
    assert out.section("tools") is None and out.section("tool_calling") is not None
    text = builtins.compile(ProviderInfo(provider, model, native_tools=False),
                            make_context("full"))
    assert text.variant.id == "generic" and text.tools.mode == "text"
    assert text.tools.choice is not None and text.tools.choice.decided_by == "client"
    assert text.section("tools") is not None and text.section("tool_calling") is None


def test_the_chain_client_then_variant_then_model_then_text(builtins: Compiler) -> None:
    def choice(provider: ProviderInfo, variant: str | None = None) -> tuple[str, str]:
        c = builtins.compile(provider, PromptContext(), variant=variant).tools.choice
        assert c is not None and c.reason
        return c.mode, c.decided_by
    assert choice(ProviderInfo("ollama", "qwen3:8b")) == ("text", "variant")  # compact pins
    assert choice(ProviderInfo("ollama", "qwen3:8b", native_tools=True)) == ("native", "client")
    assert choice(ProviderInfo("openai", "gpt-4.1")) == ("native", "model")
    assert choice(ProviderInfo("x", "never-heard-of-it"), "generic")[1] in ("model", "default")
    forced = builtins.compile(ProviderInfo("ollama", "qwen3:8b", native_tools=True),
                              PromptContext())
    [note] = [d for d in forced.diagnostics if d.code == "tool-mode-client"]
    assert note.level == "info" and "compact" in note.message
    assert forced.tools.choice is not None and forced.tools.choice.overrides_variant
    assert forced.tools.choice.to_dict()["decided_by"] == "client"


def test_cli_render_follows_the_chain(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from promptc._cli import main
    base = ["render", "--builtins-only", "--provider", "openai", "--model", "gpt-4.1",
            "--date", "2026-01-01", "--format", "openai"]
    assert main(base) == 0
    native = json.loads(capsys.readouterr().out)
    assert native["tools"] and all(t["function"]["strict"] for t in native["tools"])
    assert main([*base, "--native-tools", "no"]) == 0
    text = json.loads(capsys.readouterr().out)
    assert "tools" not in text and "<read_file>" in text["messages"][0]["content"]


@pytest.mark.parametrize(("provider", "model", "mode"), [
    ("zai", "glm-4.6", "native"),                        # Z.ai's API: function calling
    ("openrouter", "z-ai/glm-4.6", "native"),
    ("fireworks_ai", "accounts/fireworks/models/glm-4p6", "native"),
    ("hosted_vllm", "zai-org/GLM-4.6", "text"),          # depends on the server's flags
    ("vllm", "glm-4.5-air", "text"),
])
def test_glm_calls_natively_where_it_is_served_with_function_calling(
        builtins: Compiler, provider: str, model: str, mode: str) -> None:
    """Issue 23: the glm variant follows the model data (no pinned text mode); a self-hosted
    server's GLM gets text tools unless the client says otherwise."""
    out = builtins.compile(ProviderInfo(provider, model), make_context("full"))
    assert out.variant.id == "glm" and out.tools.mode == mode
    assert out.tools.choice is not None and out.tools.choice.decided_by == "model"
    calling = out.section("tool_calling" if mode == "native" else "tool_use")
    assert calling is not None and "chat template" in calling.text
    assert "does nothing" not in out.text  # its own format is read, in either mode


# Every key a tool's [when] table may hold, with a value and whether it holds for the full
# context in act mode, on a model with native tools but no images, in text tool mode.
_EVERY_CONDITION = {"feature": ("browser", True), "mode": (["plan"], False),
                    "has": (["rules", "attachments"], False), "native_tools": (True, True),
                    "images": (True, False), "tool_mode": (["text"], True),
                    "any": ([{"mode": "plan"}, {"tool_mode": "text"}], True),
                    "all": ([{"mode": "plan"}, {"tool_mode": "text"}], False),
                    "not": ({"has": "skills"}, False)}


def test_every_condition_key_compiles_to_its_own_test() -> None:
    assert set(_EVERY_CONDITION) == set(CONDITION_KEYS)  # a new key needs a case here
    context = make_context("full", mode="act")
    provider = ProviderInfo("openai", "gpt-4.1", native_tools=True, images=False).resolved()
    for key, (value, expected) in _EVERY_CONDITION.items():
        condition = compile_condition({key: value}, "look.toml")
        assert condition(context, provider, "text") is expected, (key, condition.description)


def _scribble(value: object) -> None:
    """Change every table and list inside `value`, as a client adding its own tools might."""
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            stack.extend(node.values())
            node["scribbled"] = True
        elif isinstance(node, list):
            stack.extend(node)
            node.append("scribbled")


@pytest.mark.parametrize(("provider", "fmt"), [
    (ProviderInfo("anthropic", "claude-sonnet-4-5"), "anthropic"),
    (ProviderInfo("openai", "gpt-5"), "openai"),
    (ProviderInfo("google", "gemini-3-pro-preview"), "gemini")])
def test_a_client_may_change_every_payload_it_gets(provider: ProviderInfo, fmt: str) -> None:
    """Every call hands out new tables and lists all the way down, whichever way it was made:
    a tool set's first payloads (assembled from its parts), later ones (copied at once), and
    the MCP tools of sessions whose servers only changed their names (made per tool)."""
    compiler = Compiler.builtins()
    schema = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}

    def context(server: str) -> dict[str, object]:
        return {"cwd": "/w", "mcp_servers": [{"name": server, "command": "x", "tools": [
            {"name": "search", "description": "Search.", "input_schema": schema}]}]}
    for server in ("one", "one", "one", "one", "two", "three"):
        prompt = compiler.compile(provider, context(server))
        for _ in range(4):
            payload = getattr(prompt.tools, fmt)()
            before = repr(payload)
            _scribble(payload)
            assert repr(getattr(prompt.tools, fmt)()) == before


# --- free-form tools and parameters every text call carries (issue 33) ------------------------

_ONE = {"name": "input", "type": "string", "required": True, "instruction": "The text."}


@pytest.mark.parametrize(("extra", "parameters"), [
    ({"freeform": "patch"}, [_ONE]),                                    # names no parameter
    ({"freeform": "input"}, [_ONE, {**_ONE, "name": "more"}]),          # not the only one
    ({"freeform": "input"}, [{**_ONE, "type": "integer"}]),             # not a string
    ({"freeform": "input"}, [{**_ONE, "required": False}]),             # not required
    ({"text_parameter": "task progress"}, [_ONE]),                      # not a parameter name
    ({"text_parameter": "carried"}, [_ONE, {**_ONE, "name": "more"}]),  # more than one
])
def test_free_form_and_carried_tools_are_checked_at_load(extra: dict[str, str],
                                                         parameters: list[dict[str, object]]
                                                         ) -> None:
    from promptc._base.errors import ToolSpecError
    from promptc._model.tools import parse_tool
    data = {"name": "t", "description": "T.", **extra, "parameters": parameters}
    with pytest.raises(ToolSpecError) as info:
        parse_tool(data, origin="t.toml")
    assert next(iter(extra)) in str(info.value) and "t.toml" in str(info.value)


def test_a_free_form_or_carried_tool_of_one_parameter_loads() -> None:
    from promptc._model.tools import parse_tool
    free = parse_tool({"name": "t", "description": "T.", "freeform": "input",
                       "parameters": [_ONE]}, origin="t.toml")
    carried = parse_tool({"name": "t", "description": "T.", "text_parameter": "carried",
                          "parameters": [_ONE]}, origin="t.toml")
    assert (free.freeform, carried.text_parameter) == ("input", "carried")


def test_a_carried_parameter_reaches_every_text_tool_once(builtins: Compiler) -> None:
    """`with_carried` adds the carried tool's parameter (optional, shared) after a tool's own,
    and leaves a tool that already has a parameter of that name as it is; with native tools
    update_task_progress is offered on its own."""
    from promptc._model.tools import with_carried
    registry = builtins.registry.tools
    progress, read = registry["update_task_progress"], registry["read_file"]
    made = with_carried(read, [progress])
    assert [p.name for p in made.parameters] == ["path", "task_progress"]
    carried = made.parameters[-1]
    assert carried.shared and not carried.required
    assert carried.instruction == progress.parameters[0].instruction
    assert with_carried(made, [progress]) is made
    native = builtins.compile(ProviderInfo("openai", "gpt-4.1"), make_context("full"))
    assert "update_task_progress" in native.tools.names
    assert all(not p.shared for s in native.tools.specs for p in s.parameters)


def test_formats_that_do_not_hold_a_model_to_the_schema_get_it_open(builtins: Compiler) -> None:
    """Anthropic and Converse (no `strict` sent) get the built-in schemas without the closing
    `additionalProperties: false`; OpenAI strict and the schema as given keep it; an MCP
    server's own schema is sent as it came; the call checker still refuses a parameter the
    tool lacks."""
    from promptc._model.formats import FORMATS
    closed = {"type": "object", "properties": {"q": {"type": "string"}},
              "additionalProperties": False}
    ctx = make_context("full", mcp_servers=[
        {"name": "s", "tools": [{"name": "find", "input_schema": closed}]}])
    prompt = builtins.compile(NATIVE, ctx, variant="native-next-gen", dynamic="system")
    tools = prompt.tools
    opened = {f.id for f in FORMATS for form in f.forms[:1] if form.dialect == "open"}
    assert opened == {"anthropic", "bedrock"}
    schemas = {"anthropic": {t["name"]: t["input_schema"] for t in tools.anthropic()},
               "bedrock": {t["toolSpec"]["name"]: t["toolSpec"]["inputSchema"]["json"]
                           for t in tools.definitions("bedrock")}}
    as_given = {n: s for n, _d, s in tools.functions()}
    strict = {t["function"]["name"]: t["function"]["parameters"]
              for t in tools.openai(api="chat")}
    mcp = "mcp__s__find"
    for by_name in schemas.values():
        assert by_name[mcp] == closed
        for name, schema in by_name.items():
            if name != mcp:
                assert "additionalProperties" not in schema
                assert schema == {k: v for k, v in as_given[name].items()
                                  if k != "additionalProperties"}
    assert all(s["additionalProperties"] is False for s in as_given.values())
    assert all(s["additionalProperties"] is False for s in strict.values())
    refused = tools.decode("list_files", {"path": ".", "depth": 2})
    assert getattr(refused, "code", None) == "unknown-parameter"


def test_each_request_offers_what_its_own_conditions_allow() -> None:
    """The offered tools are kept per outcome of the tool conditions, never per compiler:
    a request without servers after one with them (and back) gets its own offer."""
    c = Compiler.default(project=False, user=False)
    info = ProviderInfo("ollama", "qwen2.5-coder:7b")
    servers = {"mcp_servers": [{"name": "db", "command": "x", "tools": [{"name": "q"}]}]}
    offered = [c.compile(info, data).tools.names for data in (servers, {}, servers, {})]
    assert "use_mcp_tool" in offered[0] and "use_mcp_tool" not in offered[1]
    assert offered[0] == offered[2] and offered[1] == offered[3]
    assert set(offered[0]) - set(offered[1]) == {"use_mcp_tool"}
