"""Overlays (stats, help, leave confirmation) are drawn over live video: the tiles keep playing in
every cell outside the box, no tile falls back to its placeholder, and the status bar spans the row."""
import re
import time
import pytest

from testsupport.binaries import conftui_bin
from testsupport.tmux import TmuxSession

WIDTH, HEIGHT = 120, 40
SGR = re.compile(r"\x1b\[[0-9;:]*m")
HALF_BLOCKS = "▀▄█"


def cells(raw):
    """The pane as rows of (SGR state, character); the state is what was set since the row began."""
    rows = []
    for line in raw.split("\n"):
        row, state, i = [], "", 0
        while i < len(line):
            m = SGR.match(line, i)
            if m:
                state = "" if m.group(0) in ("\x1b[0m", "\x1b[m") else state + m.group(0)
                i = m.end()
                continue
            row.append((state[-80:], line[i]))
            i += 1
        rows.append(row)
    return rows


def box_of(screen):
    lines = screen.split("\n")
    top = next(i for i, l in enumerate(lines) if "╭" in l)
    bottom = next(i for i, l in enumerate(lines) if "╰" in l)
    return top, bottom, lines[top].index("╭"), lines[top].index("╮")


def changing_share(s):
    """Share of video cells outside the overlay box that differ between two captures 300 ms apart
    (at 15 fps that is four or more frames, so even a loaded machine has shown a new one)."""
    first = s.capture(escapes=True)
    time.sleep(0.3)
    second = s.capture(escapes=True)
    top, bottom, left, right = box_of(s.capture())
    a, b = cells(first), cells(second)
    video = changed = 0
    for r in range(min(len(a), len(b), HEIGHT - 1)):
        for c in range(min(len(a[r]), len(b[r]))):
            if top <= r <= bottom and left <= c <= right:
                continue
            if a[r][c][1] in HALF_BLOCKS or b[r][c][1] in HALF_BLOCKS:
                video += 1
                changed += a[r][c] != b[r][c]
    return changed / max(1, video), video


def status_row(s):
    return s._tmux("capture-pane", "-p", "-e", "-N").stdout.split("\n")[HEIGHT - 1]


def status_spans_the_row(raw):
    plain = SGR.sub("", raw)
    # -N keeps trailing spaces: the row's colour is set before the text and nothing resets or
    # changes the background before the last column.
    body = raw[:len(raw) - len(raw.lstrip("\x1b[0123456789;m"))]
    rest = raw[len(body):]
    return len(plain) >= WIDTH and "\x1b[4" in body and "\x1b[" not in rest.rstrip().rstrip("\x1b[0m")


def check_overlays(s, record):
    for key, close in (("s", "s"), ("?", "Escape"), ("l", None)):
        s.send(key)
        s.wait_for(lambda sc: "╭" in sc, what=f"the box of {key!r}")
        time.sleep(0.5)
        share, video = changing_share(s)
        screen = s.capture()
        record.append((key, share, video))
        assert video > 500, f"{key!r}: only {video} video cells outside the box:\n{screen}"
        assert share >= 0.8, f"{key!r}: only {share:.0%} of the video cells outside the box changed:\n{screen}"
        assert "waiting for video" not in screen and "starting video" not in screen, screen
        raw = status_row(s)
        assert status_spans_the_row(raw), f"{key!r}: the status bar does not span the row: {raw!r}"
        if close:
            s.send(close)
            s.wait_for(lambda sc: "╭" not in sc, what=f"{key!r} closes")


# The moving test card everywhere (the demo's faces are still but for mouths and eyes): every video cell changes.
@pytest.mark.parametrize("mode", ["demo --simulate 4 --camera demo-card --peer-camera demo-card",
                                  "demo --peers 3 --camera demo-card --peer-camera demo-card"])
def test_overlays_leave_the_video_playing(mode):
    s = TmuxSession(f"{conftui_bin()} {mode}", WIDTH, HEIGHT)
    try:
        s.wait_for(lambda sc: ("4 peers" in sc or "3 peers" in sc) and sc.count("▀") > 300,
                   timeout=30, what="every tile showing video")
        record = []
        check_overlays(s, record)
        print(mode, " ".join(f"{k}={share:.0%}/{n}" for k, share, n in record))
    finally:
        s.close()
