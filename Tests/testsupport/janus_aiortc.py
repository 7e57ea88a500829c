"""aiortc as a participant of a Janus VideoRoom (Janus 1.x, multistream), in a process of its own:

    python -m testsupport.janus_aiortc WS_URL --room 1234 --display NAME --participant N --report FILE --log FILE

(with Tests/ on the module path; `JanusParticipant` below starts it, in a namespace of the emulated internet).

What it does, as the API comment at the top of Janus's src/plugins/janus_videoroom.c describes:
- one WebSocket (subprotocol `janus-protocol`), `create` a session, a `keepalive` every 20 s (Janus drops a silent
  session after 60 s, media or not);
- `attach` the VideoRoom twice: a publisher handle and ONE subscriber handle for everybody else;
- `join` as publisher with a display name; if Janus answers 426 (no such room) it `create`s the room and joins again;
- `publish` an offer of a tone (Opus) and a test card (VP8, 320x240, `--fps`, participant number `--participant`),
  and applies Janus's answer;
- every other publisher (the `joined` list, later `publishers` events) goes onto the one subscriber handle: the first
  by `join` ptype subscriber with `streams: [{feed}]`, later ones by `subscribe`. Every offer that comes with
  `attached` or `updated` is answered with `start`; an empty `updating` (postponed) is only noted, since Janus may
  coalesce several requests into one later offer. The `streams` list of the latest `attached`/`updated` is the map
  from a section (mid) to a feed: Janus reuses freed mids;
- a feed that goes (`unpublished` or `leaving`) is `unsubscribe`d. After a clean `leave` the others get `leaving`
  and then, or not, an `updated` whose streams for that feed are `active: false` without a `feed_id`, with an offer
  that makes those sections `a=inactive`; the `unsubscribe` is answered `updated` with or without streams (Janus
  logs "Publisher ... not found, not unsubscribing"). Either way the feed is gone from the report's point of view;
- `talking`/`stopped-talking`, `webrtcup`, `media`, `slowlink`, `hangup` are noted.

Its JSON report (rewritten every 2 s, at once when it joins or its subscription changes, and at the end) holds its
own feed id and, per remote feed: display name, frames decoded, fps over the last 3 s, the last test card read
(participant, counter) and how many were read, audio frames, whether Janus says it is talking, when it left. Every
message Janus sent is in the log, whole.
On SIGTERM it `leave`s the room, `destroy`s the session, writes the final report and exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import logging
import os
import pathlib
import secrets
import signal
import subprocess
import sys
import time

from testsupport.binaries import TESTS
from testsupport.processes import stop_process, tail
from testsupport.reports import read_report, write_report

SUBPROTOCOL = "janus-protocol"
KEEPALIVE_PERIOD = 20.0      # Janus's session timeout is 60 s; its docs ask for one at least every 25-30 s
FPS_WINDOW = 3.0             # seconds of frames the reported fps is measured over
NO_SUCH_ROOM = 426
ROOM_EXISTS = 427


class JanusError(Exception):
    pass


class JanusConnection:
    """The Janus API over one WebSocket: requests matched to their answers by `transaction`; everything else
    (plugin events nobody waits for, core events) is put on `events`."""

    def __init__(self, url: str, note) -> None:
        self.url, self.note = url, note
        self.ws = None
        self.session_id: int | None = None
        self.pending: dict[str, tuple[asyncio.Future, bool]] = {}
        self.events: asyncio.Queue = asyncio.Queue()
        self._reader: asyncio.Task | None = None
        self.closed = asyncio.Event()

    async def open(self) -> None:
        from websockets.asyncio.client import connect
        self.ws = await connect(self.url, subprotocols=[SUBPROTOCOL], ping_interval=None, max_size=2 ** 22)
        self._reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                message = json.loads(raw)
                kind = message.get("janus")
                waiting = self.pending.get(message.get("transaction", ""))
                if not (kind == "ack" and message.get("transaction", "").startswith("ka-")):
                    self.note(f"<- {json.dumps(message)}")
                if waiting is not None and (kind != "ack" or waiting[1]):
                    del self.pending[message["transaction"]]
                    if not waiting[0].done():
                        waiting[0].set_result(message)
                elif kind != "ack":
                    await self.events.put(message)
        except Exception as error:   # the connection went: every waiter learns it
            self.note(f"websocket ended: {error!r}")
        finally:
            self.closed.set()
            for future, _ in self.pending.values():
                if not future.done():
                    future.set_exception(JanusError("websocket closed"))
            await self.events.put({"janus": "closed"})

    def _body(self, body: dict, handle: int | None, prefix: str = "") -> tuple[str, dict]:
        transaction = prefix + secrets.token_hex(6)
        body = dict(body, transaction=transaction)
        if self.session_id is not None and body["janus"] != "create":
            body["session_id"] = self.session_id
        if handle is not None:
            body["handle_id"] = handle
        return transaction, body

    async def request(self, body: dict, handle: int | None = None, timeout: float = 10.0, accept_ack: bool = False,
                      prefix: str = "") -> dict:
        """Sends `body` and returns its answer: `success`/`error` for core requests, the plugin's `event` (after
        Janus's `ack`) for asynchronous plugin messages; an `ack` only when `accept_ack` (keepalive)."""
        transaction, body = self._body(body, handle, prefix)
        future = asyncio.get_running_loop().create_future()
        self.pending[transaction] = (future, accept_ack)
        if not transaction.startswith("ka-"):
            self.note(f"-> {json.dumps(body)}")
        await self.ws.send(json.dumps(body))
        try:
            answer = await asyncio.wait_for(future, timeout)
        finally:
            self.pending.pop(transaction, None)
        if answer.get("janus") == "error":
            raise JanusError(f"{body.get('janus')}: {answer.get('error')}")
        return answer

    async def send(self, body: dict, handle: int | None = None) -> None:
        """Sends `body` without waiting: its answer arrives on `events` like any other."""
        _, body = self._body(body, handle)
        self.note(f"-> {json.dumps(body)}")
        await self.ws.send(json.dumps(body))

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            await asyncio.wait([self._reader], timeout=2)


