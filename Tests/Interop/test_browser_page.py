"""The page extraction follows Swift's multi-line raw string rules, and the page is self-contained."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import urllib.request

import pytest

from browser_page import SWIFT_SOURCE, PageExtractionError, load_browser_page, swift_raw_multiline_literal
from test_browser_pair import explain_failure, open_pages, wait_until

SWIFTC = shutil.which("swiftc") or "/opt/swift/usr/bin/swiftc"


def test_python_reads_the_page_exactly_as_swift_compiles_it(tmp_path):
    # The reference server serves the Python reading, `conftui serve` the compiled string: they must agree.
    assert os.access(SWIFTC, os.X_OK), f"swiftc not found (looked on PATH and at {SWIFTC})"
    main = tmp_path / "main.swift"
    main.write_text('print(BrowserPage.html, terminator: "")\n')
    binary = tmp_path / "print-page"
    subprocess.run([SWIFTC, "-Onone", str(SWIFT_SOURCE), str(main), "-o", str(binary)], check=True,
                   capture_output=True, timeout=120)
    compiled = subprocess.run([str(binary)], check=True, capture_output=True, timeout=10).stdout.decode("utf-8")
    assert compiled == load_browser_page()


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


def test_the_signaling_server_serves_this_page_at_slash(signaling_server):
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))   # loopback only, whatever the env says
    with direct.open(signaling_server.http_url, timeout=5) as response:
        assert response.status == 200
        assert response.headers["Content-Type"].split(";")[0].strip() == "text/html"
        assert response.read().decode("utf-8") == load_browser_page()


def _names_seen(page) -> dict:
    """{socketId: [name, label]} from `conftui.state()` for every remote peer the page knows."""
    return page.evaluate("""conftui.state().then(state => Object.fromEntries(Object.entries(state.peers).map(
        ([id, peer]) => [id, [peer.name, peer.label]])))""")


def test_display_names_from_the_url_reach_the_other_pages(signaling_server, chromium):
    # conftui serve carries the names (display-name extension); the reference server, like the original, drops
    # them, and then every tile shows the short socketId.
    carries_names = "reference" not in signaling_server.description
    pages = []
    with explain_failure(chromium, signaling_server, pages):
        base = signaling_server.http_url
        pages += open_pages(chromium, base + "?name=Zoe#names", ["Zoe"])
        pages += open_pages(chromium, base + "?name=%1B%5B2J%E2%80%AEMal#names", ["hostile"])
        pages += open_pages(chromium, base + "#names", ["plain"])
        states = wait_until(pages, lambda s: all(len(state["peers"]) == 2 for state in s), 10.0,
                            "all three know each other")
        zoe, hostile, plain = (state["you"] for state in states)
        assert [state["name"] for state in states] == ["Zoe", "[2JMal", None]   # cleaned like the server does
        expected = {zoe: "Zoe", hostile: "[2JMal", plain: None} if carries_names else dict.fromkeys((zoe, hostile, plain))
        for page, state in zip(pages, states):
            seen = _names_seen(page)
            for peer_id, (name, label) in seen.items():
                assert name == expected[peer_id], (page.name, peer_id, seen)
                assert label == (expected[peer_id] or peer_id[:8]), (page.name, peer_id, seen)
            tiles = page.evaluate("[...document.querySelectorAll('#grid .tile .name')].map(n => n.textContent)")
            own = "you · " + (state["name"] or state["you"][:8])
            assert tiles == [own] + [expected[i] or i[:8] for i in (zoe, hostile, plain) if i != state["you"]], tiles
