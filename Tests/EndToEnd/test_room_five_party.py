"""One room, five different participants, content checked at every receiver; then mute, camera switch and leave
on the `conftui join` screen, seen by everyone else (issue #8, "Done when", end to end).

The room, on loopback through `conftui serve`:
- Ada: `conftui join` in tmux, test card (participant 6), 440 Hz tone. The keys are pressed on her screen.
- Bea: `conftui bot`, test card (participant 8), 560 Hz (the tones sit on the 20 Hz grid of the receivers' coarse
  frequency scan: AudioAnalysis.dominantFrequency at this commit misreads 550 Hz through Opus).
- Cyd: `conftui bot`, test card (participant 32), 660 Hz.
- aiortc: a mesh SkyRTC client in its own process (testsupport.aiortc_process), half-white picture
  (10 frames/s), 880 Hz.
- Chromium: the served page in headless Chromium with its fake camera (10 frames/s) and fake microphone beep.
Every receiver must get every other participant's video and audio, checked by content: test-card counters advancing
and the sender's participant number (conftui reports, aiortc, and the page's <video> read on a canvas), tones within
5 Hz (conftui reports, aiortc, a WebAudio analyser in the page), aiortc's half-white picture, Chromium's camera
(320x240, not uniform) and beep. Then on Ada's screen: `m` silences her tone at everyone while the other tones stay,
`m` brings it back; `c` switches her camera to bars, so her test-card codes stop arriving everywhere while her frames
keep coming; `l` `y` leaves: everyone gets `_remove_peer` and drops her within 2 s (aiortc's arrival time, the bots'
log lines, the page's state and tiles). Ada's screen labels the others by name (Bea, Cyd) and by short socketId
(aiortc, Chromium: they send no name). Bea and Cyd are bots rather than a second screen: ten media pipelines already
share two cores with whatever else runs, and a second curses screen repainting five tiles costs more than it tests.

The second test runs a smaller room (join in tmux, bot, aiortc, Chromium) in the `__default` room through servers that
behave like the original SkyRTC server: `conftui serve --compat original` and Tests/Interop/skyrtc_reference_server.py
(candidates forwarded with `label` and `candidate` only, no names). Tiles then show short socketIds.

Each check is an item of a checklist that latches once seen true (two cores are shared by ten media pipelines here:
a moment of concealment must not hide that the right tone did arrive); counters are compared with a baseline taken
after the first round, so "advancing" means advancing. On failure the unmet items are listed with what was last
observed, then each participant's own evidence: join screens, logs and reports, the bot's log and report, aiortc's
per-peer report, log and getStats, the page's state, log, probe and console, the server log.
"""

from __future__ import annotations

import contextlib
import dataclasses
import pathlib
import time

import pytest

from room_participants import BrowserInRoom, JoinInTmux, logged_at
from testsupport.aiortc_process import AiortcProcess
from testsupport.bot import BotProcess, bot_participant
from testsupport.chromium import Chromium
from testsupport.evidence import evidence_on_failure
from testsupport.reports import read_report
from testsupport.serve import conftui_serve_command, reference_server_command, running_server
from testsupport.card_reader import CARD_COLOURS

FIRST_MEDIA_TIMEOUT = 40.0     # from the last join until every receiver has had everyone's media (10 connections)
STEP_TIMEOUT = 20.0            # for each key's effect to show at every receiver
LEAVE_DEADLINE = 2.0           # `_remove_peer` seen and the tile dropped, counted from the `y`
TONE_TOLERANCE = 5.0           # Hz
AIORTC_TONE = 880.0
SILENT = 0.03                  # RMS (0...1): below it a tone (arriving at about 0.2) is gone, -17 dB and more
AUDIBLE = 0.05
SETTLE = 1.5                   # s after a key before the receivers' audio windows and the pipelines hold only the new
CHROMIUM_FAKE_DEVICES = "--use-fake-device-for-media-stream"