def plugin_data(message: dict) -> dict:
    return (message.get("plugindata") or {}).get("data") or {}


class FeedSeen:
    """What arrived from one remote publisher (feed id)."""

    def __init__(self, feed: int, display: str | None) -> None:
        self.feed, self.display = feed, display
        self.frames = 0
        self.audio_frames = 0
        self.frame_times: collections.deque = collections.deque(maxlen=200)
        self.card: dict | None = None
        self.cards_read = 0
        self.card_participants: dict[int, int] = {}
        self.size = (0, 0)
        self.talking: bool | None = None
        self.left: str | None = None
        self.first_frame_at: float | None = None
        self.subscribed_at: float | None = None

    def add_video(self, frame) -> None:
        from testsupport.card_reader import read_test_card
        now = time.monotonic()
        self.frames += 1
        self.frame_times.append(now)
        if self.first_frame_at is None:
            self.first_frame_at = now
        self.size = (frame.width, frame.height)
        card = read_test_card(frame.to_ndarray(format="yuv420p")[:frame.height])
        if card is not None:
            self.card = card
            self.cards_read += 1
            self.card_participants[card["participant"]] = self.card_participants.get(card["participant"], 0) + 1

    def fps(self) -> float:
        now = time.monotonic()
        recent = [t for t in self.frame_times if t >= now - FPS_WINDOW]
        if len(recent) < 2 or recent[-1] - recent[0] < 1.0 or now - recent[-1] > 1.0:
            return 0.0
        return (len(recent) - 1) / (recent[-1] - recent[0])

    def to_json(self) -> dict:
        now = time.monotonic()
        return {"feed": self.feed, "display": self.display, "framesDecoded": self.frames, "fps": round(self.fps(), 2),
                "lastFrameAgo": None if not self.frame_times else round(now - self.frame_times[-1], 3),
                "firstFrameAfterSubscribe": None if self.first_frame_at is None or self.subscribed_at is None
                else round(self.first_frame_at - self.subscribed_at, 3),
                "size": list(self.size), "card": self.card, "cardsRead": self.cards_read,
                "cardParticipants": {str(k): v for k, v in self.card_participants.items()},
                "audioFrames": self.audio_frames, "talking": self.talking, "left": self.left}


