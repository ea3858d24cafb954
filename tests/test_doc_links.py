"""Every relative link in the README and the docs leads somewhere: the file (or folder) exists,
and an anchor names a heading of the page it points at, spelled as GitHub spells it. The
README now holds little and points at docs/ for the rest, so a broken link is a lost page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md"), ROOT / "examples" / "README.md",
                *(ROOT / "examples").glob("*/README.md"),
                ROOT / "clients" / "typescript" / "README.md"])
FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.S | re.M)
LINK = re.compile(r"!?\[(?:[^\]]|\][^(])*?\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$", re.M)


def prose(text: str) -> str:
    """The page without its fenced code blocks (a `# comment` there is no heading)."""
    return FENCE.sub("", text)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for heading in HEADING.findall(prose(page.read_text(encoding="utf-8"))):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        out.add(base if count == 0 else f"{base}-{count}")
    return out


def links(page: Path) -> list[str]:
    return [target for target in LINK.findall(prose(page.read_text(encoding="utf-8")))
            if not re.match(r"[a-z][a-z0-9+.-]*:", target)]  # https:, mailto: …


def test_the_slugs_are_githubs() -> None:
    assert slug("Tool specs (`components/tools/<name>.toml`)") == \
        "tool-specs-componentstoolsnametoml"
    assert slug("From any language: `promptc serve`") == "from-any-language-promptc-serve"
    assert slug("## 8. Precedence and overrides".lstrip("# ")) == "8-precedence-and-overrides"
    assert slug("Projects, sources and plugins") == "projects-sources-and-plugins"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(page: Path) -> None:
    assert page.is_file()
    broken = []
    for target in links(page):
        path, _, anchor = target.partition("#")
        goal = (page.parent / path).resolve() if path else page
        if not goal.exists():
            broken.append(f"{target}: no such file")
        elif anchor and (goal.suffix != ".md" or anchor not in anchors(goal)):
            broken.append(f"{target}: no heading with that anchor")
    assert not broken, broken


def test_the_readme_links_every_docs_page() -> None:
    """A page nothing links to is never found; the README is where a reader starts."""
    readme = set(links(ROOT / "README.md"))
    linked = {target.partition("#")[0] for target in readme}
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert f"docs/{page.name}" in linked, page.name