@dataclasses.dataclass
class Sender:
    key: str                  # Ada, Bea, Cyd, aiortc, chromium
    kind: str                 # card (conftui), aiortc, chromium
    socket_id: str = ""
    tone: float | None = None

    @property
    def participant(self) -> int:
        return bot_participant(self.key)


def near(value, target: float, tolerance: float = TONE_TOLERANCE) -> bool:
    return value is not None and abs(value - target) <= tolerance


class Checklist:
    """Named items that latch once true; `pending` holds the last observation of each item not yet met."""

    def __init__(self) -> None:
        self.met: set[str] = set()
        self.pending: dict[str, str] = {}
        self.started = time.monotonic()
        self.met_after: dict[str, float] = {}

    def wanted(self, item: str) -> bool:
        return item not in self.met

    def check(self, item: str, ok: bool, observed: object = "") -> None:
        if item in self.met:
            return
        if ok:
            self.met.add(item)
            self.met_after[item] = time.monotonic() - self.started
            self.pending.pop(item, None)
        else:
            self.pending[item] = str(observed)


def until_met(what: str, timeout: float, observe, interval: float = 0.5) -> Checklist:
    """Calls `observe(checklist)` until a round leaves nothing pending; fails listing the unmet items."""
    checklist = Checklist()
    deadline = time.monotonic() + timeout
    while True:
        checklist.pending = {}
        observe(checklist)
        if not checklist.pending:
            slowest = sorted(checklist.met_after.items(), key=lambda kv: -kv[1])[:3]
            print(f"{what}: {len(checklist.met)} items met in {time.monotonic() - checklist.started:.1f} s; last: "
                  + "; ".join(f"{k} ({v:.1f} s)" for k, v in slowest))
            return checklist
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting until {what}; not met:\n  "
                                 + "\n  ".join(f"{k}: {v}" for k, v in sorted(checklist.pending.items())))
        time.sleep(interval)


# --------------------------------------------------------------------------------------------------------------
# The room: who is in it, started in join order, and everyone's evidence for a failure message.

class Room:
    def __init__(self, server, tmp_path: pathlib.Path, room: str | None) -> None:
        self.server, self.tmp_path, self.room = server, tmp_path, room
        self.joins: dict[str, JoinInTmux] = {}
        self.bots: dict[str, BotProcess] = {}
        self.aiortc: AiortcProcess | None = None
        self.browser: Chromium | None = None
        self.page: BrowserInRoom | None = None
        self.senders: list[Sender] = []

    def sender(self, key: str) -> Sender:
        return next(s for s in self.senders if s.key == key)

    def others(self, key: str) -> list[Sender]:
        return [s for s in self.senders if s.key != key]

    def start_join(self, name: str, tone: float) -> JoinInTmux:
        room_flags = ("--room", self.room) if self.room else ()
        join = JoinInTmux(self.server.ws_url, name, self.tmp_path, "--tone", str(int(tone)), "--camera", "card",
                          *room_flags)
        self.joins[name] = join
        self.senders.append(Sender(name, "card", join.wait_joined(), tone))
        return join

    def start_bot(self, name: str, tone: float) -> BotProcess:
        # BotProcess always passes --room: "" is the server's default room (the original's `data.room || "__default"`).
        bot = self.bots[name] = BotProcess(self.server.ws_url, self.room or "", name, self.tmp_path, "--tone",
                                           str(int(tone)), duration=120)
        self.senders.append(Sender(name, "card", bot.wait_joined(), tone))
        return bot

    def start_aiortc(self) -> None:
        self.aiortc = AiortcProcess(self.server.ws_url, self.room or "", AIORTC_TONE, self.tmp_path)
        self.senders.append(Sender("aiortc", "aiortc", self.aiortc.wait_joined(), AIORTC_TONE))

    def start_page(self) -> None:
        # The fake camera at 10 frames/s: its four encoders, and the four decoders of it, share two cores with the rest.
        self.browser = Chromium(extra_flags=(f"{CHROMIUM_FAKE_DEVICES}=fps=10",), omit_flags=(CHROMIUM_FAKE_DEVICES,))
        url = self.server.http_url + (f"#{self.room}" if self.room else "")
        self.page = BrowserInRoom(self.browser, url, "chromium")
        self.senders.append(Sender("chromium", "chromium", self.page.wait_joined(), None))

    def conftui_reports(self, exclude: str | None = None) -> list[tuple[str, pathlib.Path]]:
        """(name, report path) of the conftui receivers, but `exclude`."""
        out = [(name, j.report_path) for name, j in self.joins.items() if name != exclude]
        out += [(name, bot.report_path) for name, bot in self.bots.items() if name != exclude]
        return out

    def describe(self) -> str:
        out = ["participants: " + ", ".join(f"{s.key}={s.socket_id}" for s in self.senders)]
        for join in self.joins.values():
            with contextlib.suppress(Exception):
                join.screen()
            out.append(join.describe())
        for bot in self.bots.values():
            bot.kill()
            out.append(bot.describe())
        if self.aiortc is not None:
            self.aiortc.stop()   # its final report carries getStats
            out.append(self.aiortc.describe())
        if self.page is not None:
            out.append(self.page.describe())
        out.append(f"===== signaling server ({self.server.description}) =====\n{self.server.log_tail(150)}")
        return "\n".join(out)

    def close(self) -> None:
        for join in self.joins.values():
            with contextlib.suppress(Exception):
                join.close()
        for bot in self.bots.values():
            bot.kill()
        if self.aiortc is not None:
            self.aiortc.stop()
        if self.browser is not None:
            self.browser.close()


