"""The HTML review renders in a real browser: headless Chromium takes a screenshot of a review
page, which must come out at the asked size and not blank. Skipped, saying why, where no
Chromium is installed (Debian: `apt-get install chromium`). docs/review_screenshot.py makes the
README's picture the same way."""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from promptc import Compiler, ProviderInfo
from promptc._cli.html import render_html
from promptc._review.diff import review_prompts

from .conftest import load_context

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars"]


def _browser() -> str | None:
    return next((path for name in BROWSERS if (path := shutil.which(name))), None)


def _png(path: Path) -> tuple[int, int, int]:
    """(width, height, distinct bytes in the pixel data): a blank page has a handful."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IDAT":
            idat += data[pos + 8:pos + 8 + length]
        pos += 12 + length
    return width, height, len(set(zlib.decompress(idat)))


def _page(builtins: Compiler) -> str:
    ctx = load_context("full")
    provider = ProviderInfo("openai", "gpt-4.1")
    review = review_prompts(
        builtins.compile(provider, ctx, variant="compact", count_tokens=True),
        builtins.compile(provider, ctx, variant="generic", count_tokens=True))
    return render_html([review], "promptc diff: compact → generic")


def test_the_review_page_renders_in_headless_chromium(builtins: Compiler,
                                                      tmp_path: Path) -> None:
    exe = _browser()
    if exe is None:
        pytest.skip("no headless Chromium on this machine (looked for "
                    + ", ".join(BROWSERS) + "); on Debian: apt-get install chromium")
    page = tmp_path / "review.html"
    page.write_text(_page(builtins), encoding="utf-8")
    png = tmp_path / "review.png"
    done = subprocess.run([exe, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}",
                           f"--screenshot={png}", "--window-size=900,700", page.as_uri()],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and png.is_file(), done.stderr[-2000:]
    width, height, distinct = _png(png)
    assert (width, height) == (900, 700)
    assert distinct > 32, "the screenshot is blank"


def test_the_review_page_needs_nothing_from_outside(builtins: Compiler) -> None:
    page = _page(builtins).lower()  # (the prompt's own text may mention URLs: escaped text)
    for external in ("<script", "<link", "<img", "<iframe", "<object", "src=", "@import",
                     "url("):
        assert external not in page, external
    assert not re.search(r"href\s*=\s*[\"']?(https?:|//)", page)
    assert "<table class=\"sbs\">" in page and "class=\"bar\"" in page
