"""What the registry knows of each built-in component besides its text (in `components/<id>.md`).

For every built-in id: the names its data provides to the template, the request values that data
is computed from (`reads`: the whole input, so outputs are memoized by exactly those values), how
important the section is when a budget is tight, and whether a per-request data function feeds
it. The functions themselves belong to the compile stage (promptc/_compile/builtin_data.py); a
component read from a folder under a built-in id keeps these settings and that data.
"""

from __future__ import annotations

import attrs

__all__ = ["BUILTIN_COMPONENTS", "ComponentDef", "SHARED_TEMPLATES"]

# Components rendered with another component's template file, unless a folder gives them their
# own: the per-session tool catalogue is written exactly like the static one.
SHARED_TEMPLATES = {"session_tools": "tools"}


@attrs.frozen(eq=False)
class ComponentDef:
    fed: bool = False  # a data function computes its template's values per request
    provides: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()
    priority: int = 50
    required: bool = False


# `required`: the core a budget never drops (the role, safety, the mode rule, the tool-call
# format) and every section that documents offered tools (a budget cannot withdraw the tools,
# so it keeps their documentation; it may still use the shorter form).
BUILTIN_COMPONENTS: dict[str, ComponentDef] = {
    "agent_role": ComponentDef(priority=100, required=True),
    "tool_use": ComponentDef(True, reads=("provider",), priority=95, required=True),
    "tool_calling": ComponentDef(True, provides=("parallel", "sequential", "mcp_functions"),
                                 reads=("provider",), priority=95, required=True),
    "tools": ComponentDef(True, provides=("tools", "session"),
                          reads=("provider", "stable_tools"), priority=90, required=True),
    "session_tools": ComponentDef(True, provides=("tools", "session"),
                                  reads=("provider", "tools"), priority=90, required=True),
    "mcp_servers": ComponentDef(True, provides=("servers", "text_mode", "native_mode",
                                                "any_resources"),
                                reads=("provider", "mcp_servers"), priority=70, required=True),
    "editing_files": ComponentDef(True, provides=("text_mode", "native_mode"),
                                  reads=("provider",), priority=80, required=True),
    "act_vs_plan_mode": ComponentDef(True, provides=("plan", "act", "not_now", "mcp_not_now",
                                                     "mcp_rule", "plan_only", "act_only"),
                                     reads=("mode", "tools", "provider",
                                            "mcp_servers_in_plan"),
                                     priority=75, required=True),
    "capabilities": ComponentDef(True, provides=("browser", "web_fetch", "images"),
                                 reads=("provider", "features.browser", "features.web_fetch"),
                                 priority=40),
    "rules": ComponentDef(priority=60),
    "safety": ComponentDef(priority=99, required=True),
    "system_info": ComponentDef(True, provides=("os", "shell", "home", "cwd", "ide", "roots",
                                                "multi_root"),
                                reads=("os", "shell", "home", "cwd", "ide", "workspace_roots"),
                                priority=85),
    "objective": ComponentDef(priority=65),
    "user_instructions": ComponentDef(True, provides=("rules",), reads=("rules",), priority=88),
    "skills": ComponentDef(True, provides=("skills", "any_references", "text_mode"),
                           reads=("provider", "skills"), priority=55, required=True),
    "task_progress": ComponentDef(True, provides=("text_mode", "native_mode", "parallel"),
                                  reads=("features.task_progress", "provider"), priority=30,
                                  required=True),
    "notices": ComponentDef(True, provides=("unreadable_images",),
                            reads=("provider", "attachments"), priority=92),
    "request_info": ComponentDef(priority=20),
}
