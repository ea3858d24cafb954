"""Render a sample prompt review as HTML and screenshot it with headless Chromium.

    python docs/review_screenshot.py               # writes docs/review-report.png
    python docs/review_screenshot.py --html x.html # also keeps the page

The sample: a project that adds a sentence to the last line of `objective` and empties
`native-next-gen`'s `working_style`, checked against snapshots of the built-ins for Claude Sonnet 4.5 in
two contexts — what `promptc snapshot --check --format html` shows a reviewer. The script fails
when no browser is installed (Debian: `apt-get install chromium`) or when the screenshot comes out
blank, so it doubles as a check that the page renders.

The PNG carries the sha256 of the page it shows (a `tEXt` chunk, `promptc-review`), so
tests/test_report_html.py can tell, without a browser, when the picture no longer matches the
prompts: run this script again then.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from promptc._cli import main as promptc  # noqa: E402

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars"]


def browser() -> str | None:
    return next((path for name in BROWSERS if (path := shutil.which(name))), None)


def screenshot(page: Path, png: Path, size: str = "1200,1400") -> None:
    exe = browser()
    if exe is None:
        raise SystemExit("no Chromium found (" + ", ".join(BROWSERS) + "); on Debian: "
                         "apt-get install chromium")
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run([exe, *FLAGS, f"--user-data-dir={profile}", f"--screenshot={png}",
                        f"--window-size={size}", page.resolve().as_uri()],
                       check=True, capture_output=True, timeout=60)


def png_summary(png: Path) -> tuple[int, int, int]:
    """(width, height, distinct bytes in the pixel data): a blank page has very few."""
    data = png.read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{png} is not a PNG")
    width, height = struct.unpack(">II", data[16:24])
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IDAT":
            idat += data[pos + 8:pos + 8 + length]
        pos += 12 + length
    return width, height, len(set(zlib.decompress(idat)))


STAMP = b"promptc-review"


def page_digest(page: str) -> str:
    return hashlib.sha256(page.encode("utf-8")).hexdigest()


def stamp(png: Path, digest: str) -> None:
    """Write `digest` into the PNG as a tEXt chunk right after its header chunk."""
    data = png.read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{png} is not a PNG")
    end_of_header = 8 + 12 + struct.unpack(">I", data[8:12])[0]
    body = b"tEXt" + STAMP + b"\0" + digest.encode("ascii")
    chunk = struct.pack(">I", len(body) - 4) + body + struct.pack(">I", zlib.crc32(body))
    png.write_bytes(data[:end_of_header] + chunk + data[end_of_header:])


def stamp_of(png: Path) -> str | None:
    """The digest `stamp` wrote, or None."""
    data = png.read_bytes()
    pos = 8
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"tEXt" and body.startswith(STAMP + b"\0"):
            return body[len(STAMP) + 1:].decode("ascii")
        pos += 12 + length
    return None


def sample_review(work: Path) -> str:
    """The HTML page of the sample review (see the module docstring)."""
    from promptc._load.sources import builtin_root
    contexts = ROOT / "promptc" / "_data" / "snapshot" / "contexts"
    (work / "matrix.toml").write_text(
        "[contexts]\n"
        f'full = "{(contexts / "full.json").as_posix()}"\n'
        f'plan = "{(contexts / "plan.json").as_posix()}"\n\n'
        '[[case]]\nprovider = "anthropic"\nmodel = "claude-sonnet-4-5"\n', encoding="utf-8")
    project = work / "project"
    (project / "components").mkdir(parents=True)
    objective = (builtin_root() / "components" / "objective.md").read_text(encoding="utf-8")
    lines = objective.rstrip("\n").split("\n")
    lines[-1] += " Check twice."  # the line right before working_style, which is emptied
    (project / "components" / "objective.md").write_text("\n".join(lines) + "\n",
                                                         encoding="utf-8")
    style = project / "variants" / "native-next-gen" / "components"
    style.mkdir(parents=True)
    (style / "working_style.md").write_text("", encoding="utf-8")
    common = ["--matrix", "matrix.toml", "--dir", "snapshots", "-q"]
    page = work / "review.html"
    with contextlib.chdir(work):  # the page names the folder as given: `snapshots`
        with open(os.devnull, "w") as null, contextlib.redirect_stdout(null):
            if promptc(["snapshot", "--update", "--builtins-only", *common]) != 0:
                raise SystemExit("could not write the sample snapshots")
        with page.open("w", encoding="utf-8") as f, contextlib.redirect_stdout(f):
            code = promptc(["snapshot", "--check", "--no-user", "--no-plugins", "--project",
                            "project", *common, "--format", "html"])
    if code != 1:
        raise SystemExit(f"the sample review should find differences (exit {code})")
    return page.read_text(encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--png", default=str(ROOT / "docs" / "review-report.png"),
                    help="where to write the screenshot")
    ap.add_argument("--html", help="also keep the HTML page here")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        page = sample_review(work)
        if args.html:
            Path(args.html).write_text(page, encoding="utf-8")
        screenshot(work / "review.html", Path(args.png))
        stamp(Path(args.png), page_digest(page))
    width, height, distinct = png_summary(Path(args.png))
    if distinct < 32:
        raise SystemExit(f"{args.png}: the screenshot looks blank ({distinct} distinct bytes)")
    print(f"wrote {args.png} ({width}×{height})")


if __name__ == "__main__":
    main()
