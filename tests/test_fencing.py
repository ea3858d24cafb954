"""Outside text stays inside its element: any string in any slot that comes from outside the
pack (rules, MCP servers, tools and resources, skills, the environment, attachment names,
runtime values) renders inside an element whose tag says what it is, verbatim apart from the
documented neutralization (promptc._text.fence), and changes nothing outside its element: no
new section, header, separator or diff marker, and the pack's own words stay byte-identical.

The fence functions themselves come first: an attribute stays on one line and inside its quotes;
a body stays verbatim except that it can close no fence element."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promptc import Compiler, PromptContext, ProviderInfo
from promptc._text.fence import FENCE_TAGS, attribute, body, mask, one_line
from promptc.testing import make_context


# --- the fence functions --------------------------------------------------------------------------

TAGS = sorted(FENCE_TAGS)
closing_any_spelling = st.builds(
    lambda sp1, slash_sp, tag, end: f"<{sp1}/{slash_sp}{tag}{end}",
    st.sampled_from(["", " ", "\t", "\n"]), st.sampled_from(["", " "]),
    st.sampled_from(TAGS + [t.upper() for t in TAGS] + ["User_Rules"]),
    st.sampled_from([">", " >", "", "\n", "/>"]))
others = st.sampled_from(["</div>", "</skills>", "</user_rulesx>", "<user_rules>", "<\\/skill>",
                          "&amp;", '"', "\u2028", "\r\n", "\x00", "\x85", "====", "# H"])
payload = st.lists(st.one_of(closing_any_spelling, others, st.text(max_size=12)),
                   max_size=8).map("".join)

# Written independently of the module: how a reader would spot a closing fence tag.
CLOSES_A_FENCE = re.compile(r"<\s*/\s*(" + "|".join(TAGS) + r")(?![\w-])", re.IGNORECASE)


@given(payload)
def test_a_body_closes_no_fence_and_is_otherwise_verbatim(value: str) -> None:
    fenced = body(value)
    assert not CLOSES_A_FENCE.search(fenced)
    # The one documented change, and nothing else: each closing fence tag starts `<\/`.
    assert fenced == CLOSES_A_FENCE.sub(lambda m: "<\\/" + m.group(1), value)
    assert body(fenced) == fenced  # idempotent: fencing fenced text changes nothing


@given(st.text().filter(lambda v: not CLOSES_A_FENCE.search(v)))
def test_a_body_without_closing_tags_is_untouched(value: str) -> None:
    assert body(value) == value


def test_other_markup_survives() -> None:
    text = "<div>a</div> </skills> </user_rulesx> <user_rules>"
    assert body(text) == text
    assert body("x </USER_RULES> y") == "x <\\/USER_RULES> y"
    assert body("x < / mcp_tool > y") == "x <\\/mcp_tool > y"


@given(payload)
def test_an_attribute_is_one_line_and_stays_in_its_quotes(value: str) -> None:
    text = attribute(value)
    assert not re.search("[\x00-\x1f\x7f-\x9f\u2028\u2029\"<>]", text)
    assert html.unescape(text) == one_line(value)  # nothing but the documented changes
    assert len(one_line(value)) == len(value)  # one space per removed character


# --- outside text in the rendered prompts ---------------------------------------------------------

MARK = "QQ9MARKQQ"
TEXT = ProviderInfo("openai", "gpt-4.1", native_tools=False, images=False)
NATIVE = ProviderInfo("anthropic", "claude-sonnet-4-5", images=False)
VARIANTS = [("generic", TEXT), ("native-next-gen", NATIVE), ("compact", TEXT),
            ("glm", TEXT), ("gpt-5", ProviderInfo("openai", "gpt-5", images=False))]


def _rules(ctx: PromptContext, field: str, v: str) -> PromptContext:
    rules = [attrs.asdict(r) for r in ctx.rules]
    rules[0][field] = v
    return attrs.evolve(ctx, rules=rules)


def _mcp(ctx: PromptContext, path: tuple[Any, ...], v: str) -> PromptContext:
    servers = [attrs.asdict(s) for s in ctx.mcp_servers]
    node: Any = servers
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = v
    return attrs.evolve(ctx, mcp_servers=servers)


def _skill(ctx: PromptContext, field: str, v: str) -> PromptContext:
    skills = [attrs.asdict(s) for s in ctx.skills]
    if field == "references":
        skills[0]["references"] = [v, *skills[0]["references"][1:]]
    else:
        skills[0][field] = v
    return attrs.evolve(ctx, skills=skills)


def _root(ctx: PromptContext, field: str, v: str) -> PromptContext:
    roots = [attrs.asdict(r) for r in ctx.workspace_roots]
    roots[0][field] = v
    return attrs.evolve(ctx, workspace_roots=roots)


# slot -> (how the value is neutralized, how to put it in a context)
Slot = tuple[str, Callable[[PromptContext, str], PromptContext]]
SLOTS: dict[str, Slot] = {
    "rule name": ("attribute", lambda c, v: _rules(c, "name", v)),
    "rule source": ("attribute", lambda c, v: _rules(c, "origin", v)),
    "rule text": ("body", lambda c, v: _rules(c, "text", v)),
    "mcp server name": ("attribute", lambda c, v: _mcp(c, (0, "name"), v)),
    "mcp tool name": ("attribute", lambda c, v: _mcp(c, (0, "tools", 0, "name"), v)),
    "mcp tool description": ("body", lambda c, v: _mcp(c, (0, "tools", 0, "description"), v)),
    "mcp resource name": ("attribute", lambda c, v: _mcp(c, (0, "resources", 0, "name"), v)),
    "mcp resource uri": ("attribute", lambda c, v: _mcp(c, (0, "resources", 0, "uri"), v)),
    "mcp resource description": ("body",
                                 lambda c, v: _mcp(c, (0, "resources", 0, "description"), v)),
    "mcp resource template": ("attribute", lambda c, v: _mcp(
        c, (0, "resource_templates", 0, "uri_template"), v)),
    "skill name": ("attribute", lambda c, v: _skill(c, "name", v)),
    "skill description": ("body", lambda c, v: _skill(c, "description", v)),
    "skill reference": ("attribute", lambda c, v: _skill(c, "references", v)),
    "cwd": ("attribute", lambda c, v: attrs.evolve(c, cwd=v)),
    "os": ("attribute", lambda c, v: attrs.evolve(c, os=v)),
    "shell": ("attribute", lambda c, v: attrs.evolve(c, shell=v)),
    "home": ("attribute", lambda c, v: attrs.evolve(c, home=v)),
    "ide": ("attribute", lambda c, v: attrs.evolve(c, ide=v)),
    "workspace root path": ("attribute", lambda c, v: _root(c, "path", v)),
    "workspace root name": ("attribute", lambda c, v: _root(c, "name", v)),
    "attachment name": ("attribute", lambda c, v: attrs.evolve(
        c, attachments=[{"name": v, "type": "image/png"}])),
    "runtime value": ("body", lambda c, v: attrs.evolve(c, runtime={"request_info": v})),
}

closing = st.sampled_from([f"</{t}>" for t in sorted(FENCE_TAGS)] +
                          ["</USER_RULES>", "< / mcp_server >", "</skill\n", "<\\/skill>"])
tricky = st.sampled_from([
    "\n", "\n\n\n", "====", "\n====\n", "=======", "------- SEARCH", "+++++++ REPLACE",
    "\n# Header\n", "## ", "```", "\r\n", "\t", "\u2028", "\x00", "\x1b[31m", '"', "'", "&amp;",
    "<b>", ">", "`", "{{X}}", "{{#a}}", "<user_rules>", '" evil="1', "/>",
])
payloads = st.lists(st.one_of(closing, tricky, st.text(max_size=12)), min_size=1,
                    max_size=8).map("".join).map(lambda v: f"x{v}x")  # never blank


def lf(value: str) -> str:
    """Text fields fold CRLF and CR to LF when a record is made."""
    return value.replace("\r\n", "\n").replace("\r", "\n")


def fenced(kind: str, value: str) -> str:
    return attribute(value) if kind == "attribute" else body(lf(value))


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow],
          max_examples=min(300, settings.default.max_examples))
@given(case=st.sampled_from(VARIANTS), slot=st.sampled_from(sorted(SLOTS)), value=payloads)
def test_any_value_in_any_slot_stays_inside_its_element(
        builtins: Compiler, case: tuple[str, ProviderInfo], slot: str, value: str) -> None:
    variant, provider = case
    kind, put = SLOTS[slot]
    base = make_context("full")
    neutral = builtins.compile(provider, put(base, MARK), variant=variant)
    if MARK not in neutral.text:
        return  # the variant does not show this slot (compact shows no resources)
    prompt = builtins.compile(provider, put(base, value), variant=variant)
    # verbatim apart from the documented neutralization, inside an element …
    assert fenced(kind, value) in prompt.text
    # … and outside the elements nothing changed: no section, header, separator or diff
    # marker. (A skill name or reference path is also the value of the generated load_skill
    # example, `<name>…</name>` on a line of its own: there it is the same one-line,
    # escaped form.)
    outside = mask(neutral.text)
    if kind == "attribute":
        outside = outside.replace(MARK, attribute(value))
    assert mask(prompt.text) == outside
    assert [s.id for s in prompt.sections] == [s.id for s in neutral.sections]


@pytest.mark.parametrize("slot", sorted(SLOTS))
def test_every_slot_is_fenced(builtins: Compiler, slot: str) -> None:
    """Each slot's marker is inside a fence element in the generic prompt, text and native."""
    kind, put = SLOTS[slot]
    for provider in (TEXT, NATIVE):
        prompt = builtins.compile(provider, put(make_context("full"), MARK), variant="generic")
        if slot.startswith("mcp tool") or slot == "mcp server name" or "resource" in slot \
                or slot.startswith(("skill", "rule", "cwd", "os", "shell", "home", "ide",
                                    "workspace", "attachment", "runtime")):
            assert MARK in prompt.text, (slot, provider.native_tools)
        shown = mask(prompt.text)
        if slot in ("skill name", "skill reference"):  # also the load_skill example's value
            shown = re.sub(r"(?m)^<(name|path|skill)>%s</\1>$" % MARK, "", shown)
        assert MARK not in shown, (slot, provider.native_tools)
