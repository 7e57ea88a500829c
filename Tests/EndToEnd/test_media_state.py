"""Remote mute and video-off are told, not guessed: two `conftui join` in tmux against `conftui serve`.

Jay presses `v` (video off) then `m` (mute); Kim's screen must show Jay's tile label saying "video off", then
"muted" as well, within 3 s each (the state travels as `__media_state` → `_media_state`, docs/skyrtc-protocol.md
§9), and both must go away when Jay presses the keys again. A third participant who joins while Jay is muted learns
it from `_peers.media` at once. On failure: every screen, the logs and the server's log."""
import pathlib
import tempfile
import time

import pytest

from testsupport.binaries import conftui_bin
from testsupport.evidence import LogFile, evidence_on_failure
from testsupport.processes import free_port
from testsupport.serve import ServerProcess, conftui_serve_command
from testsupport.tmux import TmuxSession


@pytest.fixture
def workdir():
    return pathlib.Path(tempfile.mkdtemp(prefix="conftui-media-state-"))


def label_of(screen: str, name: str) -> str:
    """The tile label line part that belongs to `name` (labels are separated by runs of spaces; 180 columns give
    each of the three tiles room for "Jay · muted · video off · connected" uncut)."""
    for line in screen.splitlines():
        at = line.find(name + " ·")
        if at >= 0:
            return line[at:].split("   ")[0]
    return ""


def test_mute_and_video_off_reach_the_other_screens(workdir):
    serve = ServerProcess(conftui_serve_command(port=free_port()), "conftui serve", workdir / "serve.log").start()
    screens = {}
    with evidence_on_failure() as evidence:
        evidence.add(serve, close=serve.stop)

        def join(name: str, tone: int) -> TmuxSession:
            log = workdir / f"{name}.log"
            s = TmuxSession(f"{conftui_bin()} join {serve.ws_url} --room m --name {name} --tone {tone} "
                            f"--host-candidates loopback --color 256 --log {log}", 180, 40)
            evidence.add(s, close=s.close)
            evidence.add(LogFile(f"{name} log", log, 40))
            screens[name] = s
            return s

        jay = join("Jay", 440)
        kim = join("Kim", 550)
        kim.wait_for(lambda sc: "Jay · connected" in sc, timeout=15, what="Kim sees Jay connected")
        assert "muted" not in label_of(kim.capture(), "Jay") and "video off" not in label_of(kim.capture(), "Jay")

        started = time.monotonic()
        jay.send("v")
        kim.wait_for(lambda sc: "video off" in label_of(sc, "Jay"), timeout=3, what="Jay's tile says video off")
        took_video = time.monotonic() - started
        jay.send("m")
        screen = kim.wait_for(lambda sc: "muted" in label_of(sc, "Jay"), timeout=3, what="Jay's tile says muted")
        assert "video off" in label_of(screen, "Jay"), label_of(screen, "Jay")

        # Someone joining now learns both from `_peers.media`, without waiting for a change.
        lee = join("Lee", 660)
        screen = lee.wait_for(lambda sc: "muted" in label_of(sc, "Jay") and "video off" in label_of(sc, "Jay"),
                              timeout=10, what="Lee sees Jay muted with video off")

        jay.send("v")
        jay.send("m")
        for s in (kim, lee):
            s.wait_for(lambda sc: "Jay · connected" in sc and "muted" not in label_of(sc, "Jay")
                       and "video off" not in label_of(sc, "Jay"), timeout=5, what="Jay's flags gone again")
        # Kim's own state was never announced as off: Jay sees Kim plain.
        assert "muted" not in label_of(jay.capture(), "Kim") and "video off" not in label_of(jay.capture(), "Kim")
        for s in screens.values():
            s.send("q")
        for s in screens.values():
            assert s.wait_exit(10) == 0
        print(f"video off shown on the other screen {took_video:.2f} s after the key")
