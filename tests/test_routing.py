"""Routing: real model ids, spelled the way each provider spells them, reach the intended variant.

Each row is (provider, model id as sent, capabilities the client states, expected variant). The ids
come from the providers' own catalogues: direct APIs, OpenRouter (`vendor/model`, `:free`),
Bedrock (region prefixes, `-v1:0`), Vertex (`@date`), Azure, and local servers (ollama tags,
LM Studio paths, llama.cpp GGUF file names with quantization suffixes). Then every chat model in
LiteLLM's map is routed and checked against the rules the README's variant table states.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from promptc import Compiler, ProviderInfo, normalize_model_id


@pytest.fixture(scope="module")
def compiler() -> Compiler:
    return Compiler.builtins()


def _case(provider: str, model: str, expected: str, **caps: object) -> object:
    label = f"{provider}-{model}" + "".join(f"-{k}={v}" for k, v in sorted(caps.items()))
    safe = re.sub(r"[^A-Za-z0-9_.=-]+", "_", label)
    return pytest.param(provider, model, caps, expected, id=safe)


CASES = [
    # --- Claude 4+: native tool calling -> native-next-gen -------------------------------------
    _case("anthropic", "claude-sonnet-4-5", "native-next-gen"),
    _case("anthropic", "claude-sonnet-4-20250514", "native-next-gen"),
    _case("anthropic", "claude-opus-4-1-20250805", "native-next-gen"),
    _case("anthropic", "claude-opus-4-5", "native-next-gen"),
    _case("anthropic", "claude-haiku-4-5", "native-next-gen"),
    _case("openrouter", "anthropic/claude-opus-4.1", "native-next-gen"),
    _case("openrouter", "anthropic/claude-sonnet-4.5", "native-next-gen"),
    _case("bedrock", "us.anthropic.claude-sonnet-4-5-20250929-v1:0", "native-next-gen"),
    _case("bedrock", "eu.anthropic.claude-opus-4-1-20250805-v1:0", "native-next-gen"),
    _case("bedrock", "global.anthropic.claude-haiku-4-5-20251001-v1:0", "native-next-gen"),
    _case("bedrock", "apac.anthropic.claude-sonnet-4-20250514-v1:0", "native-next-gen"),
    _case("vertex", "claude-sonnet-4-5@20250929", "native-next-gen"),
    _case("vertex", "claude-opus-4-1@20250805", "native-next-gen"),
    # --- Claude 3.x stays on the fallback ----------------------------------------------------
    _case("anthropic", "claude-3-7-sonnet-20250219", "generic"),
    _case("anthropic", "claude-3-5-haiku-20241022", "generic"),
    _case("bedrock", "anthropic.claude-3-7-sonnet-20250219-v1:0", "generic"),
    # --- GPT-5 family -> gpt-5; older OpenAI models -> generic --------------------------------
    _case("openai", "gpt-5", "gpt-5"),
    _case("openai", "gpt-5-codex", "gpt-5-codex"),              # no preamble spec (Codex guide)
    _case("openrouter", "openai/gpt-5.1-codex-max", "gpt-5-codex"),
    _case("azure", "codex-deployment", "gpt-5-codex", family="gpt-5-codex"),
    _case("openai", "gpt-5.1", "gpt-5"),
    _case("openai", "gpt-5-nano", "gpt-5"),
    _case("openrouter", "openai/gpt-5.1", "gpt-5"),
    _case("azure", "gpt-5-mini", "gpt-5"),
    _case("openai", "gpt-4o", "generic"),
    _case("azure", "gpt-4.1", "generic"),
    _case("azure", "prod-chat-deployment", "gpt-5", family="gpt-5"),
    _case("azure", "prod-chat-deployment", "generic"),
    # LiteLLM: R1 on Bedrock has no function calling, so the same family with text tools.
    _case("bedrock", "us.deepseek.r1-v1:0", "next-gen"),
    _case("openai", "gpt-4.1-mini", "generic"),
    _case("openai", "o3", "generic"),
    _case("openrouter", "openai/gpt-oss-120b", "generic"),
    _case("bedrock", "openai.gpt-oss-120b-1:0", "generic"),
    # --- Gemini: 3 -> gemini-3, 2.5 -> native-next-gen, 2.0 -> generic -------------------------
    _case("google", "gemini-3-pro-preview", "gemini-3"),
    _case("vertex", "gemini-3-pro-preview", "gemini-3"),
    _case("openrouter", "google/gemini-3-pro", "gemini-3"),
    _case("google", "models/gemini-2.5-flash", "native-next-gen"),
    _case("vertex", "gemini-2.5-pro", "native-next-gen"),
    _case("openrouter", "google/gemini-2.5-flash", "native-next-gen"),
    _case("gemini", "gemini-2.0-flash", "generic"),
    # --- GLM (including the vision models) -> glm ---------------------------------------------
    _case("openrouter", "z-ai/glm-4.6", "glm"),
    _case("zhipuai", "glm-4.5", "glm"),
    _case("zai", "glm-4.7", "glm"),
    _case("openrouter", "z-ai/glm-4.5-air:free", "glm"),
    _case("openrouter", "z-ai/glm-4.5v", "glm"),
    _case("zai", "glm-4.6v", "glm"),
    # --- Grok 4, Kimi K2, DeepSeek V3+, Qwen3 -> native-next-gen -------------------------------
    _case("xai", "grok-4", "native-next-gen"),
    _case("xai", "grok-4-fast-reasoning", "native-next-gen"),
    _case("openrouter", "x-ai/grok-code-fast-1", "native-next-gen"),
    _case("xai", "grok-3", "generic"),
    _case("xai", "grok-4.3", "native-next-gen"),
    _case("moonshot", "kimi-k2-0905-preview", "native-next-gen"),
    _case("openrouter", "moonshotai/kimi-k2:free", "native-next-gen"),
    _case("deepseek", "deepseek-chat", "native-next-gen"),
    _case("deepseek", "deepseek-reasoner", "next-gen"),  # LiteLLM: no function calling
    _case("deepseek", "deepseek-reasoner", "native-next-gen", native_tools=True),
    _case("openrouter", "deepseek/deepseek-chat-v3.1:free", "native-next-gen"),
    _case("openrouter", "qwen/qwen3-coder", "native-next-gen"),
    _case("bedrock", "qwen.qwen3-coder-30b-a3b-v1:0", "native-next-gen"),
    # --- Other known and unknown models -> generic --------------------------------------------
    # Measured facts, not a list: llama-3.1-8b has a 128k window, so the full generic prompt.
    _case("openrouter", "meta-llama/llama-3.1-8b-instruct", "generic"),
    _case("mistral", "devstral-small-2505", "generic"),
    _case("openrouter", "mistralai/devstral-medium", "generic"),
    _case("mistral", "mistral-large-latest", "generic"),
    _case("openai-compatible", "my-finetune", "generic"),
    _case("openai", "ft:gpt-4o-2024-08-06:acme::AbC123", "generic"),
    _case("openai", "ft:gpt-5-mini-2025-08-07:acme::AbC123", "gpt-5"),
    # --- Releases newer than the model data route like their family -----------------------------
    _case("anthropic", "claude-opus-7", "native-next-gen"),
    _case("openrouter", "anthropic/claude-sonnet-6.1", "native-next-gen"),
    _case("bedrock", "global.anthropic.claude-haiku-6-20300101-v1:0", "native-next-gen"),
    _case("zai", "glm-6", "glm"),
    _case("openrouter", "z-ai/glm-5.9v", "glm"),
    _case("google", "gemini-3.9-flash", "gemini-3"),
    _case("openai", "gpt-7-mini", "gpt-5"),
    _case("xai", "grok-5", "native-next-gen"),
    _case("moonshot", "kimi-k5", "native-next-gen"),
    _case("deepseek", "deepseek-v9", "native-next-gen"),
    _case("openrouter", "qwen/qwen4-coder", "native-next-gen"),
    # --- Local servers: compact whatever the model ----------------------------------------------
    _case("ollama", "llama3.1:8b", "compact"),
    _case("ollama", "qwen2.5-coder:7b", "compact"),
    _case("ollama", "qwen3-coder:30b", "compact"),
    _case("ollama", "deepseek-r1:14b-qwen-distill-q4_K_M", "compact"),
    _case("lmstudio", "qwen/qwen3-coder-30b", "compact"),
    _case("lmstudio", "openai/gpt-oss-20b", "compact"),
    _case("llama.cpp", "Qwen2.5-Coder-7B-Instruct-Q4_K_M.gguf", "compact"),
    _case("ollama", "llama3.1:70b", "compact", context_window=131072),
    # --- Small context windows: compact whatever the provider ----------------------------------
    _case("openai", "gpt-4", "compact"),
    _case("openai", "gpt-3.5-turbo", "compact"),
    _case("together_ai", "Qwen/Qwen2.5-72B-Instruct", "compact"),  # 32k there (LiteLLM)
    _case("anthropic", "claude-sonnet-4-5", "compact", context_window=16000),
    _case("openai", "gpt-5", "compact", context_window=16000),
    _case("openrouter", "acme/tiny-coder", "compact", context_window=8192),
    _case("deepseek", "deepseek-chat", "compact", context_window=32768),
    _case("deepseek", "deepseek-chat", "native-next-gen", context_window=32769),
    # --- The client says the model has no native tool calling -----------------------------------
    _case("anthropic", "claude-sonnet-4-5", "next-gen", native_tools=False),
    _case("bedrock", "us.anthropic.claude-opus-4-1-20250805-v1:0", "next-gen", native_tools=False),
    _case("openrouter", "qwen/qwen3-coder", "next-gen", native_tools=False),
    _case("openrouter", "x-ai/grok-4", "next-gen", native_tools=False),
    _case("vertex", "gemini-2.5-pro", "next-gen", native_tools=False),
    # Families with their own variant keep it; the variant switches to text calls instead.
    _case("openai", "gpt-5", "gpt-5", native_tools=False),
    _case("google", "gemini-3-pro-preview", "gemini-3", native_tools=False),
    # Native tool calling alone does not make a model next-gen.
    _case("openai", "gpt-4o", "generic", native_tools=True),
    _case("openai-compatible", "my-finetune", "generic", native_tools=True),
]


@pytest.mark.parametrize(("provider", "model", "caps", "expected"), CASES)
def test_routes_to_variant(compiler: Compiler, provider: str, model: str,
                           caps: dict[str, object], expected: str) -> None:
    resolution = compiler.resolve(ProviderInfo(provider, model, **caps))
    assert resolution.variant.id == expected, [
        (t.variant, t.matched, t.reason) for t in resolution.trace]


def test_case_ids_are_unique_and_path_safe() -> None:
    ids = [p.id for p in CASES]
    assert len(ids) == len(set(ids))
    assert not any("/" in i or ":" in i for i in ids)


def test_every_routing_case_names_a_builtin_variant(compiler: Compiler) -> None:
    assert {p.values[3] for p in CASES} <= set(compiler.variants)


# The tool mode each routed request ends up with: the variant's choice, else the capability.
@pytest.mark.parametrize(("provider", "model", "caps", "mode"), [
    pytest.param("anthropic", "claude-sonnet-4-5", {}, "native", id="claude-native"),
    pytest.param("anthropic", "claude-sonnet-4-5", {"native_tools": False}, "text",
                 id="claude-next-gen-text"),
    pytest.param("openai", "gpt-5", {}, "native", id="gpt-5-auto-native"),
    pytest.param("openai", "gpt-5", {"native_tools": False}, "text", id="gpt-5-auto-text"),
    pytest.param("google", "gemini-3-pro-preview", {}, "native", id="gemini-3-auto-native"),
    pytest.param("openrouter", "z-ai/glm-4.6", {}, "native", id="glm-native-where-served"),
    pytest.param("hosted_vllm", "zai-org/GLM-4.6", {}, "text", id="glm-self-hosted-text"),
    pytest.param("ollama", "qwen3-coder:30b", {}, "text", id="compact-always-text"),
    pytest.param("openai", "gpt-4o", {}, "native", id="generic-native"),
    pytest.param("openai", "gpt-4.1", {"native_tools": False}, "text", id="generic-text"),
    pytest.param("anthropic", "claude-3-7-sonnet", {}, "native", id="generic-claude-3-7"),
])
def test_tool_mode(compiler: Compiler, provider: str, model: str, caps: dict[str, object],
                   mode: str) -> None:
    prompt = compiler.compile(ProviderInfo(provider, model, **caps))
    assert prompt.tools.mode == mode
    has_catalogue = prompt.section("tools") is not None
    assert has_catalogue == (mode == "text")


def test_gpt_5_edits_with_apply_patch(compiler: Compiler) -> None:
    from promptc import PromptContext
    prompt = compiler.compile(ProviderInfo("openai", "gpt-5"), PromptContext(mode="act"))
    names = set(prompt.tools.names)
    assert "apply_patch" in names
    assert not names & {"write_to_file", "replace_in_file"}


# --- every chat model in LiteLLM's map -----------------------------------------------------------
# The README's variant table, as rules over the normalized id (written independently of the
# overlay's family patterns): a later release of each family is covered by the version ranges.
MAP = json.loads((Path(__file__).parent / "fixtures" / "litellm_chat_models.json")
                 .read_text(encoding="utf-8"))
LOCAL = frozenset(("ollama", "lemonade"))
GLUED = r"^(?:(?:databricks|openai|anthropic|google|meta|alibaba|zai|fw|system-ai|coding|spot|" \
        r"moonshotai|mistralai)-)?"
END = r"(?:-|$)"
RULES = [  # (variant, regex on the normalized id, unless this regex matches)
    ("gpt-5-codex", GLUED + r"gpt-[5-9](?:-\d\d?)?-codex" + END, None),  # GPT-5 Codex models
    ("gpt-5", GLUED + r"gpt-[5-9]" + END, None),                       # GPT-5 and later
    ("gemini-3", GLUED + r"gemini-[3-9]" + END, None),                 # Gemini 3 and later
    ("glm", GLUED + r"glm-(?:4-[5-9]|[5-9](?:-\d\d?)?)v?" + END, None),  # GLM 4.5 and later
    ("frontier", GLUED + r"claude-(?:[a-z]+-)?[4-9]" + END, None),     # Claude 4 and later
    ("frontier", GLUED + r"gemini-2-5" + END, None),                   # Gemini 2.5
    ("frontier", GLUED + r"(?:grok-?[4-9]|grok-code)" + END, None),    # Grok 4 and later
    ("frontier", GLUED + r"kimi-k[2-9]" + END, None),                  # Kimi K2 and later
    ("frontier", GLUED + r"deepseek-(?:v[3-9]|r[1-9]|chat|reasoner)" + END,  # DeepSeek V3+, R1
     r"-(?:distill|qwen|qwen3|llama|llama3)(?:-|$)"),                  # (not the distills)
    ("frontier", GLUED + r"qwen-?[3-9]" + END, None),                  # Qwen3 and later
]


def stated_variant(raw: str, provider: str, window: int | None, tools: bool | None,
                   info: ProviderInfo) -> str:
    """The variant the README's table says a map entry gets. The entry's own window and tool
    calling are the measured facts; where the entry does not say, what promptc resolved."""
    window = window if window is not None else info.context_window
    if provider in LOCAL or (window or 0) <= 32768:
        return "compact"
    model = normalize_model_id(raw)
    for variant, rule, unless in RULES:
        if re.search(rule, model) and not (unless and re.search(unless, model)):
            if variant != "frontier":
                return variant
            native = tools if tools is not None else info.native_tools
            return "native-next-gen" if native else "next-gen"
    return "generic"


def test_every_chat_model_in_the_map_routes_by_the_stated_rules(compiler: Compiler) -> None:
    wrong = []
    routed: Counter[str] = Counter()
    for raw, provider, window, tools in MAP["models"]:
        info = ProviderInfo(provider or "", raw)
        got = compiler.resolve(info).variant.id
        routed[got] += 1
        want = stated_variant(raw, provider or "", window, tools, info.resolved())
        if got != want:
            wrong.append((raw, provider, want, got))
    assert not wrong, wrong[:20]
    assert sum(routed.values()) == len(MAP["models"]) > 3000
