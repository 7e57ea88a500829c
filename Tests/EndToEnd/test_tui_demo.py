"""End-to-end tests of the curses front: the real binary in tmux, keys in, screen out."""
import os
import re
import signal
import pytest

from testsupport.binaries import conftui_bin
from testsupport.tmux import TmuxSession

NAMES = ["Ada", "Grace", "Linus", "Radia"]


@pytest.fixture
def demo():
    sessions = []

    def start(n=4, width=120, height=40, extra=""):
        s = TmuxSession(f"{conftui_bin()} demo --simulate {n} --static {extra}", width, height)
        sessions.append(s)
        return s

    yield start
    for s in sessions:
        s.close()


def all_joined(screen, n):
    return all(name in screen for name in NAMES[:n]) and f"{n} peers" in screen


def label_line(screen, needle):
    """The first line holding `needle`, or "" when none does: a capture can catch a full repaint half drawn (the
    label rows not yet written), and a predicate that raises would end the wait instead of trying again."""
    return next((line for line in screen.splitlines() if needle in line), "")


def test_grid_shows_every_tile_with_its_label_three_per_row(demo):
    s = demo(4)
    screen = s.wait_for(lambda sc: all_joined(sc, 4) and sc.count("connected") >= 4, what="4 peers connected")
    # every tile shows video: half-block cells above each label row
    lines = screen.splitlines()
    for name in ["(you) · [", "Linus"]:
        row = next(i for i, l in enumerate(lines) if name in l)
        assert any("▀" in l or "▄" in l for l in lines[max(0, row - 6):row]), f"no video above {name}"
    # Own tile first, then join order, three per row: the first label row holds you, Ada, Grace.
    first_row = label_line(screen, "Ada")
    assert "you" in first_row and "Grace" in first_row
    assert first_row.index("you") < first_row.index("Ada") < first_row.index("Grace")
    second_row = label_line(screen, "Linus")
    assert "Radia" in second_row and "Ada" not in second_row
    lines = screen.splitlines()
    assert lines.index(second_row) > lines.index(first_row)


def test_m_flips_the_mute_indicator(demo):
    s = demo(2)
    s.wait_for(lambda sc: "mic on" in sc, what="status bar")
    s.send("m")
    screen = s.wait_for(lambda sc: "mic MUTED" in sc, what="mic MUTED")
    assert "muted" in label_line(screen, "(you)")
    s.send("m")
    s.wait_for(lambda sc: "mic on" in sc and "(you)" in sc and "muted" not in label_line(sc, "(you)"), what="mic on again")


def test_c_changes_the_source_label(demo):
    s = demo(2)
    # The demo starts on your face, then c cycles through the test card, bars and clock.
    s.wait_for(lambda sc: "[face]" in sc, what="initial source")
    s.send("c")
    s.wait_for(lambda sc: "[card]" in sc and "video card" in sc, what="card source")
    s.send("c")
    s.wait_for(lambda sc: "[bars]" in sc and "video bars" in sc, what="bars source")
    s.send("c")
    s.wait_for(lambda sc: "[clock]" in sc, what="clock source")


def local_tile(screen):
    """The local tile's cells: the first third of the columns, above its label row."""
    lines = screen.splitlines()
    label_row = next(i for i, l in enumerate(lines) if "(you)" in l)
    width = max(len(l) for l in lines) // 3
    return "\n".join(l[:width] for l in lines[:label_row])


def test_v_turns_the_tile_to_its_placeholder(demo):
    s = demo(2)
    s.wait_for(lambda sc: "video face" in sc and "▀" in local_tile(sc), what="local video drawn in half blocks")
    s.send("v")
    # the placeholder in the local tile says why there is no video, and no video cell is left there
    screen = s.wait_for(lambda sc: "video off" in label_line(sc, "(you)") and "▀" not in local_tile(sc)
                        and "video off" in local_tile(sc), what="video off: the local tile shows its placeholder")
    assert "▀" in screen, "the other tiles still show video"
    assert "│ video off │" in screen.splitlines()[-1], "the status bar says so too"


