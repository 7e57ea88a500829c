"""The page's files are what the binary serves (inlined by one rule, shared with browser_page.py), and the page is
self-contained."""

from __future__ import annotations

import os
import re
import shutil
import urllib.request

import pytest

from browser_page import PageAssemblyError, inline_page, load_browser_page
from testsupport.evidence import evidence_on_failure
from testsupport.pages import PagesEvidence, open_pages, wait_until
from testsupport.serve import conftui_serve_command, running_server


def _get(url: str) -> tuple[int, str, str]:
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))   # loopback only, whatever the env says
    with direct.open(url, timeout=5) as response:
        return response.status, response.headers["Content-Type"], response.read().decode("utf-8")


def test_the_binary_serves_the_built_files_from_anywhere(tmp_path):
    # The build compiles the page in (EmbedBrowserPage plugin): a copy of the binary, started in an empty
    # directory, serves exactly page.html with page.css and page.js inlined, and needs no file beside it.
    binary = os.environ.get("CONFTUI_BIN", "").strip()
    if not binary:
        pytest.skip("CONFTUI_BIN is not set (make interop-test sets it to the release build)")
    copy = tmp_path / "elsewhere" / "conftui"
    copy.parent.mkdir()
    shutil.copy2(binary, copy)
    empty = tmp_path / "empty"
    empty.mkdir()
    with running_server(conftui_serve_command(binary=str(copy)), "a copy of conftui serve", tmp_path / "serve.log",
                        cwd=empty) as server:
        status, content_type, body = _get(server.http_url)
        assert status == 200 and content_type.startswith("text/html")
        assert body == load_browser_page()


def test_the_stylesheet_and_script_named_on_their_own_line_are_inlined(tmp_path):
    (tmp_path / "a.css").write_text("b { }")                    # no final line break: one is added
    (tmp_path / "app-1.js").write_bytes(b"x = 1;\r\ny = 2;\r\n")   # CR LF becomes LF
    (tmp_path / "page.html").write_text(
        '<head>\n<link rel="stylesheet" href="a.css">\n</head>\n'
        '  <script src="app-1.js"></script>\n'                    # not alone on its line: kept as is
        '<script src="app-1.js"></script>\n')
    assert inline_page(tmp_path / "page.html") == (
        "<head>\n<style>\nb { }\n</style>\n</head>\n"
        '  <script src="app-1.js"></script>\n'
        "<script>\nx = 1;\ny = 2;\n</script>\n")


@pytest.mark.parametrize("name, text, complaint", [
    ("a.js", "s = '</SCRIPT>';", "</script"),
    ("a.css", "/* </style> */", "</style"),
])
def test_a_file_that_would_end_its_element_early_is_refused(tmp_path, name, text, complaint):
    (tmp_path / name).write_text(text)
    tag = '<script src="a.js"></script>' if name.endswith(".js") else '<link rel="stylesheet" href="a.css">'
    (tmp_path / "page.html").write_text(tag + "\n")
    with pytest.raises(PageAssemblyError, match=complaint):
        inline_page(tmp_path / "page.html")


def test_a_missing_file_is_an_error(tmp_path):
    (tmp_path / "page.html").write_text('<script src="gone.js"></script>\n')
    with pytest.raises(PageAssemblyError, match="cannot read"):
        inline_page(tmp_path / "page.html")


def test_the_page_loads_nothing_from_elsewhere():
    page = load_browser_page()
    assert page.startswith("<!doctype html>") and page.rstrip().endswith("</html>")
    # Every src/href is a data: URL, and no CSS or script pulls anything in.
    for attribute in re.findall(r'\b(?:src|href)\s*=\s*["\']([^"\']*)', page):
        assert attribute.startswith("data:"), attribute
    assert "@import" not in page and "url(" not in page and "<script src" not in page
    assert "innerHTML" not in page and "insertAdjacentHTML" not in page and "document.write" not in page


def test_the_signaling_server_serves_this_page_at_slash(signaling_server):
    status, content_type, body = _get(signaling_server.http_url)
    assert status == 200
    assert content_type.split(";")[0].strip() == "text/html"
    assert body == load_browser_page()


def _names_seen(page) -> dict:
    """{socketId: [name, label]} from `conftui.state()` for every remote peer the page knows."""
    return page.evaluate("""conftui.state().then(state => Object.fromEntries(Object.entries(state.peers).map(
        ([id, peer]) => [id, [peer.name, peer.label]])))""")


def test_display_names_from_the_url_reach_the_other_pages(signaling_server, chromium):
    # conftui serve carries the names (display-name extension); the reference server, like the original, drops
    # them, and then every tile shows the short socketId.
    carries_names = "reference" not in signaling_server.description
    pages = []
    with evidence_on_failure(PagesEvidence(pages), signaling_server, chromium):
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
