"""Glue for the clients people build agents with; each module imports its framework only when
it is imported itself, and each framework comes with an extra:

===========================================  =================================  ===============
module                                       gives                              install
===========================================  =================================  ===============
`promptc.integrations.litellm`               `completion()` keyword arguments   promptc[litellm]
`promptc.integrations.openai_agents`         an `Agent` per session             promptc[openai-agents]
`promptc.integrations.pydantic_ai`           instructions + a toolset           promptc[pydantic-ai]
`promptc.integrations.langchain`             system message + `bind_tools`      promptc[langchain]
`promptc.integrations.llm`                   `system` + `tools` for `llm`       promptc[llm]
===========================================  =================================  ===============

Tool calls come back through `prompt.tools.decode`: arguments checked against the tool, the nulls
strict mode makes a model send for optional parameters removed, MCP functions mapped to their
server and tool. Your code runs a call as `run_tool(call)` with a `promptc.ToolCall` and returns
text (or an awaitable of text); a call that does not fit its tool never reaches it: the model
gets the problem back as the tool's result instead.
"""

__all__: list[str] = []
