"""Fixtures for the interop tests: the signaling server (testsupport.serve: which one runs is printed in pytest's
summary, never chosen silently), the reference server with extra flags, and headless Chromium."""

from __future__ import annotations

import contextlib
import itertools
import pathlib

import pytest

from testsupport.chromium import Chromium
from testsupport.serve import chosen_so_far, reference_server_command, running_server, server_choice


def pytest_report_header(config: pytest.Config) -> str:
    return f"signaling server: {server_choice().description}"


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    # Also under -q (which hides the header): which server the browsers talked to is part of the result.
    if chosen_so_far() is not None:
        terminalreporter.write_line(f"interop tests used the {chosen_so_far().description}")


@pytest.fixture
def signaling_server(tmp_path: pathlib.Path):
    """The chosen signaling server on 127.0.0.1, a free port; stopped after the test."""
    choice = server_choice()
    with running_server(choice.command, choice.description, tmp_path / "signaling.log") as server:
        print(f"signaling: {choice.description} at {server.http_url}")
        yield server


@pytest.fixture
def reference_server_with(tmp_path: pathlib.Path):
    """Starts the reference SkyRTC server with extra flags: `reference_server_with("--patched")`."""
    started = itertools.count(1)
    with contextlib.ExitStack() as stack:
        def start(*flags: str):
            log_path = tmp_path / f"reference-{next(started)}.log"
            return stack.enter_context(running_server(reference_server_command(*flags), "reference SkyRTC server",
                                                      log_path))
        yield start


@pytest.fixture
def chromium():
    """One headless Chromium (fake camera and microphone, loopback only); closed after the test."""
    browser = Chromium()
    try:
        yield browser
    finally:
        browser.close()
