#!/usr/bin/env python3
"""Writes the README's screenshots: the real binary's demo room in tmux, captured with colours, drawn as PNGs.

Why a script: the pictures must show the screen users get, and be remade after every change to it (`make
screenshots`), never drawn by hand. It runs `BIN demo --peers 3 --name Sam` (an in-process server and three
participants over real WebRTC) in a 120x40 tmux with TERM=xterm-256color and COLORTERM=truecolor (conftui's
ColorMode then writes 24-bit colour, so the PNG has the exact colours), and for each scene of SCENES presses its
keys, waits until its condition holds on the screen, and writes OUTDIR/NAME.png (render_png.py).

Every scene starts from the plain grid: Esc closes whatever overlay the scene before opened, and the script waits
for the grid before pressing the scene's keys. Adding a scene is one line of SCENES. A wait that times out prints
the screen and fails; the demo is ended with `q` and tmux killed on every path.

Usage: make_screenshots.py BIN OUTDIR [--timeout S]
"""
import argparse
import os
import pathlib
import socket
import sys
import time
from dataclasses import dataclass

TESTS = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))
sys.path.insert(0, str(TESTS / "Screenshots"))

from render_png import render, save_png  # noqa: E402
from testsupport.ansi_screen import parse  # noqa: E402
from testsupport.tmux import TmuxSession  # noqa: E402

WIDTH, HEIGHT = 120, 40
SETTLE = 1.5        # seconds a scene's condition must still hold before the capture that becomes its picture
PEERS = ("Ada", "Grace", "Linus")


def grid_ready(text):
    """The room as a newcomer should first see it: every participant connected, someone speaking (◆), the status
    bar showing (not a passing notice such as the missing sound card), and no overlay open."""
    lines = text.splitlines()
    connected = all(any(name in line and "connected" in line for line in lines) for name in PEERS)
    return connected and "◆" in text and bool(lines) and "? help" in lines[-1] and "╭" not in text


@dataclass
class Scene:
    name: str           # the PNG's name, without .png
    keys: tuple         # tmux send-keys arguments, pressed from the plain grid
    until: object       # a predicate on the screen's text: capture when it holds
    what: str           # what is awaited, for the timeout message


SCENES = [
    Scene("demo-grid", (), grid_ready, "Ada, Grace and Linus connected, a speaker mark, the status bar"),
    Scene("stats-overlay", ("s",), lambda t: "call statistics" in t and all(n in t for n in PEERS),
          "the statistics overlay"),
    Scene("help", ("?",), lambda t: "conftui keys" in t and "quit at once" in t, "the help overlay"),
    Scene("invite", ("i",), lambda t: "invite others to room" in t and "terminal  conftui join" in t, "the invite overlay"),
    # Last: `t` opens the pane, which Esc does not close. The lines come over the synthetic participants' data channels.
    Scene("chat", ("t",), lambda t: "chat · t hides" in t and ("Morning all" in t or "notes from last" in t),
          "the chat pane with a line from the room"),
]


def demo_port():
    """3000 when it is free (the URL in the status bar then reads as in the docs), else 0: any free port."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)     # as conftui's server does: TIME_WAIT is fine
        try:
            s.bind(("127.0.0.1", 3000))
            return 3000
        except OSError:
            return 0


def capture(session):
    """The screen as cells, from one capture: text and colours of the same instant."""
    raw = session._tmux("capture-pane", "-p", "-e", "-N").stdout
    return parse(raw, WIDTH, HEIGHT)


def wait_screen(session, until, what, timeout, settle=0.0):
    """The screen once `until` holds on it, and still holds `settle` seconds later (the renderer spreads a full
    redraw, such as the video under a closed overlay, over a few frames within its byte budget)."""
    deadline = time.monotonic() + timeout
    while True:
        screen = capture(session)
        if until(screen.text()):
            if not settle:
                return screen
            time.sleep(settle)
            screen = capture(session)
            if until(screen.text()):
                return screen
        shown = screen.text().rstrip() or "(blank)"
        if os.path.exists(session.status):
            with open(session.status) as f:
                status = f.read().strip()
            raise RuntimeError(f"conftui exited (status {status}) while waiting for {what}; the screen was:\n{shown}")
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}; the screen was:\n{shown}")
        time.sleep(0.1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bin", help="the conftui binary (the release build)")
    ap.add_argument("outdir", type=pathlib.Path)
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for each scene (default 30)")
    options = ap.parse_args()
    binary = pathlib.Path(options.bin).resolve()
    if not binary.is_file():
        print(f"make_screenshots: no binary at {binary}", file=sys.stderr)
        return 2

    command = f"{binary} demo --peers {len(PEERS)} --name Sam --port {demo_port()}"
    # The binary's folder first on PATH: the invite then says `conftui join ...`, as it does for an installed conftui.
    path = f"{binary.parent}:{os.environ.get('PATH', '')}"
    session = TmuxSession(command, WIDTH, HEIGHT, env={"TERM": "xterm-256color", "COLORTERM": "truecolor", "PATH": path})
    try:
        for i, scene in enumerate(SCENES):
            if i > 0:
                session.send("Escape")
                wait_screen(session, grid_ready, "the plain grid again (Esc)", options.timeout)
            if scene.keys:
                session.send(*scene.keys)
            screen = wait_screen(session, scene.until, scene.what, options.timeout, settle=SETTLE)
            path = options.outdir / f"{scene.name}.png"
            size = save_png(render(screen), path)
            print(f"{path}: {size:,} bytes")
        session.send("q")
        status = session.wait_exit(timeout=15)
        if status != 0:
            raise RuntimeError(f"the demo exited with status {status} after q")
    except (TimeoutError, AssertionError, RuntimeError) as error:
        print(f"make_screenshots: {error}", file=sys.stderr)
        return 1
    finally:
        session.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