def test_leave_asks_then_y_exits_with_status_0_and_restores_the_terminal(demo):
    s = demo(2)
    s.wait_for(lambda sc: all_joined(sc, 2), what="room")
    s.send("l")
    s.wait_for(lambda sc: "Leave the call?" in sc, what="confirmation")
    s.send("x")  # any other key stays
    s.wait_for(lambda sc: "Leave the call?" not in sc, what="dialog closed")
    assert s.app_pid() is not None, "still running after declining"
    s.send("l")
    s.wait_for(lambda sc: "Leave the call?" in sc, what="confirmation again")
    s.send("y")
    assert s.wait_exit() == 0
    assert s.modes_restored()


def test_resize_relays_out_the_grid(demo):
    s = demo(4, 120, 40)
    before = s.wait_for(lambda sc: all_joined(sc, 4), what="room")
    col_before = label_line(before, "Grace").index("Grace")
    s.resize(90, 30)
    after = s.wait_for(lambda sc: all_joined(sc, 4) and label_line(sc, "Grace").index("Grace") != col_before,
                       what="re-layout at 90x30")
    assert label_line(after, "Ada").index("you") < label_line(after, "Ada").index("Ada")
    # A terminal too small for tiles falls back to the list view: one participant per line.
    s.resize(20, 5)
    def list_view(sc):
        lines = sc.splitlines()
        rows = [i for i, l in enumerate(lines) if "you" in l or "Ada" in l]
        return len(rows) >= 2 and "▀" not in sc and not any("you" in l and "Ada" in l for l in lines)
    small = s.wait_for(list_view, what="list view at 20x5: one participant per line, no video")
    lines = [l for l in small.splitlines() if l.strip()]
    assert len(lines) <= 5
    s.resize(120, 40)
    s.wait_for(lambda sc: all_joined(sc, 4) and "Grace" in label_line(sc, "Ada") and "▀" in sc, what="tiles again")


@pytest.mark.parametrize("how", ["q", "SIGTERM", "SIGINT", "SIGHUP"])
def test_every_exit_path_restores_the_terminal(demo, how):
    s = demo(2)
    s.wait_for(lambda sc: all_joined(sc, 2), what="room")
    if how == "q":
        s.send("q")
        assert s.wait_exit() == 0
    else:
        os.kill(s.app_pid(), getattr(signal, how))
        assert s.wait_exit() == 128 + getattr(signal, how)
    assert s.modes_restored(), "stty -g differs after exit"
    # and the screen is the shell's again (alternate screen left, no tiles)
    screen = s.capture()
    assert "▀" not in screen and "Ada" not in screen


def test_a_crash_signal_restores_the_terminal(demo):
    s = demo(2)
    s.wait_for(lambda sc: all_joined(sc, 2), what="room")
    os.kill(s.app_pid(), signal.SIGSEGV)
    status = s.wait_exit()
    assert status == 128 + signal.SIGSEGV
    assert s.modes_restored()


@pytest.mark.parametrize("term,extra", [("xterm-256color", ""), ("screen-256color", ""), ("linux", ""),
                                        ("xterm-256color", "--color mono"), ("xterm-256color", "--color truecolor")])
def test_the_grid_works_on_common_terminals_and_colour_modes(demo, term, extra):
    s = TmuxSession(f"{conftui_bin()} demo --simulate 2 --static {extra}", 100, 30, env={"TERM": term})
    try:
        screen = s.wait_for(lambda sc: all_joined(sc, 2) and "(you) · [" in sc, what=f"grid under TERM={term} {extra}")
        assert "▀" in screen or "▄" in screen or "█" in screen, "video cells drawn"
        if "mono" in extra:
            colours = s.capture(escapes=True)
            assert "38;2;" not in colours and "38;5;" not in colours, "monochrome sends no colour escapes"
        s.send("q")
        assert s.wait_exit() == 0
        assert s.modes_restored()
    finally:
        s.close()