@pytest.fixture
def room_of(tmp_path):
    """room_of(server, room) -> Room; everything it started is stopped at the end, whatever happened."""
    rooms: list[Room] = []

    def make(server, room: str | None) -> Room:
        rooms.append(Room(server, tmp_path, room))
        return rooms[-1]

    try:
        yield make
    finally:
        for room in rooms:
            room.close()


def conftui_serve(tmp_path: pathlib.Path, *flags: str):
    return running_server(conftui_serve_command(*flags), f"conftui serve {' '.join(flags)}".strip(),
                          tmp_path / "server.log")


def reference_server(tmp_path: pathlib.Path):
    return running_server(reference_server_command(), "reference SkyRTC server", tmp_path / "server.log")


# --------------------------------------------------------------------------------------------------------------
# What each kind of receiver got from each sender, as checklist items. `base` is an earlier observation of the same
# receiver (None for the first round): then frames, cards and counters must have advanced from it.

MIN_FRAMES = 10
# Test cards read: fewer than frames when the shared encoder's bitrate drops (the slowest receiver sets it) and the
# code strip blurs past reading; a rising count and a later counter are what "advancing" means.
MIN_CARDS = 3


def observe_report(c: Checklist, receiver: str, report: dict | None, base: dict | None, senders: list[Sender]) -> None:
    """A conftui receiver's `--report`."""
    for s in senders:
        item = f"{receiver} <- {s.key}"
        peer = (report or {}).get("peers", {}).get(s.socket_id)
        if peer is None:
            c.check(f"{item}: in the report", False, sorted((report or {}).get("peers", {})))
            continue
        before = (base or {}).get("peers", {}).get(s.socket_id)
        video, audio = peer["video"], peer["audio"]
        c.check(f"{item}: connected", peer["transport"].get("state") == "connected", peer["transport"].get("state"))
        old = before["video"]["framesDecoded"] if before else 0
        c.check(f"{item}: frames decoded", video["framesDecoded"] >= old + MIN_FRAMES, f"{old} -> {video['framesDecoded']}")
        c.check(f"{item}: 320x240", (video["width"], video["height"]) == (320, 240), f"{video['width']}x{video['height']}")
        if s.kind == "card":
            card = video.get("testCard")
            old_card = before["video"].get("testCard") if before else None
            c.check(f"{item}: its test card", bool(card) and card["participant"] == s.participant
                    and card["first"] < card["last"], f"{card} (participant {s.participant} expected)")
            if before is not None:
                c.check(f"{item}: card counters advance", bool(card and old_card) and card["count"] >= old_card["count"]
                        + MIN_CARDS and card["last"] > old_card["last"], f"{old_card} -> {card}")
        elif s.kind == "aiortc":
            c.check(f"{item}: half-white picture", 90 < video["lumaMean"] < 170 and video["lumaStdDev"] > 60,
                    f"luma {video['lumaMean']:.0f}±{video['lumaStdDev']:.0f}")
            # Its dark bottom half is no code strip (an all-black strip used to pass the checksum as participant 0).
            c.check(f"{item}: no test card read in it", video.get("testCard") is None, video.get("testCard"))
        else:
            c.check(f"{item}: camera picture not uniform", video["lumaStdDev"] > 5, video)
        if base is not None:
            continue   # sound was checked in the first round; the mute step checks it again
        if s.tone is not None:
            c.check(f"{item}: {s.tone:.0f} Hz", near(audio.get("dominantFrequency"), s.tone) and audio["level"] > AUDIBLE,
                    f"{audio.get('dominantFrequency')} Hz at {audio['level']:.3f}")
        else:
            c.check(f"{item}: the beep", audio["peakLevel"] > SILENT and audio["framesDecoded"] >= 50, audio)


