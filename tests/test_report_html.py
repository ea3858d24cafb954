"""The HTML review renders in a real browser: headless Chromium takes a screenshot of a review
page, which must come out at the asked size and not blank. Skipped, saying why, where no
Chromium is installed (Debian: `apt-get install chromium`). docs/review_screenshot.py makes the
README's picture the same way."""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType

import pytest

from promptc import Compiler, ProviderInfo
from promptc._cli.html import render_html
from promptc._review.diff import review_prompts

from .conftest import load_context

def _script() -> ModuleType:
    """docs/review_screenshot.py, the tool the README's picture comes from: the test finds the
    browser, takes the screenshot and reads the PNG with its functions, so it checks them."""
    import importlib.util
    script = Path(__file__).resolve().parent.parent / "docs" / "review_screenshot.py"
    spec = importlib.util.spec_from_file_location("review_screenshot", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SCRIPT = _script()


def _page(builtins: Compiler) -> str:
    ctx = load_context("full")
    provider = ProviderInfo("openai", "gpt-4.1")
    review = review_prompts(
        builtins.compile(provider, ctx, variant="compact", count_tokens=True),
        builtins.compile(provider, ctx, variant="generic", count_tokens=True))
    return render_html([review], "promptc diff: compact → generic")


def test_the_review_page_renders_in_headless_chromium(builtins: Compiler,
                                                      tmp_path: Path) -> None:
    if SCRIPT.browser() is None:
        pytest.skip("no headless Chromium on this machine (looked for "
                    + ", ".join(SCRIPT.BROWSERS) + "); on Debian: apt-get install chromium")
    page = tmp_path / "review.html"
    page.write_text(_page(builtins), encoding="utf-8")
    png = tmp_path / "review.png"
    SCRIPT.screenshot(page, png, "900,700")
    assert png.is_file()
    width, height, distinct = SCRIPT.png_summary(png)
    assert (width, height) == (900, 700)
    assert distinct > 32, "the screenshot is blank"


def test_the_review_page_needs_nothing_from_outside(builtins: Compiler) -> None:
    page = _page(builtins).lower()  # (the prompt's own text may mention URLs: escaped text)
    for external in ("<script", "<link", "<img", "<iframe", "<object", "src=", "@import",
                     "url("):
        assert external not in page, external
    assert not re.search(r"href\s*=\s*[\"']?(https?:|//)", page)
    assert "<table class=\"sbs\">" in page and "class=\"bar\"" in page
