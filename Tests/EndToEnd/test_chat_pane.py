"""The chat pane of the simulated demo: the real binary in tmux. The pane shares the screen with the grid (every
tile keeps its video), scripted lines arrive, typed text is text (call keys included), Esc drops a half-typed line,
PgUp scrolls back, and a hidden pane counts what arrives in the status bar."""
import time
import pytest

from testsupport.binaries import conftui_bin
from testsupport.tmux import TmuxSession

WIDTH, HEIGHT = 120, 40
TILES = ["(you)", "Ada", "Grace", "Linus"]


@pytest.fixture
def demo():
    s = TmuxSession(f"{conftui_bin()} demo --simulate 3 --static --name Sam", WIDTH, HEIGHT)
    yield s
    s.close()


def pane_left(screen):
    """The column of the pane's rule (the grid is everything left of it)."""
    lines = screen.splitlines()
    return min(l.index("│ chat") for l in lines if "│ chat" in l)


def every_tile_shows_video(screen):
    lines = screen.splitlines()
    edge = pane_left(screen)
    for name in TILES:
        row = next(i for i, l in enumerate(lines) if name in l[:edge])
        col = lines[row].index(name)
        above = [l[max(0, col - 2):col + 20] for l in lines[max(0, row - 6):row]]
        if not any("▀" in part for part in above):
            return False
    return True


def test_chat_pane_beside_the_video_typing_scrolling_and_unread(demo):
    s = demo
    s.wait_for(lambda sc: "3 peers" in sc and all(n in sc for n in TILES), what="everyone joined")
    s.send("t")
    screen = s.wait_for(lambda sc: "chat · t hides" in sc and every_tile_shows_video(sc), timeout=10,
                        what="the pane beside tiles that still show video")
    edge = pane_left(screen)
    assert edge >= WIDTH // 2, "the pane is a column on the right at 120 columns"
    # No video is written into the pane's cells.
    assert not any("▀" in l[edge:] for l in screen.splitlines()[:-1])

    s.wait_for(lambda sc: "Morning all" in sc, timeout=10, what="a scripted chat line")

    # While typing, the call keys are text: nothing mutes, switches or quits.
    s.send("Enter")
    s.wait_for(lambda sc: "│ >" in sc and "Enter to type" not in sc, what="the input open")
    s.send("-l", "hello mvclq 日本 e\u0301")
    s.send("Enter")
    screen = s.wait_for(lambda sc: "Sam: hello mvclq 日本" in sc, what="the sent line in the pane")
    assert "mic on" in screen and "mic MUTED" not in screen
    assert "video face" in screen and "LEFT" not in screen
    assert s.app_pid() is not None, "conftui is still running"
    s.wait_for(lambda sc: "Got it, Sam." in sc, timeout=5, what="the simulated answer")

    # Esc drops a half-typed line.
    s.send("Enter")
    s.send("-l", "half typed")
    s.wait_for(lambda sc: "> half typed" in sc, what="the half-typed line in the input")
    s.send("Escape")
    screen = s.wait_for(lambda sc: "Enter to type" in sc, what="the input closed")
    assert "half typed" not in screen

    # PgUp scrolls back: the newest lines leave the view and the title says how many are below.
    s.send("PPage")
    screen = s.wait_for(lambda sc: "newer (PgDn)" in sc, what="scrolled back")
    assert "Got it, Sam." not in screen
    s.send("NPage")
    s.wait_for(lambda sc: "Got it, Sam." in sc and "newer (PgDn)" not in sc, what="back at the newest")

    # Hidden, the pane counts what arrives (the next scripted line is at most 12 s away).
    s.send("t")
    s.wait_for(lambda sc: "chat · t hides" not in sc and "chat " not in sc.splitlines()[-1], what="pane hidden")
    s.wait_for(lambda sc: "chat 1 new" in sc, timeout=15, what="the unread count")
    s.send("t")
    s.wait_for(lambda sc: "chat 1 new" not in sc and "chat · t hides" in sc, what="unread cleared when shown")

    s.send("q")
    assert s.wait_exit() == 0
    assert s.modes_restored()