def observe_aiortc(c: Checklist, report: dict | None, base: dict | None, senders: list[Sender]) -> None:
    """The aiortc peer's report (per remote socketId)."""
    for s in senders:
        item = f"aiortc <- {s.key}"
        seen = (report or {}).get("peers", {}).get(s.socket_id)
        if seen is None:
            c.check(f"{item}: a connection", False, sorted((report or {}).get("peers", {})))
            continue
        before = (base or {}).get("peers", {}).get(s.socket_id)
        c.check(f"{item}: connected", seen["state"] == "connected", seen["state"])
        old = before["videoFrames"] if before else 0
        c.check(f"{item}: frames decoded", seen["videoFrames"] >= old + MIN_FRAMES, f"{old} -> {seen['videoFrames']}")
        c.check(f"{item}: 320x240", seen["videoSize"] == [320, 240], seen["videoSize"])
        if s.kind == "card":
            card = seen["cards"].get(str(s.participant))
            c.check(f"{item}: its test card", bool(card) and card["last"] > card["first"] and card["regressions"] == 0,
                    f"{seen['cards']} (participant {s.participant} expected)")
            expected = CARD_COLOURS[s.participant % 7]
            c.check(f"{item}: its card colour", seen["background"] is not None
                    and all(abs(a - b) <= 14 for a, b in zip(seen["background"], expected)),
                    f"{seen['background']}, {expected} expected")
            if before is not None:
                old_card = before["cards"].get(str(s.participant))
                c.check(f"{item}: card counters advance", bool(card and old_card) and card["count"] >= old_card["count"]
                        + MIN_CARDS and card["last"] > old_card["last"], f"{old_card} -> {card}")
        elif s.kind == "chromium":
            c.check(f"{item}: camera picture not uniform", seen["luma"].get("std", 0) > 5, seen["luma"])
        if base is not None:
            continue
        if s.tone is not None:
            c.check(f"{item}: {s.tone:.0f} Hz", near(seen["frequency"], s.tone) and seen["level"] > AUDIBLE,
                    f"{seen['frequency']} Hz at {seen['level']:.3f}")
        else:
            c.check(f"{item}: the beep", seen["peakLevel"] > SILENT, seen["peakLevel"])


