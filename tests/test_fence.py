"""Fences for outside text: attributes stay on one line and inside their quotes; bodies stay
verbatim except that they can close no fence element."""

from __future__ import annotations

import html
import re

from hypothesis import given
from hypothesis import strategies as st

from promptc._text.fence import FENCE_TAGS, attribute, body, one_line

TAGS = sorted(FENCE_TAGS)
closing = st.builds(lambda sp1, slash_sp, tag, end: f"<{sp1}/{slash_sp}{tag}{end}",
                    st.sampled_from(["", " ", "\t", "\n"]), st.sampled_from(["", " "]),
                    st.sampled_from(TAGS + [t.upper() for t in TAGS] + ["User_Rules"]),
                    st.sampled_from([">", " >", "", "\n", "/>"]))
others = st.sampled_from(["</div>", "</skills>", "</user_rulesx>", "<user_rules>", "<\\/skill>",
                          "&amp;", '"', "\u2028", "\r\n", "\x00", "\x85", "====", "# H"])
payload = st.lists(st.one_of(closing, others, st.text(max_size=12)), max_size=8).map("".join)

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
