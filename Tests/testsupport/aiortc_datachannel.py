"""SkyRTC's chat and files on an aiortc data channel, as the original browser client speaks them
(docs/chat-and-files.md): the tests' non-browser implementation of the sub-protocol, independent of conftui's.

`SkyRTCChannel(channel, peer_id, note, say=..., send_files=...)` wraps one `RTCDataChannel` (the one the offerer made
with `createDataChannel("undefined")`, or the one `on("datachannel")` handed the answerer). Once the channel is open
it sends every `say` text as `{"type":"__msg","data":TEXT}` and offers every `(name, bytes)` of `send_files` (`ask`);
it accepts every offer it gets (`accept`), assembles the offered file from its `chunk`s (the slices, joined, are the
file's base64 `data:` URL) and checks the size; on an `accept` it sends that file as the original does, its data URL
in `chunk`s (`last: false` with an integer `percent`, then `last: true`), paced by the channel's `bufferedAmount`,
each chunk `chunk_characters` of the data URL (by default conftui's own 64 KiB - 256; the tests also go up to the
peer's a=max-message-size). What arrived and what happened is recorded: `chat`, `files` (with the SHA-256 of the
bytes), `files_sent`, the channel's state changes (`states`, with the monotonic time).
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import hashlib
import json
import secrets
import time
from typing import Callable

CHUNK_CHARACTERS = 64 * 1024 - 256   # data URL characters a chunk: conftui's own choice for a 64 KiB message
BUFFER_HIGH = 1024 * 1024            # chunks wait while this much is queued on the channel...
BUFFER_LOW = 256 * 1024              # ... until it drains to this (bufferedAmountLowThreshold)
DATA_URL_PREFIX = "data:application/octet-stream;base64,"


@dataclasses.dataclass
class IncomingFile:
    send_id: str
    name: str
    size: int
    parts: list[str] = dataclasses.field(default_factory=list)
    chunks: int = 0
    state: str = "receiving"   # receiving, received, failed, refused
    sha256: str | None = None
    data: bytes | None = None
    reason: str | None = None

    def to_json(self) -> dict:
        return {"sendId": self.send_id, "name": self.name, "size": self.size, "chunks": self.chunks,
                "state": self.state, "sha256": self.sha256, "reason": self.reason}


@dataclasses.dataclass
class OutgoingFile:
    send_id: str
    name: str
    data: bytes
    state: str = "offered"   # offered, sending, sent, refused, failed
    chunks: int = 0
    reason: str | None = None

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    def to_json(self) -> dict:
        return {"sendId": self.send_id, "name": self.name, "size": len(self.data), "sha256": self.sha256,
                "state": self.state, "chunks": self.chunks, "reason": self.reason}


class SkyRTCChannel:
    def __init__(self, channel, peer_id: str, note: Callable[[str], None], say: list[str] = (),
                 send_files: list[tuple[str, bytes]] = (), chunk_characters: int = CHUNK_CHARACTERS) -> None:
        self.channel = channel
        self.peer_id = peer_id
        self.label = channel.label
        self._note = note
        self._say = list(say)
        self._send_files = list(send_files)
        self.chunk_characters = chunk_characters
        self.chat: list[str] = []
        self.said: list[str] = []
        self.files: list[IncomingFile] = []
        self.files_sent: list[OutgoingFile] = []
        self.dropped: list[str] = []
        self.states: list[tuple[str, float]] = [(channel.readyState, time.monotonic())]
        self._incoming: dict[str, IncomingFile] = {}
        self._outgoing: dict[str, OutgoingFile] = {}
        self._tasks: list[asyncio.Task] = []
        self._drained = asyncio.Event()
        self._started = False
        channel.bufferedAmountLowThreshold = BUFFER_LOW
        channel.on("open", self._on_open)
        channel.on("close", lambda: self._state("closed"))
        channel.on("message", self._on_message)
        channel.on("bufferedamountlow", self._drained.set)
        if channel.readyState == "open":   # the answerer's channel arrives open
            self._on_open()

    @property
    def ready_state(self) -> str:
        return self.channel.readyState

    def _state(self, state: str) -> None:
        self.states.append((state, time.monotonic()))
        self._note(f"{self.peer_id[:8]} channel {self.label!r} {state}")

    def _send(self, message: dict) -> None:
        self.channel.send(json.dumps(message, ensure_ascii=False, separators=(",", ":")))

    def _on_open(self) -> None:
        if self._started:
            return
        self._started = True
        if self.states[-1][0] != "open":
            self._state("open")
        for text in self._say:
            self._send({"type": "__msg", "data": text})
            self.said.append(text)
        for name, data in self._send_files:
            outgoing = OutgoingFile(secrets.token_hex(6).upper(), name, data)
            self._outgoing[outgoing.send_id] = outgoing
            self.files_sent.append(outgoing)
            self._send({"name": name, "size": len(data), "sendId": outgoing.send_id, "type": "__file",
                        "signal": "ask"})

    def _drop(self, why: str) -> None:
        self.dropped.append(why)
        self._note(f"{self.peer_id[:8]} dropped: {why}")

    def _on_message(self, raw) -> None:
        if not isinstance(raw, str):
            return self._drop(f"binary message of {len(raw)} bytes")
        try:
            message = json.loads(raw)
        except ValueError:
            return self._drop(f"not JSON: {raw[:80]!r}")
        if not isinstance(message, dict):
            return self._drop(f"not an object: {raw[:80]!r}")
        if message.get("type") != "__file":
            self.chat.append(message["data"] if isinstance(message.get("data"), str) else raw)
            return
        send_id, signal = message.get("sendId"), message.get("signal")
        if signal == "ask":
            incoming = IncomingFile(send_id, message["name"], message["size"])
            self._incoming[send_id] = incoming
            self.files.append(incoming)
            self._note(f"{self.peer_id[:8]} offers {incoming.name} ({incoming.size} bytes): accepted")
            self._send({"type": "__file", "signal": "accept", "sendId": send_id})
        elif signal == "chunk":
            incoming = self._incoming.get(send_id)
            if incoming is None or incoming.state != "receiving":
                return self._drop(f"chunk of unknown file {send_id}")
            incoming.parts.append(message["data"])
            incoming.chunks += 1
            if message.get("last") is True:
                self._finish_incoming(incoming)
        elif signal == "accept":
            outgoing = self._outgoing.get(send_id)
            if outgoing is None or outgoing.state != "offered":
                return self._drop(f"accept of unknown file {send_id}")
            outgoing.state = "sending"
            self._tasks.append(asyncio.ensure_future(self._stream(outgoing)))
        elif signal == "refuse":
            if send_id in self._outgoing:
                self._outgoing[send_id].state = "refused"
            elif send_id in self._incoming:
                self._incoming[send_id].state = "refused"
        else:
            self._drop(f"file signal {signal!r}")

    def _finish_incoming(self, incoming: IncomingFile) -> None:
        url = "".join(incoming.parts)
        incoming.parts = []
        header, comma, payload = url.partition(",")
        try:
            if not comma or not header.startswith("data:") or not header.endswith(";base64"):
                raise ValueError(f"not a base64 data URL: {url[:60]!r}")
            data = base64.b64decode(payload, validate=True)
            if len(data) != incoming.size:
                raise ValueError(f"{len(data)} bytes of {incoming.size}")
        except ValueError as error:
            incoming.state, incoming.reason = "failed", str(error)
            self._note(f"{self.peer_id[:8]} file {incoming.name} failed: {error}")
            return
        incoming.data, incoming.sha256, incoming.state = data, hashlib.sha256(data).hexdigest(), "received"
        self._note(f"{self.peer_id[:8]} file {incoming.name} received in {incoming.chunks} chunks, "
                   f"sha256 {incoming.sha256[:16]}")

    async def _stream(self, outgoing: OutgoingFile) -> None:
        url = DATA_URL_PREFIX + base64.b64encode(outgoing.data).decode("ascii")
        step = self.chunk_characters
        starts = range(0, len(url), step)
        try:
            for start in starts:
                while self.channel.bufferedAmount > BUFFER_HIGH:
                    self._drained.clear()
                    await asyncio.wait_for(self._drained.wait(), 30)
                if self.channel.readyState != "open" or outgoing.state != "sending":
                    outgoing.state = "failed" if outgoing.state == "sending" else outgoing.state
                    outgoing.reason = outgoing.reason or f"channel {self.channel.readyState}"
                    return
                piece = url[start:start + step]
                if start + step < len(url):
                    self._send({"type": "__file", "signal": "chunk", "sendId": outgoing.send_id, "last": False,
                                "data": piece, "percent": (start + len(piece)) * 100 // len(url)})
                else:
                    self._send({"type": "__file", "signal": "chunk", "sendId": outgoing.send_id, "data": piece,
                                "last": True})
                outgoing.chunks += 1
            outgoing.state = "sent"
            self._note(f"{self.peer_id[:8]} file {outgoing.name} sent in {outgoing.chunks} chunks")
        except Exception as error:   # recorded for the test's assertion and evidence
            outgoing.state, outgoing.reason = "failed", repr(error)
            self._note(f"{self.peer_id[:8]} sending {outgoing.name} failed: {error!r}")

    def cancel(self) -> None:
        for task in self._tasks:
            task.cancel()

    def to_json(self) -> dict:
        return {"peer": self.peer_id, "label": self.label, "readyState": self.ready_state,
                "states": [state for state, _ in self.states], "chat": self.chat, "said": self.said,
                "files": [f.to_json() for f in self.files], "filesSent": [f.to_json() for f in self.files_sent],
                "dropped": self.dropped[-20:]}