class Participant:
    def __init__(self, url: str, room: int, display: str, participant: int, tone: float, fps: int, note) -> None:
        self.url, self.room, self.display, self.participant = url, room, display, participant
        self.tone, self.fps, self.note = tone, fps, note
        self.janus = JanusConnection(url, note)
        self.pub_handle: int | None = None
        self.sub_handle: int | None = None
        self.feed_id: int | None = None
        self.private_id: int | None = None
        self.created_room = False
        self.pub_pc = None
        self.sub_pc = None
        self.sub_state = "none"          # none -> joining -> joined
        self.pending_feeds: list[int] = []
        self.subscribed: set[int] = set()
        self.feeds: dict[int, FeedSeen] = {}
        self.mid_to_feed: dict[str, int] = {}
        self.streams: list[dict] = []
        self.offers_answered = 0
        self.postponed = 0
        self.core_events: list[str] = []
        self.errors: list[str] = []
        self.tasks: list[asyncio.Task] = []
        self.state = "starting"
        self.publisher_state = "new"
        self.subscriber_state = "new"
        self.changed = asyncio.Event()     # set when the report has news a test waits for (joined, a new feed)

    # --- the conversation ---------------------------------------------------------------------------------------
    async def run(self, stop: asyncio.Event) -> None:
        await self.janus.open()
        created = await self.janus.request({"janus": "create"})
        self.janus.session_id = created["data"]["id"]
        self.tasks.append(asyncio.ensure_future(self._keepalive()))
        attach = {"janus": "attach", "plugin": "janus.plugin.videoroom"}
        self.pub_handle = (await self.janus.request(attach))["data"]["id"]
        self.sub_handle = (await self.janus.request(attach))["data"]["id"]
        self.tasks.append(asyncio.ensure_future(self._events()))
        joined = await self._join()
        self.feed_id, self.private_id = joined["id"], joined.get("private_id")
        self.state = "joined"
        self.changed.set()
        await self._publish()
        self.state = "published"
        self.changed.set()
        await self._want(joined.get("publishers") or [])
        await stop.wait()

    async def _message(self, handle: int, body: dict, jsep: dict | None = None,
                       timeout: float = 10.0) -> tuple[dict, dict | None]:
        """A plugin request on `handle`: the plugin's data and the JSEP of its answer."""
        message = {"janus": "message", "body": body}
        if jsep is not None:
            message["jsep"] = jsep
        answer = await self.janus.request(message, handle, timeout)
        return plugin_data(answer), answer.get("jsep")

    async def _join(self) -> dict:
        body = {"request": "join", "ptype": "publisher", "room": self.room, "display": self.display}
        data, _ = await self._message(self.pub_handle, body)
        if data.get("error_code") == NO_SUCH_ROOM:
            created, _ = await self._message(self.pub_handle, {
                "request": "create", "room": self.room, "publishers": 16, "bitrate": 512000, "fir_freq": 10,
                "audiocodec": "opus", "videocodec": "vp8", "audiolevel_event": True})
            if created.get("videoroom") == "created":
                self.created_room = True
            elif created.get("error_code") != ROOM_EXISTS:   # someone else made it meanwhile: fine
                raise JanusError(f"create room {self.room}: {created}")
            data, _ = await self._message(self.pub_handle, body)
        if data.get("videoroom") != "joined":
            raise JanusError(f"join room {self.room}: {data}")
        return data

    def _new_pc(self, role: str):
        from aiortc import RTCBundlePolicy, RTCConfiguration, RTCPeerConnection
        pc = RTCPeerConnection(RTCConfiguration(iceServers=[], bundlePolicy=RTCBundlePolicy.MAX_BUNDLE))

        @pc.on("connectionstatechange")
        def _state() -> None:
            setattr(self, f"{role}_state", pc.connectionState)
            self.note(f"{role} connection {pc.connectionState}")
        return pc

    async def _publish(self) -> None:
        from aiortc import RTCSessionDescription

        from testsupport.aiortc_media import PacedTone, TestCardTrack
        self.pub_pc = pc = self._new_pc("publisher")
        pc.addTrack(PacedTone(self.tone))
        pc.addTrack(TestCardTrack(self.participant, fps=self.fps))
        await pc.setLocalDescription(await pc.createOffer())
        data, jsep = await self._message(self.pub_handle, {"request": "publish", "display": self.display},
                                         {"type": "offer", "sdp": pc.localDescription.sdp})
        if data.get("configured") != "ok" or not jsep:
            raise JanusError(f"publish: {data}")
        await pc.setRemoteDescription(RTCSessionDescription(jsep["sdp"], jsep["type"]))

    async def _want(self, publishers: list[dict]) -> None:
        """Subscribes the one subscriber handle to every publisher in `publishers` not yet subscribed."""
        new = []
        for publisher in publishers:
            feed = publisher["id"]
            if feed == self.feed_id:
                continue
            seen = self.feeds.setdefault(feed, FeedSeen(feed, publisher.get("display")))
            seen.display = publisher.get("display", seen.display)
            if feed not in self.subscribed and feed not in self.pending_feeds:
                new.append(feed)
        if not new:
            return
        if self.sub_state == "none":
            self.sub_state = "joining"
            self.subscribed.update(new)
            for feed in new:
                self.feeds[feed].subscribed_at = time.monotonic()
            body = {"request": "join", "ptype": "subscriber", "room": self.room,
                    "streams": [{"feed": feed} for feed in new]}
            if self.private_id is not None:
                body["private_id"] = self.private_id   # ties the subscription to our publisher (optional here)
            await self.janus.send({"janus": "message", "body": body}, self.sub_handle)
        elif self.sub_state == "joining":
            self.pending_feeds.extend(new)    # subscribed once `attached` is answered
        else:
            await self._subscribe(new)

    async def _subscribe(self, feeds: list[int]) -> None:
        self.subscribed.update(feeds)
        for feed in feeds:
            self.feeds[feed].subscribed_at = time.monotonic()
        await self.janus.send({"janus": "message", "body": {
            "request": "subscribe", "streams": [{"feed": feed} for feed in feeds]}}, self.sub_handle)

    async def _answer(self, jsep: dict) -> None:
        from aiortc import RTCSessionDescription
        if self.sub_pc is None:
            self.sub_pc = self._new_pc("subscriber")
            self.sub_pc.on("track", lambda track: self.tasks.append(asyncio.ensure_future(self._consume(track))))
        await self.sub_pc.setRemoteDescription(RTCSessionDescription(jsep["sdp"], jsep["type"]))
        await self.sub_pc.setLocalDescription(await self.sub_pc.createAnswer())
        await self.janus.send({"janus": "message", "body": {"request": "start"},
                               "jsep": {"type": "answer", "sdp": self.sub_pc.localDescription.sdp}}, self.sub_handle)
        self.offers_answered += 1

    async def _consume(self, track) -> None:
        from aiortc.mediastreams import MediaStreamError
        transceiver = next((t for t in self.sub_pc.getTransceivers() if t.receiver.track is track), None)
        self.note(f"track {track.kind} on mid {transceiver and transceiver.mid}")
        try:
            while True:
                frame = await track.recv()
                # The section's feed now, not when the track came: Janus reuses freed mids for later feeds.
                feed = self.mid_to_feed.get(transceiver.mid) if transceiver is not None else None
                seen = self.feeds.get(feed)
                if seen is None:
                    continue
                if track.kind == "video":
                    seen.add_video(frame)
                else:
                    seen.audio_frames += 1
        except MediaStreamError:
            pass

    async def _keepalive(self) -> None:
        while True:
            await asyncio.sleep(KEEPALIVE_PERIOD)
            try:
                await self.janus.request({"janus": "keepalive"}, accept_ack=True, timeout=5, prefix="ka-")
            except Exception as error:
                self.errors.append(f"keepalive: {error!r}")

    async def _events(self) -> None:
        while True:
            message = await self.janus.events.get()
            try:
                await self._event(message)
            except Exception as error:   # one bad event must not end the participant
                self.errors.append(f"{message.get('janus')}: {error!r}")
                self.note(f"handling {json.dumps(message)[:300]} failed: {error!r}")

    async def _event(self, message: dict) -> None:
        kind, sender = message.get("janus"), message.get("sender")
        role = "publisher" if sender == self.pub_handle else "subscriber" if sender == self.sub_handle else "?"
        if kind == "closed":
            self.state = "disconnected"
            return
        if kind in ("webrtcup", "media", "slowlink", "hangup", "detached", "timeout"):
            detail = {k: v for k, v in message.items() if k in ("type", "mid", "receiving", "uplink", "lost", "reason")}
            self.core_events = self.core_events[-49:] + [f"{role} {kind} {json.dumps(detail)}"]
            return
        if kind != "event":
            return
        data, jsep = plugin_data(message), message.get("jsep")
        event = data.get("videoroom")
        if "error_code" in data:
            self.errors.append(f"{role}: {data.get('error_code')} {data.get('error')}")
        if role == "subscriber":
            if event in ("attached", "updated"):
                if "streams" in data:
                    self.streams = data["streams"]
                    self.mid_to_feed = {s["mid"]: s["feed_id"] for s in self.streams
                                        if s.get("feed_id") is not None and s.get("active", True)}
                if jsep and jsep.get("type") == "offer":
                    await self._answer(jsep)
                self.changed.set()
                if event == "attached":
                    self.sub_state = "joined"
                    if self.pending_feeds:
                        feeds, self.pending_feeds = self.pending_feeds, []
                        await self._subscribe([f for f in feeds if self.feeds[f].left is None])
            elif event == "updating":
                self.postponed += 1
            elif "error_code" in data and self.sub_state == "joining":
                self.sub_state = "none"      # the join failed (the feed went meanwhile): the next publisher retries
                self.subscribed.clear()
            return
        if role == "publisher":
            if data.get("publishers"):
                await self._want(data["publishers"])
            for key in ("unpublished", "leaving"):
                feed = data.get(key)
                if isinstance(feed, int) and feed in self.feeds:
                    self.feeds[feed].left = self.feeds[feed].left or key
                    if feed in self.subscribed:
                        # After a clean `leave` Janus sends only `leaving`: no `updated` offer, and the feed's
                        # sections stay in the subscription. Unsubscribing frees them (their mids are reused later).
                        self.subscribed.discard(feed)
                        if self.sub_state == "joined":
                            await self.janus.send({"janus": "message", "body": {
                                "request": "unsubscribe", "streams": [{"feed": feed}]}}, self.sub_handle)
            if event in ("talking", "stopped-talking") and data.get("id") in self.feeds:
                self.feeds[data["id"]].talking = event == "talking"

    async def leave(self) -> None:
        """Leaves the room and destroys the session, as a well-behaved client does; each step bounded."""
        if self.janus.closed.is_set() or self.janus.session_id is None:
            return
        try:
            if self.pub_handle is not None and self.feed_id is not None:
                await self._message(self.pub_handle, {"request": "leave"}, timeout=2)
            await self.janus.request({"janus": "destroy"}, timeout=2)
        except Exception as error:
            self.errors.append(f"leave: {error!r}")

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        for pc in (self.pub_pc, self.sub_pc):
            if pc is not None:
                await pc.close()
        await self.janus.close()

    def to_json(self) -> dict:
        return {"you": self.feed_id, "privateId": self.private_id, "room": self.room, "display": self.display,
                "participant": self.participant, "state": self.state, "createdRoom": self.created_room,
                "publisherConnection": self.publisher_state, "subscriberConnection": self.subscriber_state,
                "feeds": {str(feed): seen.to_json() for feed, seen in self.feeds.items()},
                "streams": self.streams, "offersAnswered": self.offers_answered, "postponed": self.postponed,
                "coreEvents": self.core_events[-20:], "errors": self.errors[-20:]}


