"""Calls coming back: what a model sends after reading a prompt, read, checked and answered.

One checker (`checker.CallChecker`) stands behind every way a call arrives: a reply in the
taught text format (`reader`), a model's own call markup (`foreign`), a native call's JSON
(`arguments`), an MCP tool through `use_mcp_tool` or `mcp__<server>__<tool>` (`mcp_check`),
and a provider's call object (`wire`). Whatever is wrong with a call becomes data
(`records.CallError`, with problem codes from `records.Problem`) whose message can be sent
back to the model as the call's result; nothing here raises on what a model wrote.
"""
