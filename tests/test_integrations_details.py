"""The doors that hold a session send its environment details without client code, and the
stateless integrations take the previous prompt: each update follows the conversation as a
message of its own, after everything sent before, with the same instructions and tools
(through the real frameworks, against the local fake server of tests/test_integrations.py)."""

from __future__ import annotations

from typing import Any

from promptc import Compiler, ProviderInfo
from promptc.testing import make_context

from .fakeserver import FakeServer, Reply
from .test_integrations import CLAUDE, GPT, Runner, local_only, server  # noqa: F401


def test_the_agent_sends_what_a_run_changes_as_a_message_of_its_own(
        builtins: Compiler, server: FakeServer) -> None:
    """Run one in act mode, run two (the history passed on as the SDK gives it) in plan mode:
    the instructions and tools are the same bytes, everything run one sent comes first
    again, and the mode section follows the new input as an update of its own."""
    import attrs
    from agents import Runner as AgentsRunner

    from promptc.integrations.openai_agents import make_agent
    server.script("responses", Reply("Done."), Reply("Planned."))
    act = make_context("full")
    agent = make_agent(builtins, GPT, act, Runner(), model="gpt-4.1")
    result = AgentsRunner.run_sync(agent, "Go.", context=act)
    plan = attrs.evolve(act, mode="plan")
    AgentsRunner.run_sync(agent, [*result.to_input_list(), {"role": "user", "content": "Plan."}],
                          context=plan)
    first, second = server.bodies("responses")
    assert first["instructions"] == second["instructions"] and first["tools"] == second["tools"]
    assert second["input"][:len(first["input"])] == first["input"]
    update = builtins.compile(GPT, plan).message_update(builtins.compile(GPT, act))
    assert second["input"][-1] == {"role": "user", "content": update}
    assert second["input"][-2]["content"] == "Plan." and "# Current mode: plan" in update


def act_and_plan(builtins: Compiler, provider: ProviderInfo) -> tuple[Any, Any, str]:
    """A session's prompts in act then plan mode, and the update between them."""
    import attrs
    act = make_context("full")
    first = builtins.compile(provider, act)
    later = builtins.compile(provider, attrs.evolve(act, mode="plan"))
    update = later.message_update(first)
    assert update.startswith("<environment_details>") and "plan" in update
    return first, later, update


def test_the_stateless_integrations_add_the_update_after_the_conversation(
        builtins: Compiler) -> None:
    """LiteLLM, LangChain and llm take the previous prompt and the conversation as sent: it is
    kept as it is, and the update follows it as a message of its own."""
    from promptc.integrations import langchain, litellm, llm
    first, later, update = act_and_plan(builtins, GPT)
    kwargs = litellm.completion_kwargs(first, [{"role": "user", "content": "Hi"}])
    history = [*kwargs["messages"][1:], {"role": "assistant", "content": "Hello"}]
    again = litellm.completion_kwargs(later, history, previous=first)
    assert again["messages"] == [kwargs["messages"][0], *history,
                                 {"role": "user", "content": update}]
    assert litellm.completion_kwargs(first, history, previous=first)["messages"][1:] == history
    sent = langchain.messages(first, [("user", "Hi")])
    assert [m.content for m in sent[:2]] == [first.system, first.message]
    more = langchain.messages(later, sent[1:], previous=first)
    assert more[:-1] == sent and more[-1].content == update
    opening = llm.prompt_kwargs(first, Runner(), "Hi")["messages"]
    assert [m.parts[0].text for m in opening] == [first.system, first.message, "Hi"]
    follow = llm.prompt_kwargs(later, Runner(), "Go on.", previous=first,
                               history=opening[1:])["messages"]
    assert follow[:3] == opening and [m.parts[0].text for m in follow[3:]] == ["Go on.", update]


def test_pydantic_ai_sends_what_a_runs_deps_change(builtins: Compiler,
                                                   server: FakeServer) -> None:
    """Given the compiler, a run whose deps is another PromptContext of the session gets the
    sections that changed as a request of their own, after everything sent before, with the
    same instructions."""
    import attrs
    from pydantic_ai import Agent

    from promptc.integrations.pydantic_ai import agent_kwargs
    first, later, update = act_and_plan(builtins, CLAUDE)
    agent = Agent("anthropic:claude-sonnet-4-5",
                  **agent_kwargs(first, Runner(), compiler=builtins))
    one = agent.run_sync("Hi", deps=make_context("full"))
    agent.run_sync("Plan it.", deps=attrs.evolve(make_context("full"), mode="plan"),
                   message_history=one.all_messages())
    before, after = server.bodies("anthropic")
    assert before["system"] == after["system"] and before["tools"] == after["tools"]
    assert after["messages"][0] == before["messages"][0]  # sent again as it was
    texts = [b.get("text") for m in after["messages"] for b in m["content"]
             if isinstance(b, dict)]
    assert texts[0] == first.message and texts.count(first.message) == 1
    assert texts[-1] == update and "Plan it." in texts