async def take_part(args) -> None:
    log = open(args.log, "a", buffering=1)

    def note(text: str) -> None:
        print(f"{time.strftime('%H:%M:%S')}.{int(time.time() * 1000) % 1000:03d} {text}", file=log)

    handler = logging.StreamHandler(log)
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    for name in ("aiortc", "aioice"):
        logging.getLogger(name).setLevel(logging.WARNING)
        logging.getLogger(name).addHandler(handler)
    stop = asyncio.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(signum, stop.set)
    participant = Participant(args.ws_url, args.room, args.display, args.participant, args.tone, args.fps, note)
    run = asyncio.ensure_future(participant.run(stop))
    stopped = asyncio.ensure_future(stop.wait())
    failure = None
    try:
        while not stop.is_set() and not run.done():
            participant.changed.clear()
            write_report(args.report, participant.to_json())
            # Every 2 s, and at once when it joins or its subscription changes (a test waits for those).
            changed = asyncio.ensure_future(participant.changed.wait())
            await asyncio.wait([run, stopped, changed], timeout=2.0, return_when=asyncio.FIRST_COMPLETED)
            changed.cancel()
        if run.done() and run.exception() is not None:
            failure = run.exception()
            note(f"failed: {failure!r}")
            participant.errors.append(f"failed: {failure!r}")
    finally:
        run.cancel()
        await participant.leave()
        final = participant.to_json()
        final["ended"] = True
        write_report(args.report, final)
        await participant.close()
        note("ended")
    if failure is not None:
        raise SystemExit(1)


