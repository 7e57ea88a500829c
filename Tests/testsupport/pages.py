"""The served page in Chromium tabs, read through its own test hook (`window.conftui.state()`, built from
`getStats()`; documented at the top of page.js): opening pages in join order, waiting for a condition on every
page's state, and each page's evidence for a failure message."""

from __future__ import annotations

import json
import time
from typing import Callable

from testsupport.chromium import CDPError, Chromium, Page

PAGE_READY = "!!(window.conftui && document.readyState === 'complete')"
FIRST_MEDIA_TIMEOUT = 20.0   # seconds from the last page load until every peer decodes video and gets audio


def open_pages(browser: Chromium, url: str, names: list[str]) -> list[Page]:
    """Loads `url` in one tab per name, in order, waiting for each page's own signaling join before the next.

    Waiting for `you` keeps the join order (and so who offers to whom) deterministic.
    """
    pages = []
    for name in names:
        page = browser.new_page(url, name, PAGE_READY)
        pages.append(page)
        wait_until(pages, lambda states: states[-1]["you"] is not None, 10.0, f"{name} joins the room")
    return pages


def states_of(pages: list[Page]) -> list[dict]:
    return [page.evaluate("conftui.state()") for page in pages]


def wait_until(pages: list[Page], condition: Callable[[list[dict]], bool], timeout: float, what: str) -> list[dict]:
    deadline = time.monotonic() + timeout
    while True:
        states = states_of(pages)
        if condition(states):
            return states
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting until {what}; last states:\n"
                                 + json.dumps(states, indent=1))
        time.sleep(0.25)


class PagesEvidence:
    """A failure witness (testsupport.evidence) for the pages of a test: each page's state, log and console. The
    list is read when the test fails, so pages opened after the witness was added are included."""

    def __init__(self, pages: list[Page]) -> None:
        self.pages = pages

    def describe(self) -> str:
        out = []
        for page in self.pages:
            out.append(f"\n===== page {page.name} =====")
            try:
                out.append("state: " + json.dumps(page.evaluate("conftui.state()", timeout=5), indent=1))
                out.append("conftui.log:\n  " + "\n  ".join(page.evaluate("conftui.log", timeout=5)))
            except CDPError as error:
                out.append(f"page hook unavailable: {error}")
            out.append("console:\n  " + "\n  ".join(page.console))
        return "\n".join(out)
