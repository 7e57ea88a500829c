"""The browser client page as `conftui serve` serves it, assembled from its files in Sources/Signaling/BrowserPage.

The page is written as page.html, page.css and page.js; at build time the EmbedBrowserPage plugin's tool
(Sources/BrowserPageEmbedder/PageInliner.swift) inlines the stylesheet and script into the HTML and compiles the
result into the binary. Python tools (the reference SkyRTC server, the tests) need the very same bytes, so this
module applies the same line-exact rule:

- a line that is exactly `<link rel="stylesheet" href="NAME.css">` becomes `<style>`, a line break, the file's
  text, `</style>`;
- a line that is exactly `<script src="NAME.js"></script>` becomes `<script>`, a line break, the file's text,
  `</script>`;
- NAME is letters, digits, `-` and `_`, the file sits beside the HTML, and every other line is kept as is;
- line endings become LF everywhere, and each inlined file ends with a line break;
- an inlined text holding `</style` or `</script` (which would end its element early) is refused.
"""

from __future__ import annotations

import pathlib
import re

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
PAGE_DIRECTORY = REPO_ROOT / "Sources" / "Signaling" / "BrowserPage"
PAGE_HTML = PAGE_DIRECTORY / "page.html"
PAGE_SCRIPT = PAGE_DIRECTORY / "page.js"

_STYLESHEET = re.compile(r'<link rel="stylesheet" href="([A-Za-z0-9_-]+\.css)">')
_SCRIPT = re.compile(r'<script src="([A-Za-z0-9_-]+\.js)"></script>')


class PageAssemblyError(ValueError):
    """A file the page names cannot be inlined."""


def _read_text(path: pathlib.Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as error:
        raise PageAssemblyError(f"cannot read {path}") from error
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise PageAssemblyError(f"{path.name} is not UTF-8") from error
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _inlined(path: pathlib.Path, closing_tag: str) -> str:
    text = _read_text(path)
    if closing_tag in text.lower():
        raise PageAssemblyError(f"{path.name} contains {closing_tag}, which would end the inlined element early")
    return text if text.endswith("\n") else text + "\n"


def inline_page(html_path: pathlib.Path) -> str:
    """The self-contained document made of `html_path` and the stylesheet and script it names."""
    lines = []
    for line in _read_text(html_path).split("\n"):
        if match := _STYLESHEET.fullmatch(line):
            lines.append("<style>\n" + _inlined(html_path.parent / match.group(1), "</style") + "</style>")
        elif match := _SCRIPT.fullmatch(line):
            lines.append("<script>\n" + _inlined(html_path.parent / match.group(1), "</script") + "</script>")
        else:
            lines.append(line)
    return "\n".join(lines)


def load_browser_page(html_path: pathlib.Path = PAGE_HTML) -> str:
    """The HTML that `conftui serve` returns for `GET /`."""
    return inline_page(html_path)