class JanusParticipant:
    """`janus_aiortc` as a child process in namespace `ns` of `net` (testsupport.netns); `report()` is its latest
    JSON report, `wait_joined()` its feed id, `stop()` SIGTERM (it leaves and destroys its session first)."""

    def __init__(self, net, ns: str, url: str, room: int, display: str, participant: int, workdir: pathlib.Path,
                 tone: float = 440.0, fps: int = 15) -> None:
        self.display = display
        self.report_path = workdir / f"janus-aiortc-{display}.json"
        self.log_path = workdir / f"janus-aiortc-{display}.log"
        self.output_path = workdir / f"janus-aiortc-{display}.out"
        self.command = [sys.executable, "-m", "testsupport.janus_aiortc", url, "--room", str(room), "--display",
                        display, "--participant", str(participant), "--tone", str(tone), "--fps", str(fps),
                        "--report", str(self.report_path), "--log", str(self.log_path)]
        environment = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(TESTS),
                                                                               os.environ.get("PYTHONPATH")])))
        with open(self.output_path, "wb") as output:
            self.process = net.popen(ns, self.command, stdin=subprocess.DEVNULL, stdout=output,
                                     stderr=subprocess.STDOUT, env=environment, preexec_fn=_raise_priority)
        self.feed_id: int | None = None

    def report(self) -> dict | None:
        return read_report(self.report_path)

    def wait_joined(self, timeout: float = 15.0) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process.poll() is None, f"{self.display} exited\n{self.describe()}"
            report = self.report()
            if report and report.get("you") is not None:
                self.feed_id = report["you"]
                return self.feed_id
            time.sleep(0.05)
        raise AssertionError(f"{self.display} did not join within {timeout} s\n{self.describe()}")

    def stop(self) -> dict | None:
        stop_process(self.process, timeout=10)
        return self.report()

    def kill(self) -> None:
        """Stops it the gentle way (SIGTERM), so its final report is written."""
        self.stop()

    def describe(self) -> str:
        return (f"\n===== janus_aiortc {self.display} (feed {self.feed_id}; exit status {self.process.poll()}) =====\n"
                f"{' '.join(self.command)}\n----- report -----\n{json.dumps(self.report(), indent=1)[-6000:]}\n"
                f"----- output -----\n{tail(self.output_path, 4000)}\n----- log -----\n{tail(self.log_path, 12000)}")


def _raise_priority() -> None:
    """As aiortc_process does: one Python thread carries all of a participant's media, so it gets a larger share of
    a busy machine when it can (root: nice -10)."""
    try:
        os.nice(-10)
    except OSError:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description="aiortc as a participant of a Janus VideoRoom")
    parser.add_argument("ws_url")
    parser.add_argument("--room", type=int, default=1234)
    parser.add_argument("--display", required=True)
    parser.add_argument("--participant", type=int, default=1, help="the number on its test card (0-255)")
    parser.add_argument("--tone", type=float, default=440.0)
    parser.add_argument("--fps", type=int, default=15)
    parser.add_argument("--report", required=True)
    parser.add_argument("--log", required=True)
    asyncio.run(take_part(parser.parse_args()))


if __name__ == "__main__":
    main()
