"""The HTML review renders in a real browser: headless Chromium takes a screenshot of a review
page, which must come out at the asked size and not blank. Skipped, saying why, where no
Chromium is installed (Debian: `apt-get install chromium`; .ci/run installs it where it can).
docs/review_screenshot.py makes the README's picture the same way, and the picture records the
page it shows: a test without a browser fails when the prompts moved on and the picture did
not."""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType

import pytest

from promptc import Compiler, ProviderInfo
from promptc._cli.html import render_html
from promptc._review.diff import review_prompts
from promptc.testing import make_context


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
    ctx = make_context("full")
    provider = ProviderInfo("openai", "gpt-4.1")
    review = review_prompts(
        builtins.compile(provider, ctx, variant="compact", count_tokens=True),
        builtins.compile(provider, ctx, variant="generic", count_tokens=True))
    return render_html([review], "promptc diff: compact → generic")


def _need_a_browser() -> None:
    if SCRIPT.browser() is None:
        pytest.skip("no headless Chromium on this machine (looked for "
                    + ", ".join(SCRIPT.BROWSERS) + "); on Debian: apt-get install chromium")


@pytest.fixture(scope="module")
def sample_page(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(SCRIPT.sample_review(tmp_path_factory.mktemp("review-sample")))


def test_the_readme_picture_shows_the_current_prompts(sample_page: str) -> None:
    picture = Path(SCRIPT.ROOT) / "docs" / "review-report.png"
    assert SCRIPT.stamp_of(picture) == SCRIPT.page_digest(sample_page), (
        "docs/review-report.png no longer shows the sample review of the current prompts: "
        "run `python docs/review_screenshot.py` (needs Chromium) and commit the picture")


def test_the_script_regenerates_the_picture(sample_page: str, tmp_path: Path) -> None:
    """What the script does, step by step, into a temporary file: the screenshot of the sample
    page (at the asked size, not blank), stamped with the page it shows."""
    _need_a_browser()
    page = tmp_path / "review.html"
    page.write_text(sample_page, encoding="utf-8")
    png = tmp_path / "review-report.png"
    SCRIPT.screenshot(page, png)
    SCRIPT.stamp(png, SCRIPT.page_digest(sample_page))
    width, height, distinct = SCRIPT.png_summary(png)
    assert (width, height) == (1200, 1400) and distinct > 32
    assert SCRIPT.stamp_of(png) == SCRIPT.page_digest(sample_page)


def test_the_review_page_needs_nothing_from_outside(builtins: Compiler) -> None:
    page = _page(builtins).lower()  # (the prompt's own text may mention URLs: escaped text)
    for external in ("<script", "<link", "<img", "<iframe", "<object", "src=", "@import",
                     "url("):
        assert external not in page, external
    assert not re.search(r"href\s*=\s*[\"']?(https?:|//)", page)
    assert "<table class=\"sbs\">" in page and "class=\"bar\"" in page