def observe_page(c: Checklist, page: BrowserInRoom, base: tuple[dict, dict] | None,
                 senders: list[Sender]) -> tuple[dict, dict]:
    """The page's getStats per peer (frames, size) and its probe (cards read on a canvas, the analyser)."""
    # Pictures (about 100 kB of luma per peer over CDP) only while a picture item is still open.
    picture_items = ["its test card on the canvas", "half-white picture on the canvas"]
    if base is not None:
        picture_items.append("card counter advances")
    pictures = any(c.wanted(f"Chromium <- {s.key}: {what}") for s in senders for what in picture_items)
    state, probe = page.state(), page.probe(pictures=pictures)
    base_state, base_probe = base or ({}, {})
    for s in senders:
        item = f"Chromium <- {s.key}"
        peer = state["peers"].get(s.socket_id)
        if peer is None:
            c.check(f"{item}: a connection", False, sorted(state["peers"]))
            continue
        before = base_state.get("peers", {}).get(s.socket_id)
        c.check(f"{item}: connected", peer["connectionState"] == "connected", peer["connectionState"])
        old = before["framesDecoded"] if before else 0
        c.check(f"{item}: frames decoded", peer["framesDecoded"] >= old + MIN_FRAMES, f"{old} -> {peer['framesDecoded']}")
        c.check(f"{item}: 320x240", (peer["frameWidth"], peer["frameHeight"]) == (320, 240),
                f"{peer['frameWidth']}x{peer['frameHeight']}")
        sample = probe.get(s.socket_id) or {}
        audio, video = sample.get("audio"), sample.get("video")
        if s.kind == "card" and pictures:
            card = page.card_of(probe, s.socket_id)
            mine = card is not None and card["participant"] == s.participant
            read = page.cards_read.setdefault(s.socket_id, [])
            if mine:
                read.append(card["counter"])
            c.check(f"{item}: its test card on the canvas", mine, f"{card} (participant {s.participant} expected)")
            if base is not None:
                # Against the first card read in the first round (one picture may be too blurred to read).
                c.check(f"{item}: card counter advances", mine and card["counter"] > read[0],
                        f"first read {read[:1]}, now {card}")
        elif s.kind == "aiortc" and pictures:
            luma = video["luma"] if video else None
            top = luma[:luma.shape[0] // 2].mean() if luma is not None else 0
            bottom = luma[luma.shape[0] // 2:].mean() if luma is not None else 255
            c.check(f"{item}: half-white picture on the canvas", top > 150 and bottom < 80,
                    f"top {top:.0f}, bottom {bottom:.0f}")
        if base is None and s.tone is not None:
            c.check(f"{item}: {s.tone:.0f} Hz in the analyser",
                    bool(audio) and near(audio["peakHz"], s.tone) and audio["rms"] > AUDIBLE / 2, audio)
    return state, probe


def everyone_receives_everyone(room: Room) -> None:
    """Every receiver gets every other participant's media with the right content; then again, advancing."""
    def observe(c: Checklist, bases: dict | None) -> dict:
        seen = {}
        for name, path in room.conftui_reports():
            seen[name] = read_report(path)
            observe_report(c, name, seen[name], (bases or {}).get(name), room.others(name))
        seen["aiortc"] = room.aiortc.report()
        observe_aiortc(c, seen["aiortc"], (bases or {}).get("aiortc"), room.others("aiortc"))
        seen["chromium"] = observe_page(c, room.page, (bases or {}).get("chromium"), room.others("chromium"))
        return seen

    until_met("every receiver decodes every other participant", FIRST_MEDIA_TIMEOUT, lambda c: observe(c, None))
    bases = observe(Checklist(), None)
    until_met("every receiver's frames and counters advance", STEP_TIMEOUT, lambda c: observe(c, bases))


def fresh(path: pathlib.Path, since: float) -> dict | None:
    """The report at `path` if it was written at or after `since` (wall clock)."""
    try:
        return read_report(path) if path.stat().st_mtime >= since else None
    except OSError:
        return None


def observe_tones(c: Checklist, room: Room, subject: Sender, audible: bool, settled: float) -> None:
    """`subject`'s tone is silent (or heard again) at every receiver, and every other tone is still heard."""
    tone = f"{subject.tone:.0f} Hz"
    if time.time() < settled:
        c.check("audio windows hold only what came after the key", False, "")
        return
    others = [s for s in room.senders if s.key != subject.key and s.tone is not None]

    def judge(receiver: str, freq, level: float, quiet: float) -> None:
        if audible:
            c.check(f"{receiver} <- {subject.key}: {tone} again", near(freq, subject.tone) and level > AUDIBLE,
                    f"{freq} Hz at {level:.3f}")
        else:
            c.check(f"{receiver} <- {subject.key}: silent", level < quiet, f"{freq} Hz at {level:.3f}")

    for name, path in room.conftui_reports(exclude=subject.key):
        report = fresh(path, settled)
        if report is None:
            c.check(f"{name}: a report written after the key", False, "")
            continue
        audio = report["peers"][subject.socket_id]["audio"]
        judge(name, audio.get("dominantFrequency"), audio["level"], SILENT)
        for s in others:
            if s.key != name:
                a = report["peers"][s.socket_id]["audio"]
                c.check(f"{name} <- {s.key}: still {s.tone:.0f} Hz", near(a.get("dominantFrequency"), s.tone)
                        and a["level"] > AUDIBLE, a)
    report = fresh(room.aiortc.report_path, settled) or {"peers": {}}
    seen = report["peers"].get(subject.socket_id)
    if seen is None:
        c.check("aiortc: a report written after the key", False, "")
    else:
        judge("aiortc", seen["frequency"], seen["level"], SILENT)
        for s in others:
            if s.kind != "aiortc":
                o = report["peers"][s.socket_id]
                c.check(f"aiortc <- {s.key}: still {s.tone:.0f} Hz", near(o["frequency"], s.tone)
                        and o["level"] > AUDIBLE, f"{o['frequency']} Hz at {o['level']:.3f}")
    probe = room.page.probe()
    audio = probe.get(subject.socket_id, {}).get("audio") or {"rms": 0.0, "peakHz": None}
    judge("Chromium", audio["peakHz"], audio["rms"], SILENT)
    for s in others:
        a = probe.get(s.socket_id, {}).get("audio")
        c.check(f"Chromium <- {s.key}: still {s.tone:.0f} Hz", bool(a) and near(a["peakHz"], s.tone)
                and a["rms"] > AUDIBLE / 2, a)


def mute_and_check(room: Room, subject: Sender) -> None:
    join = room.joins[subject.key]
    join.send("m")
    join.wait_screen(lambda sc: "mic MUTED" in sc, 5, "mic MUTED on the status bar")
    settled = time.time() + SETTLE
    until_met(f"{subject.key}'s tone is silent everywhere while the others' are heard", STEP_TIMEOUT,
              lambda c: observe_tones(c, room, subject, False, settled))
    join.send("m")
    join.wait_screen(lambda sc: "mic on" in sc, 5, "mic on again")
    settled = time.time() + SETTLE
    until_met(f"{subject.key}'s tone is back everywhere", STEP_TIMEOUT,
              lambda c: observe_tones(c, room, subject, True, settled))


def switch_camera_and_check(room: Room, subject: Sender) -> None:
    """`c` on the subject's screen: its frames keep arriving everywhere, its test-card codes no longer do.

    At each receiver: at least MIN_FRAMES frames decoded since the last test card of the subject arrived (frames
    already in flight when the key was pressed may still carry cards: the baseline moves with each card seen)."""
    join = room.joins[subject.key]
    join.send("c")
    join.wait_screen(lambda sc: f"{subject.key} (you) · [bars]" in sc, 5, "the local tile says [bars]")
    settled = time.time() + SETTLE
    last_card: dict[str, tuple[int, int]] = {}   # receiver -> (cards, frames) when its card count last changed

    def judge(c: Checklist, receiver: str, cards: int, frames: int, detail: object) -> None:
        seen_cards, frames_then = last_card.get(receiver, (None, None))
        if cards != seen_cards:
            last_card[receiver] = (cards, frames)
            frames_then = frames
        c.check(f"{receiver} <- {subject.key}: {MIN_FRAMES} frames since its last test card",
                frames >= frames_then + MIN_FRAMES, f"{frames - frames_then} frames since; {detail}")

    def observe(c: Checklist) -> None:
        if time.time() < settled:
            c.check("the pipelines hold only frames from after the key", False, "")
            return
        for name, path in room.conftui_reports(exclude=subject.key):
            report = fresh(path, settled)
            if report is None:
                c.check(f"{name}: a report written after the switch", False, "")
                continue
            video = report["peers"][subject.socket_id]["video"]
            judge(c, name, video["testCard"]["count"], video["framesDecoded"], video)
        report = fresh(room.aiortc.report_path, settled)
        if report is None:
            c.check("aiortc: a report written after the switch", False, "")
        else:
            seen = report["peers"][subject.socket_id]
            card = seen["cards"].get(str(subject.participant), {})
            judge(c, "aiortc", card.get("count", 0), seen["videoFrames"], f"last card {card}, luma {seen['luma']}")
        if c.wanted(f"Chromium <- {subject.key}: {MIN_FRAMES} frames since its last test card"):
            state, probe = room.page.state(), room.page.probe(pictures=True)
            frames = state["peers"][subject.socket_id]["framesDecoded"]
            card = room.page.card_of(probe, subject.socket_id)
            mine = card is not None and card["participant"] == subject.participant
            read = room.page.cards_read.setdefault(subject.socket_id, [])
            if mine:
                read.append(card["counter"])
            judge(c, "Chromium", len(read), frames, f"card on the canvas now: {card}")

    until_met(f"{subject.key}'s test card is gone at every receiver while its frames keep coming", STEP_TIMEOUT,
              observe)


def leave_and_check(room: Room, subject: Sender) -> dict[str, float]:
    """`l` `y` on the subject's screen: exit 0 with the terminal restored, then within LEAVE_DEADLINE every other
    participant has `_remove_peer` and has dropped it: aiortc (its arrival time), the bots' logs (their timestamps:
    "closing (peer left the room)"), the page's state and tiles. Returns the delays."""
    join = room.joins[subject.key]
    join.send("l")
    join.wait_screen(lambda sc: "Leave the call?" in sc, 5, "the leave confirmation")
    pressed = time.time()
    join.send("y")
    delays: dict[str, float] = {}
    closing = f"{subject.socket_id[:8]}: closing (peer left the room)"
    logs = [(name, path.with_suffix(".log")) for name, path in room.conftui_reports(exclude=subject.key)]
    page_tiles = len(room.senders) - 1   # its own tile and the remaining peers'

    def observe(c: Checklist) -> None:
        now = time.time() - pressed
        removed = ((room.aiortc.report() or {}).get("peers", {}).get(subject.socket_id) or {}).get("removedAt")
        c.check("aiortc: _remove_peer", removed is not None, "not yet")
        if removed is not None:
            delays.setdefault("aiortc _remove_peer", removed - pressed)
        for name, path in logs:
            at = logged_at(path, closing)
            c.check(f"{name}: '{closing}' in its log", at is not None, "not yet")
            if at is not None:
                delays.setdefault(f"{name} log", at - pressed)
        if c.wanted("Chromium drops it"):
            tiles, listed = room.page.tile_count(), subject.socket_id in room.page.state()["peers"]
            c.check("Chromium drops it", not listed and tiles == page_tiles, f"listed {listed}, {tiles} tiles")
            if not listed and tiles == page_tiles:
                delays["Chromium"] = now

    until_met(f"everyone drops {subject.key}", LEAVE_DEADLINE + 3, observe, interval=0.1)
    assert join.wait_exit() == 0, "l y must exit with status 0"
    assert join.tmux.modes_restored(), "the terminal modes must be restored"
    late = {k: round(v, 3) for k, v in delays.items() if v > LEAVE_DEADLINE}
    assert not late, f"dropped later than {LEAVE_DEADLINE} s after y: {late} (all: {delays})"
    print(f"{subject.key} left; dropped after: " + ", ".join(f"{k} {v:.2f} s" for k, v in delays.items()))
    return delays


# --------------------------------------------------------------------------------------------------------------

def test_five_participants_see_and_hear_each_other_and_follow_mute_camera_and_leave(room_of, tmp_path):
    started = time.monotonic()
    with conftui_serve(tmp_path) as server:
        room = room_of(server, "five")
        with evidence_on_failure(room):
            ada = room.start_join("Ada", 440)
            room.start_bot("Bea", 560)
            room.start_bot("Cyd", 660)
            room.start_aiortc()
            room.start_page()
            joined = time.monotonic() - started
            everyone_receives_everyone(room)
            media = time.monotonic() - started
            # Names travel through `conftui serve`: each screen labels the others by name, and aiortc and the page
            # (which send none) by their short socketIds.
            labels = ["Ada (you)"] + [s.key if s.kind == "card" else s.socket_id[:8] for s in room.others("Ada")]
            ada.wait_screen(lambda sc: all(label in sc for label in labels) and "4 peers" in sc, 5,
                            f"Ada's screen labels {labels}")
            names = room.aiortc.report()["names"]
            assert names.get(room.sender("Cyd").socket_id) == "Cyd", names

            subject = room.sender("Ada")
            marks = [("media", media)]
            mute_and_check(room, subject)
            marks.append(("m, m", time.monotonic() - started))
            switch_camera_and_check(room, subject)
            marks.append(("c", time.monotonic() - started))
            leave_and_check(room, subject)
            marks.append(("l y", time.monotonic() - started))

            # The bot's final report: Ada closed; her card seen, then frames without it (after c).
            report = room.bots["Cyd"].stop()
            ada_seen = report["peers"][subject.socket_id]
            assert "closed" in [change["state"] for change in ada_seen["timeline"]], ada_seen["timeline"]
            assert ada_seen["video"]["testCard"]["participant"] == subject.participant
            assert ada_seen["video"]["framesDecoded"] >= ada_seen["video"]["testCard"]["count"] + MIN_FRAMES
    total = time.monotonic() - started
    print(f"five-party room: all joined after {joined:.1f} s; checked at " + ", ".join(f"{k} {v:.1f} s" for k, v in marks)
          + f"; done in {total:.1f} s")


@pytest.mark.parametrize("server_kind", ["conftui-compat-original", "reference-server"])
def test_the_room_through_a_server_that_behaves_like_the_original(room_of, tmp_path, server_kind):
    started = time.monotonic()
    server_context = (conftui_serve(tmp_path, "--compat", "original") if server_kind == "conftui-compat-original"
                      else reference_server(tmp_path))
    with server_context as server:
        room = room_of(server, None)   # no --room, no fragment: the original's "__default" room
        with evidence_on_failure(room):
            ada = room.start_join("Ada", 440)
            room.start_bot("Cyd", 660)
            room.start_aiortc()
            room.start_page()
            everyone_receives_everyone(room)
            report = room.aiortc.report()
            # What makes this the original's wire: no names anywhere, candidates with label and candidate only.
            assert report["names"] == {}, report["names"]
            for s in room.others("aiortc"):
                candidates = report["peers"][s.socket_id]["candidates"]
                assert candidates, f"no candidate trickled from {s.key}"
                assert all(set(c) == {"label", "candidate", "socketId"} for c in candidates), candidates[:3]
            assert read_report(ada.report_path)["room"] == "__default"
            # Without names the tiles show short socketIds (Ada's own tile still says "Ada (you)": her own name).
            ids = [s.socket_id[:8] for s in room.others("Ada")]
            screen = ada.wait_screen(lambda sc: all(i in sc for i in ids) and "3 peers" in sc, 5,
                                     f"Ada's screen labels the tiles {ids}")
            assert "Cyd" not in screen, "the original server passes no names"
            leave_and_check(room, room.sender("Ada"))
            final = room.bots["Cyd"].stop()
            assert "closed" in [c["state"] for c in final["peers"][room.sender("Ada").socket_id]["timeline"]]
    print(f"{server_kind}: done in {time.monotonic() - started:.1f} s")
