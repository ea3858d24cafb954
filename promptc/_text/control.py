"""Chat-template control tokens in outside text: kept readable, never readable as the token.

A model's chat template marks turns, roles and ends with special tokens (`<|im_start|>system`,
`<|eot_id|>`, `<start_of_turn>`, `[INST]`…). Hosted APIs tokenize a request's text as plain
text, but local servers (llama.cpp, Ollama, vLLM and the Hugging Face tokenizers under them)
render the chat template into one string and tokenize it with special tokens parsed: a rules
file, an MCP description or a runtime value holding `<|im_end|>`, then `<|im_start|>system`,
would end the system turn and open another. Every slot outside text reaches passes through here:
bodies and attributes (by way of promptc._text.fence), the prose of an MCP tool's native
definition (`neutral_annotations`, the server's name in its description's mark) and skill names
and paths offered as a parameter's options (promptc._model.tools.sources_of).

A control token gets a backslash after its first character (`<\\|im_start|>`, `[\\INST]`,
`<\\start_of_turn>`, `]\\~b]`): a human, and the model, still read what it says, and no
tokenizer's added-token table holds the escaped spelling. The same backslash as the fence's
(promptc._text.fence), so escaping twice changes nothing.

The tokens, as the models' tokenizer configurations (`added_tokens_decoder`, tekken's special
tokens) spell them:

- `<|name|>`: every token of this shape, whatever the name (ChatML: Qwen, Yi, Phi-4, Kimi's
  `<|im_system|>`; Llama 3 and 4: `<|begin_of_text|>`, `<|start_header_id|>`, `<|eot_id|>`,
  `<|python_tag|>`; GLM-4: `<|system|>`, `<|user|>`, `<|assistant|>`, `<|observation|>`;
  gpt-oss Harmony: `<|start|>`, `<|channel|>`, `<|message|>`, `<|end|>`, `<|return|>`,
  `<|call|>`, `<|constrain|>`; OpenAI's `<|endoftext|>`, `<|fim_prefix|>`; Command R,
  Granite, Phi-3…). The name may hold letters, digits, `_ . : -` and DeepSeek's `▁`, and the
  bars may be DeepSeek's full-width `｜` (`<｜begin▁of▁sentence｜>`, `<｜User｜>`,
  `<｜tool▁calls▁begin｜>`). Text of that shape is hardly ever anything else.
- the named ones (`NAMED`): Gemma's turns, the `<s>`/`</s>` of Llama 2 and Mistral,
  Mistral's bracketed instruction, system, tool and thinking tokens, GLM's
  `[gMASK]<sop>`, MiniMax's `]~!b[`, `]~b]`, `[e~[` and `<beginning_of_sentence>`, Seed's
  `<seed:bos>`. Tokens that mark no turn or role (`<unk>`, `<pad>`, image and fill-in-the-middle
  markers) are left alone, and so are bracketed words that are ordinary text (`[ARGS]` in a
  command's usage line).

Tokens are found in the text's skeleton (promptc/_text/lookalike.py), case-insensitively: a
tokenizer that normalizes added tokens (NFKC, as some do) reads `＜｜user｜＞` as `<|user|>`,
and an invisible character inside a token hides nothing from a reader.
"""

from __future__ import annotations

import re
from typing import Any

from .lookalike import GAP, like, skeleton, trie

__all__ = ["NAMED", "control_edits", "neutral", "has_control", "neutral_annotations"]

#: The control tokens that are not of the `<|name|>` shape, by family.
NAMED = (
    "<start_of_turn>", "<end_of_turn>", "<bos>", "<eos>",  # Gemma
    "<s>", "</s>",  # Llama 2, Mistral
    "[INST]", "[/INST]", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]", "[AVAILABLE_TOOLS]",
    "[/AVAILABLE_TOOLS]", "[TOOL_CALLS]", "[TOOL_RESULTS]", "[/TOOL_RESULTS]",
    "[TOOL_CONTENT]", "[THINK]", "[/THINK]",  # Mistral
    "[gMASK]", "[sMASK]", "<sop>", "<eop>",  # GLM
    "]~!b[", "]~b]", "[e~[",  # MiniMax M2
    "<beginning_of_sentence>", "<end_of_sentence>", "<begin_of_document>",  # MiniMax M1
    "<seed:bos>", "<seed:eos>",  # Seed
)

_BARS = "|\uff5c"
_PIPED_REST = f"[{_BARS}]{GAP}[\\w\u2581.:\\-\x00]{{1,64}}+[{_BARS}]{GAP}>"


def _tokens() -> re.Pattern[str]:
    """One pattern for every token in a skeleton: a branch per first character (a literal, so
    the regex engine skips to the next `<`, `[` or `]` in C), the rest a case-insensitive
    trie (a failed match costs a test or two, however many tokens there are)."""
    rests: dict[str, set[str]] = {}
    for token in NAMED:
        rests.setdefault(token[0], set()).add(token[1:])
    branches = {first: trie(frozenset(words)) for first, words in rests.items()}
    branches["<"] = f"{_PIPED_REST}|{branches['<']}"
    seconds = {first: {w[0].lower() for w in words} | {w[0].upper() for w in words}
               for first, words in rests.items()}
    seconds["<"] |= set(_BARS)
    # the second character is looked at before anything else: most `<` and `[` fail there
    return re.compile("|".join(
        f"{re.escape(first)}(?=[\x00{re.escape(''.join(sorted(seconds[first])))}])"
        f"{GAP}(?i:{rest})" for first, rest in sorted(branches.items())))


_TOKENS = _tokens()
# What every token starts with, in any spelling: a text without any of these holds none.
_FIRST = re.compile("[%s]" % re.escape(like("<") + like("[") + like("]")))


def has_control(text: str) -> bool:
    """Whether `text` may hold a control token (a quick test: it holds a character one
    starts with)."""
    if text.isascii():
        return "<" in text or "[" in text or "]" in text
    return _FIRST.search(text) is not None


def control_edits(skel: str) -> list[tuple[int, int, str]]:
    """Where, in a text whose skeleton is `skel`, a backslash goes: after each control
    token's first character (as (start, end, replacement) edits that insert it)."""
    return [(m.start() + 1, m.start() + 1, "\\") for m in _TOKENS.finditer(skel)]


def neutral(text: str) -> str:
    """`text` with a backslash after the first character of each control token (for text
    that is neither a body nor an attribute: a native tool description's server name, a
    message promptc writes)."""
    if not has_control(text):
        return text
    pieces, done = [], 0
    for at, _end, mark in control_edits(skeleton(text)):
        pieces += [text[done:at], mark]
        done = at
    pieces.append(text[done:])
    return "".join(pieces)


_ANNOTATIONS = ("description", "title")


def neutral_annotations(schema: Any) -> Any:
    """A JSON schema (fresh plain data, changed in place and returned) with the control tokens
    of its prose neutralised: every `description` and `title` string, at any depth (walked
    without recursion: a server's schema may nest hundreds of levels). Names, enums and
    patterns are left alone: the call a model sends must match them as they are."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                if isinstance(value, str):
                    if key in _ANNOTATIONS and has_control(value):
                        node[key] = neutral(value)
                elif isinstance(value, (dict, list)):
                    stack.append(value)
        elif isinstance(node, list):
            stack.extend(item for item in node if isinstance(item, (dict, list)))
    return schema
