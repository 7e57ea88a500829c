"""`i` in the demo shows how others join (#28): the browser URL and the exact `conftui join` command line. The test
reads both back from the screen, runs the printed command verbatim in a second terminal (a person pasting it), and
runs a bot with the same words (`join` → `bot`), and checks that both arrive in the room: the demo's screen gains
their tiles, the pasted terminal shows the demo's participants (and its own `i` the same invite), the bot decodes
their video."""

import json
import pathlib
import re
import shlex
import subprocess
import time
import urllib.request

from testsupport.binaries import conftui_bin
from testsupport.evidence import LogFile, evidence_on_failure
from testsupport.tmux import TmuxSession

BOX_EDGE = "│"


def invite_lines(screen: str) -> dict[str, str]:
    """{'browser': URL, 'terminal': command} from the invite box on the screen (its lines sit between box edges)."""
    found = {}
    for line in screen.splitlines():
        for key in ("browser", "terminal"):
            at = line.find(key + "  ")
            if at >= 0 and key not in found:
                rest = line[at + len(key):]
                found[key] = rest.split(BOX_EDGE)[0].strip()
    return found


def test_i_shows_an_invite_whose_command_joins_the_room(tmp_path):
    demo = TmuxSession(f"{conftui_bin()} demo --peers 1 --name Sam --camera card --log {tmp_path}/demo.log", 120, 40)
    sessions = [demo]
    try:
        run_invite(demo, sessions, tmp_path)
    finally:
        for s in sessions:
            s.close()


def run_invite(demo, sessions, tmp_path):
    with evidence_on_failure(demo) as evidence:
        evidence.add(LogFile("demo log", tmp_path / "demo.log"))
        demo.wait_for(lambda sc: "Ada" in sc and "connected" in sc, timeout=20, what="Ada connected")
        demo.send("i")
        screen = demo.wait_for(lambda sc: "invite others to room 'demo'" in sc and "terminal  " in sc, what="the invite box")
        invite = invite_lines(screen)
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/#demo", invite.get("browser", "")), invite
        words = shlex.split(invite["terminal"])
        # The command is the binary running the demo (not on PATH here, so its absolute path), then `join URL --room`.
        assert pathlib.Path(words[0]).resolve() == pathlib.Path(conftui_bin()).resolve(), words
        port = re.search(r":(\d+)/", invite["browser"]).group(1)
        assert words[1:] == ["join", f"ws://127.0.0.1:{port}/", "--room", "demo"], words
        assert "only this machine can use" in screen
        # The browser URL serves the page.
        with urllib.request.urlopen(invite["browser"].split("#")[0], timeout=5) as page:
            assert page.status == 200 and b"<html" in page.read().lower()
        demo.send("Escape")
        demo.wait_for(lambda sc: "invite others" not in sc, what="the invite box closed")

        # A person pastes the command into another terminal.
        pasted = TmuxSession(invite["terminal"], 120, 40, env={"USER": "visitor", "LOGNAME": "visitor"})
        sessions.append(pasted)
        evidence.add(pasted)
        pasted.wait_for(lambda sc: "Ada · connected" in sc and "Sam · connected" in sc, timeout=20,
                        what="the pasted join sees Ada and Sam connected")
        demo.wait_for(lambda sc: "2 peers" in sc and sc.count("connected") >= 2, timeout=20,
                      what="the demo shows the visitor's tile")
        # `join` invites to the same room the same way.
        pasted.send("i")
        joined = invite_lines(pasted.wait_for(lambda sc: "terminal  " in sc, what="the invite box in join"))
        assert joined == invite, (joined, invite)

        # A bot with the same words.
        report = tmp_path / "bot.json"
        command = [words[0], "bot", *words[2:], "--name", "Bot", "--duration", "8", "--report", str(report),
                   "--log", str(tmp_path / "bot.log")]
        evidence.add(LogFile("bot log", tmp_path / "bot.log"))
        bot = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30)
        out = bot.stdout + bot.stderr
        assert bot.returncode == 0, out
        peers = json.loads(report.read_text())["peers"]
        decoded = sorted(p["video"]["framesDecoded"] for p in peers.values())
        # Sam, Ada and the visitor: everyone's video arrives at the bot (15 fps for ~6 s once connected).
        summary = {p.get("name", pid): (p.get("state"), p["video"]["framesDecoded"]) for pid, p in peers.items()}
        assert len(peers) == 3 and decoded[0] >= 40, summary
        demo.send("q")
        assert demo.wait_exit() == 0
