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

One name per job in every module: `tools(prompt, run_tool)` builds the framework's tools (where
the framework takes tool objects), `answer_calls(prompt, message, run_tool)` answers a reply's
calls (where the client sends the answers itself). Tool calls come back through
`prompt.tools.decode`, the one call checker: the tool offered, the mode allowing it, the
arguments fitting (an MCP tool's against its server's input schema), the nulls strict mode makes
a model send for optional parameters removed. Your code runs a call as `run_tool(call)` with a
`promptc.ToolCall` and returns text (or an awaitable of text); a call that does not fit never
reaches it, and an exception it raises becomes that call's answer: the model gets the problem
back as the tool's result, and the reply's other calls keep theirs.
"""

from ._common import MissingExtraError

__all__ = ["MissingExtraError"]
