"""Characters a reader takes for others: invisible ones and look-alikes.

A fence is only as good as its eye for the markup it neutralizes. `</user⁠_rules>` (a word
joiner inside), `＜／skill＞` (full-width forms), `</usеr_rules>` (a Cyrillic `е`) and
`<sk­ill>` (a soft hyphen) all read as tags to a model, while a comparison of code points misses
every one. `skeleton(text)` is the text as a reader sees it, of the same length (so a position
in it is a position in the text):

- every default-ignorable code point (the invisible ones: soft hyphen, zero-width space and
  joiners, word joiner, bidi controls, variation selectors, tag characters…: Unicode's
  `Default_Ignorable_Code_Point`) becomes NUL, which `spelled` patterns allow between any two
  characters;
- every character that NFKC folds to an ASCII letter or to `<`, `>`, `/`, `[`, `]`, `=`, `#`,
  `_` (full-width and small forms, mathematical, circled and modifier letters) becomes that
  character, lower-case, and so do the common Cyrillic, Greek and Armenian homoglyphs of them.

`spelled(literal)` is the pattern for a literal in a skeleton: NULs allowed after each
character, a space standing for any run of whitespace. Patterns are matched case-insensitively.
The table is made on first use (about a thousand NFKC lookups in the blocks listed below, which
tests/test_fencing.py checks against all of Unicode), never at import.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = ["IGNORABLE", "GAP", "PUNCTUATION", "ALPHABET", "FOLDING_RANGES", "skeleton",
           "spelled", "trie", "like", "folds_to"]

# Default_Ignorable_Code_Point (Unicode DerivedCoreProperties), as a regex class body.
IGNORABLE = ("\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f"
             "\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0"
             "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff")
GAP = "\x00*+"  # in a skeleton: what may sit invisibly between two characters
_INVISIBLE = re.compile(f"[{IGNORABLE}]")

ALPHABET = "abcdefghijklmnopqrstuvwxyz<>/[]=#_"

# The look-alikes of the punctuation promptc's markup is made of: NFKC's full-width and small
# forms, and homoglyphs from symbol blocks and other scripts.
PUNCTUATION: dict[str, str] = {
    "<": "\uff1c\ufe64\u2039\u3008\u2329\u27e8\u02c2\u1438\u276e\u29fc\u227a",
    ">": "\uff1e\ufe65\u203a\u3009\u232a\u27e9\u02c3\u1433\u276f\u29fd\u227b",
    "/": "\uff0f\u2215\u2044\u29f8\u2571\u27cb\u1735\u2cc6\u30ce\u4e3f",
    "[": "\uff3b\ufe47\u2045\u3014\u27e6\u3010\u298b",
    "]": "\uff3d\ufe48\u2046\u3015\u27e7\u3011\u298c",
    "=": "\uff1d\ufe66\u207c\u208c\ua4ff\u1400\u2e40\u30a0\u2550\u268c",
    "#": "\uff03\ufe5f\u266f\u22d5",
    "_": "\uff3f\ufe33\ufe34\ufe4d\ufe4e\ufe4f\u02cd\u2017\u23bd",
}
# Homoglyphs of Latin letters NFKC does not fold (Cyrillic, Greek, Armenian, Kannada).
_LETTERS: dict[str, str] = {
    "a": "\u0430\u03b1\u0251", "c": "\u0441\u03f2", "d": "\u0501", "e": "\u0435\u03b5\u0454",
    "h": "\u04bb\u0570", "i": "\u0456\u03b9\u0131\u04cf", "j": "\u0458", "k": "\u043a\u03ba",
    "l": "\u04cf", "m": "\u043c", "n": "\u0578\u043f", "o": "\u043e\u03bf\u0585\u0ce6",
    "p": "\u0440\u03c1", "q": "\u051b", "r": "\u0433", "s": "\u0455", "t": "\u0442\u03c4",
    "u": "\u057d\u03c5\u0446", "v": "\u03bd\u0475", "w": "\u051d\u0461", "x": "\u0445\u03c7",
    "y": "\u0443\u03b3",
}


def like(char: str) -> str:
    """A punctuation character of PUNCTUATION and all its look-alikes (for a regex class)."""
    return char + PUNCTUATION[char]


# Every code point that NFKC folds to a character of ALPHABET lies in one of these ranges.
FOLDING_RANGES = ((0x00AA, 0x00BA), (0x017F, 0x017F), (0x02B0, 0x02E3), (0x1D2C, 0x1D65),
                  (0x1D9C, 0x1DBB), (0x2071, 0x209C), (0x2102, 0x217F), (0x24B6, 0x24E9),
                  (0x2C7C, 0x2C7D), (0xA7F2, 0xA7F4), (0xFE33, 0xFE66), (0xFF03, 0xFF5A),
                  (0x107A5, 0x107A5), (0x1D400, 0x1D6A3), (0x1F12B, 0x1F149))


def folds_to(char: str) -> str:
    """The ALPHABET character NFKC folds `char` to (lower-case), or ""."""
    folded = unicodedata.normalize("NFKC", char).lower()
    return folded if len(folded) == 1 and folded in ALPHABET and folded != char else ""


@lru_cache(maxsize=1)
def _table() -> dict[int, str]:
    """Code point -> the ASCII character it reads as (for str.translate)."""
    table: dict[int, str] = {}
    for start, end in FOLDING_RANGES:
        for code in range(start, end + 1):
            target = folds_to(chr(code))
            if target:
                table[code] = target
    for target, chars in (*PUNCTUATION.items(), *_LETTERS.items()):
        for char in chars:
            for form in {char, char.upper()}:
                if len(form) == 1 and not form.isascii():
                    table.setdefault(ord(form), target)
    return table


def skeleton(text: str) -> str:
    """`text` as a reader sees it, of the same length: invisibles made NUL, look-alikes made
    the ASCII character they imitate. ASCII text is its own skeleton, but for a NUL of its
    own, which a reader sees (it ends a word), so it becomes another control character: in a
    skeleton, NUL stands for what a reader does not see."""
    if "\x00" in text:
        text = text.replace("\x00", "\x01")
    if text.isascii():
        return text
    return _INVISIBLE.sub("\x00", text).translate(_table())


def _char(char: str) -> str:
    if char.isspace():
        return r"[\s\x00]++"
    return re.escape(char) + GAP


@lru_cache(maxsize=256)
def spelled(literal: str) -> str:
    """The pattern for `literal` in a skeleton (to be matched case-insensitively)."""
    return "".join(_char(c) for c in literal)


def trie(words: frozenset[str]) -> str:
    """One pattern for any of `words` in a skeleton, branching on shared prefixes (a failed
    match costs one test of the first character, however many words there are)."""
    heads: dict[str, set[str]] = {}
    ends = False
    for word in words:
        if not word:
            ends = True
        else:
            heads.setdefault(word[0], set()).add(word[1:])
    branches = [_char(head) + trie(frozenset(rests))
                for head, rests in sorted(heads.items())]
    if not branches:
        return ""
    body = "|".join(branches)
    return f"(?:{body})?" if ends else (f"(?:{body})" if len(branches) > 1 else body)
