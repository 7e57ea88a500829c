#!/usr/bin/env python3
"""A SkyRTC signaling server that behaves like the original Node one (LingyuCoder/SkyRTC v0.0.2, `SkyRTC.js`),
plus the demo's web server (`GET /` returns the page), on one port.

It exists so the browser page and the interop tests can run against "a server that behaves exactly like the
original SkyRTC server" (see docs/skyrtc-protocol.md sections 3 and 4), independently of
`conftui serve`. What it reproduces, on purpose, including the original's quirks:

- every WebSocket connection gets a lowercase UUID v4 id when it opens, before any join;
- WebSocket upgrades are accepted on any path; text and binary frames are both parsed as UTF-8 JSON; replies are
  always text frames; no pings are sent (the original never pings);
- `{"eventName": E, "data": D}` with a truthy E is dispatched; anything else (and unknown event names) is ignored;
- `__join`: a falsy `room` becomes `"__default"`; the room key is the JavaScript string of the value (so `100` and
  `"100"` are one room); `_new_peer{socketId}` goes to every other member in join order, then the joiner is
  appended and gets `_peers{connections, you}`. A second `__join` on one socket is *not* special-cased, exactly
  like the original: the socket is stored again and leaves a ghost behind when it closes;
- `__offer`, `__answer`, `__ice_candidate` are forwarded to the target id among *all* connected sockets (no room
  check) as `_offer{sdp, socketId}`, `_answer{sdp, socketId}`, `_ice_candidate{label, candidate, socketId}` with
  `socketId` rewritten to the sender's id; keys the sender did not send are omitted (JSON.stringify drops
  `undefined`); unknown targets are dropped silently. With `--patched` it forwards `id` (sdpMid) first, like the
  server copy in tuyaohui/WebRTC_iOS;
- on close, every other member of the socket's last room gets `_remove_peer{socketId}` in reverse join order,
  then one entry of the socket is removed from the room, and the room is deleted when empty.

The one deliberate difference: input that makes the original Node process throw (invalid JSON, `null`, a join
without `data`, ...) is logged and ignored here, unless `--die-on-bad-input` asks for the original's behaviour
(the process exits with status 1).

Usage: skyrtc_reference_server.py [--host 127.0.0.1] [--port 0] [--patched] [--die-on-bad-input]
Prints one line to stdout once listening, the same as `conftui serve`:
    conftui serve: listening on http://127.0.0.1:PORT/ (ws://127.0.0.1:PORT/)
Logs go to stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import http
import json
import logging
import math
import os
import pathlib
import signal
import sys
import uuid

from websockets.asyncio.server import ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from browser_page import load_browser_page  # noqa: E402

log = logging.getLogger("skyrtc-reference")


class BadInput(Exception):
    """A message that would throw inside the original server's `message` handler."""


def js_truthy(value: object) -> bool:
    """JavaScript truthiness of a JSON value (objects and arrays, even empty ones, are truthy)."""
    if value is None or value is False:
        return False
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value != 0 and not (isinstance(value, float) and math.isnan(value))
    if isinstance(value, str):
        return value != ""
    return True


def js_string(value: object) -> str:
    """`String(value)` for a JSON value, i.e. the key JavaScript uses when the value indexes an object."""
    if isinstance(value, str):
        return value
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e21:
            return str(int(value))
        return repr(value)
    if isinstance(value, list):
        return ",".join("" if item is None else js_string(item) for item in value)
    return "[object Object]"


def reject_non_json_constant(name: str) -> None:
    """Python's json accepts NaN and Infinity; JSON.parse (and so the original server) does not."""
    raise ValueError(f"{name} is not JSON")


class Socket:
    """One WebSocket connection, as the original decorates it (`socket.id`, `socket.room`)."""

    def __init__(self, connection: ServerConnection) -> None:
        self.connection = connection
        self.id = str(uuid.uuid4())
        self.room: str | None = None

    async def send(self, event_name: str, data: dict) -> None:
        # The original's errorCb only reports failed sends (ghost sockets); it never stops the server.
        text = json.dumps({"eventName": event_name, "data": data}, separators=(",", ":"), ensure_ascii=False)
        try:
            await self.connection.send(text)
        except ConnectionClosed:
            log.info("send %s to %s failed: not opened", event_name, self.id)


