"""The browser client page, read out of Sources/Signaling/BrowserPage.swift the way the Swift compiler reads it.

The page lives in one Swift multi-line raw string literal (`#\"\"\"` ... `\"\"\"#`) so that the single `conftui`
binary can serve it. Python tools (the reference SkyRTC server, the tests) need the very same bytes, so this module
applies the Swift rules for multi-line string literals (The Swift Programming Language, "Multiline String
Literals" and "Extended String Delimiters"):

- the text starts on the line after the opening delimiter and ends before the line break that precedes the closing
  delimiter;
- the whitespace in front of the closing delimiter is the literal's indentation and is removed from every line; a
  line that holds only whitespace may be shorter than that (it becomes empty); any other line that does not start
  with exactly that indentation is a compile error;
- line endings are normalised to LF;
- in a `#`-delimited raw string `\\#` starts an escape or interpolation. The page must not use it (the Swift
  compiler would rewrite it), so finding one is an error here rather than a silent difference.
"""

from __future__ import annotations

import pathlib
import re

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
SWIFT_SOURCE = REPO_ROOT / "Sources" / "Signaling" / "BrowserPage.swift"


class PageExtractionError(ValueError):
    """BrowserPage.swift does not hold exactly one well-formed `#\"\"\"` literal."""


def swift_raw_multiline_literal(source: str) -> str:
    """Returns the value of the single `#\"\"\" ... \"\"\"#` literal in Swift `source`."""
    source = source.replace("\r\n", "\n").replace("\r", "\n")
    opening = source.find('#"""')
    if opening < 0:
        raise PageExtractionError('no #""" literal found')
    line_break = source.find("\n", opening)
    if line_break < 0 or source[opening + 4 : line_break].strip():
        raise PageExtractionError('the opening #""" must end its line')
    closing_match = re.compile(r'\n([ \t]*)"""#').search(source, line_break)
    if closing_match is None:
        raise PageExtractionError('no closing """# found')
    if source.find('#"""', closing_match.end()) >= 0:
        raise PageExtractionError('more than one #""" literal')
    indentation = closing_match.group(1)
    body = source[line_break + 1 : closing_match.start()]
    lines = []
    for number, line in enumerate(body.split("\n"), start=1):
        if line.startswith(indentation):
            lines.append(line[len(indentation) :])
        elif line.strip(" \t") == "":
            lines.append("")
        else:
            raise PageExtractionError(f"literal line {number} is indented less than the closing delimiter")
    text = "\n".join(lines)
    if "\\#" in text:
        raise PageExtractionError("the page contains \\# which Swift would treat as an escape")
    return text


def load_browser_page(path: pathlib.Path = SWIFT_SOURCE) -> str:
    """The HTML that `conftui serve` returns for `GET /`."""
    return swift_raw_multiline_literal(path.read_text(encoding="utf-8"))
