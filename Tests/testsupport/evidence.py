"""Everyone's own evidence when a test fails: the peers' logs, reports and stats, the server's log, the pages.

    with evidence_on_failure(signaling_server) as evidence:
        bot = evidence.add(BotProcess(...))
        ...

On any failure (an assertion, a timeout, Ctrl-C) it prints, in the order added, what each witness says about itself
(`describe()`, or the text a callable returns), where pytest shows it ('Captured stdout'), and re-raises. Witnesses
with a `kill()` (child processes) are killed before they describe themselves (so their logs and reports are final)
and again at the end whatever happened, so no test leaves a peer running; `add(witness, close=...)` also runs
`close` at the end (after the evidence is printed: a tmux screen is read before its server goes).
"""

from __future__ import annotations

import contextlib
import pathlib
from typing import Any, Callable

import pytest

from testsupport.processes import tail_lines


class Evidence:
    def __init__(self, witnesses: tuple[Any, ...]) -> None:
        self.witnesses: list[Any] = list(witnesses)
        self.closers: list[Callable[[], object]] = []

    def add(self, witness, close: Callable[[], object] | None = None):
        """Adds a witness (returned, so `bot = evidence.add(BotProcess(...))`), and what closes it at the end."""
        self.witnesses.append(witness)
        if close is not None:
            self.closers.append(close)
        return witness

    def print_all(self) -> None:
        for witness in self.witnesses:
            if hasattr(witness, "kill"):
                witness.kill()
            try:
                print(witness() if callable(witness) else witness.describe())
            except Exception as error:   # one broken witness must not hide the others
                print(f"(evidence of {witness!r} unavailable: {error})")

    def end(self) -> None:
        for witness in self.witnesses:
            if hasattr(witness, "kill"):
                witness.kill()
        for close in self.closers:
            close()


class LogFile:
    """A witness that is a file: its last lines under a title."""

    def __init__(self, title: str, path: pathlib.Path, lines: int = 60) -> None:
        self.title, self.path, self.lines = title, path, lines

    def describe(self) -> str:
        return f"--- {self.title} ---\n{tail_lines(self.path, self.lines)}"


@contextlib.contextmanager
def evidence_on_failure(*witnesses: Any):
    evidence = Evidence(witnesses)
    try:
        yield evidence
    except pytest.skip.Exception:
        raise   # not a failure: nothing to explain
    except BaseException:
        evidence.print_all()
        raise
    finally:
        evidence.end()