class SkyRTC:
    """The original's `SkyRTC` object: the socket list, the rooms and the four built-in handlers."""

    def __init__(self, patched: bool) -> None:
        self.patched = patched
        self.sockets: list[Socket] = []
        self.rooms: dict[str, list[Socket]] = {}

    def get_socket(self, socket_id: object) -> Socket | None:
        for candidate in reversed(self.sockets):  # the original scans from the end
            if candidate.id == socket_id:
                return candidate
        return None

    async def dispatch(self, socket: Socket, raw: str | bytes) -> None:
        text = raw.decode("utf-8", errors="replace") if isinstance(raw, (bytes, bytearray)) else raw
        try:
            message = json.loads(text, parse_constant=reject_non_json_constant)
        except ValueError as error:
            raise BadInput(f"not JSON: {error}") from None
        if message is None:
            raise BadInput("JSON null")
        event_name = message.get("eventName") if isinstance(message, dict) else None
        if not js_truthy(event_name):
            log.info("%s: message without eventName ignored", socket.id)
            return
        data = message.get("data")
        handler = {
            "__join": self.join,
            "__offer": self.forward_description,
            "__answer": self.forward_description,
            "__ice_candidate": self.forward_candidate,
        }.get(event_name) if isinstance(event_name, str) else None
        if handler is None:
            log.info("%s: no listener for %r", socket.id, event_name)
            return
        if data is None or not isinstance(data, dict):
            # Reading `data.room` / `data.socketId` of undefined or null throws in the original; on a string or a
            # number it reads `undefined` instead, which the handlers below reproduce with an empty object.
            if data is None:
                raise BadInput(f"{event_name} without data")
            data = {}
        await handler(socket, event_name, data)

    async def join(self, socket: Socket, _event: str, data: dict) -> None:
        room_value = data.get("room")
        room = js_string(room_value) if js_truthy(room_value) else "__default"
        log.info("%s joins room %r (%d sockets)", socket.id, room, len(self.sockets))
        members = self.rooms.setdefault(room, [])
        ids = []
        for member in list(members):
            if member.id == socket.id:
                continue
            ids.append(member.id)
            await member.send("_new_peer", {"socketId": socket.id})
        members.append(socket)
        socket.room = room
        await socket.send("_peers", {"connections": ids, "you": socket.id})

    async def forward_description(self, socket: Socket, event_name: str, data: dict) -> None:
        target = self.get_socket(data.get("socketId"))
        if target is None:
            log.info("%s: %s to unknown %r dropped", socket.id, event_name, data.get("socketId"))
            return
        forwarded = {}
        if "sdp" in data:
            forwarded["sdp"] = data["sdp"]
        forwarded["socketId"] = socket.id
        await target.send("_offer" if event_name == "__offer" else "_answer", forwarded)

    async def forward_candidate(self, socket: Socket, _event: str, data: dict) -> None:
        target = self.get_socket(data.get("socketId"))
        if target is None:
            log.info("%s: candidate to unknown %r dropped", socket.id, data.get("socketId"))
            return
        keys = ("id", "label", "candidate") if self.patched else ("label", "candidate")
        forwarded = {key: data[key] for key in keys if key in data}
        forwarded["socketId"] = socket.id
        await target.send("_ice_candidate", forwarded)

    async def close(self, socket: Socket) -> None:
        if socket.room is not None:
            for member in reversed(list(self.rooms.get(socket.room, []))):
                if member.id != socket.id:
                    await member.send("_remove_peer", {"socketId": socket.id})
        if socket in self.sockets:
            self.sockets.remove(socket)
        if socket.room is not None:
            members = self.rooms.get(socket.room, [])
            if socket in members:
                members.remove(socket)  # only the first entry, like indexOf + splice
            if not members:
                self.rooms.pop(socket.room, None)
        log.info("%s closed (%d sockets left)", socket.id, len(self.sockets))


def make_page_responder(page_source: pathlib.Path | None):
    """`process_request` hook: plain HTTP for requests that are not WebSocket upgrades (the demo's express app)."""

    def respond(_connection: ServerConnection, request: Request) -> Response | None:
        if "upgrade" in request.headers.get("Connection", "").lower():
            return None  # a WebSocket handshake, on any path
        path = request.path.split("?", 1)[0]
        if path in ("/", "/index.html"):
            # Read on every request so an edited page file shows on reload.
            body = load_browser_page(page_source) if page_source else load_browser_page()
            return Response(
                http.HTTPStatus.OK.value, "OK",
                Headers([("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store")]),
                body.encode("utf-8"))
        return Response(http.HTTPStatus.NOT_FOUND.value, "Not Found",
                        Headers([("Content-Type", "text/plain; charset=utf-8")]), b"not found\n")

    return respond


async def run(host: str, port: int, patched: bool, die_on_bad_input: bool, page_source: pathlib.Path | None) -> None:
    rtc = SkyRTC(patched)

    async def handle(connection: ServerConnection) -> None:
        socket = Socket(connection)
        rtc.sockets.append(socket)
        log.info("%s connected from %s", socket.id, connection.remote_address)
        try:
            async for raw in connection:
                try:
                    await rtc.dispatch(socket, raw)
                except BadInput as error:
                    if die_on_bad_input:
                        log.error("%s: %s: the original server would throw here; exiting", socket.id, error)
                        os._exit(1)
                    log.warning("%s: %s (ignored; the original server would crash)", socket.id, error)
        except ConnectionClosed:
            pass
        finally:
            await rtc.close(socket)

    stop = asyncio.get_running_loop().create_future()
    for signum in (signal.SIGINT, signal.SIGTERM):
        asyncio.get_running_loop().add_signal_handler(signum, lambda: stop.done() or stop.set_result(None))
    # open_timeout bounds shutdown too: browsers keep idle preconnected sockets that never send a request.
    async with serve(handle, host, port, process_request=make_page_responder(page_source),
                     ping_interval=None, max_size=100 * 2**20, close_timeout=2, open_timeout=2) as server:
        bound_port = next(iter(server.sockets)).getsockname()[1]
        print(f"conftui serve: listening on http://{host}:{bound_port}/ (ws://{host}:{bound_port}/)", flush=True)
        await stop


def main() -> None:
    parser = argparse.ArgumentParser(description="SkyRTC reference signaling server (original semantics)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--patched", action="store_true", help="forward the candidate's id (sdpMid), like tuyaohui's copy")
    parser.add_argument("--die-on-bad-input", action="store_true", help="exit like the original on input it throws on")
    parser.add_argument("--page", type=pathlib.Path, help="page.html to serve, with the .css and .js beside it that it names inlined "
                        "(default: this repository's Sources/Signaling/BrowserPage/page.html)")
    parser.add_argument("--verbose", action="store_true", help="log every event to stderr")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(asctime)s %(name)s %(message)s")
    log.setLevel(logging.INFO if args.verbose else logging.WARNING)
    asyncio.run(run(args.host, args.port, args.patched, args.die_on_bad_input, args.page))


if __name__ == "__main__":
    main()
