"""The page extraction follows Swift's multi-line raw string rules, and the page is self-contained."""

from __future__ import annotations

import re

import pytest

from browser_page import PageExtractionError, load_browser_page, swift_raw_multiline_literal


def test_indentation_of_the_closing_delimiter_is_removed_and_blank_lines_may_be_shorter():
    source = 'let x = #"""\n    <a>\n      b\n  \n    c "quoted" \\n\n    """#\n'
    assert swift_raw_multiline_literal(source) == '<a>\n  b\n\nc "quoted" \\n'


def test_crlf_is_normalised_and_an_empty_literal_is_empty():
    assert swift_raw_multiline_literal('x = #"""\r\n  a\r\n  """#') == "a"
    assert swift_raw_multiline_literal('x = #"""\n"""#') == ""


@pytest.mark.parametrize("source, complaint", [
    ('x = #"""\n    a\n  b\n    """#', "indented less"),
    ('x = #"""\n  a \\#(y)\n  """#', "escape"),
    ('x = #""" a\n  """#', "end its line"),
    ('x = "a"', "no #"),
])
def test_malformed_literals_are_refused(source, complaint):
    with pytest.raises(PageExtractionError, match=complaint):
        swift_raw_multiline_literal(source)


def test_the_page_loads_nothing_from_elsewhere():
    page = load_browser_page()
    assert page.startswith("<!doctype html>") and page.rstrip().endswith("</html>")
    # Every src/href is a data: URL, and no CSS or script pulls anything in.
    for attribute in re.findall(r'\b(?:src|href)\s*=\s*["\']([^"\']*)', page):
        assert attribute.startswith("data:"), attribute
    assert "@import" not in page and "url(" not in page and "<script src" not in page
    assert "innerHTML" not in page and "insertAdjacentHTML" not in page and "document.write" not in page
