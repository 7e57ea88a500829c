"""The page against a scripted signaling server: what it sends, and that server-supplied text stays text.

A tiny server (the reference server's page responder plus a WebSocket handler that plays a script after
`__join`) lets the test choose exactly what the page receives, including hostile ids and `_error` messages, and
record exactly what the page sends: the offer must carry one audio and one video m-line, both sendrecv, then the
chat channel's application line in the RFC 8841 form conftui accepts (`UDP/DTLS/SCTP webrtc-datachannel`,
`a=sctp-port:5000`, `a=max-message-size`), and candidates must carry `label` (integer), `id` (string) and
`candidate`.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time

from websockets.asyncio.server import ServerConnection, serve

from skyrtc_reference_server import make_page_responder
from testsupport.chromium import Chromium
from testsupport.pages import PAGE_READY

HOSTILE_ID = '<img src=x onerror="window.pwned=1">'
HOSTILE_ME = "<b id=bold>me</b>"
HOSTILE_ERROR = '<img src=y onerror="window.pwned=2"> room is full'


class ScriptedServer:
    """Serves the page over HTTP; on each `__join`, sends `script`; records every message it receives."""

    def __init__(self, script: list[dict]) -> None:
        self.script = script
        self.received: list[dict] = []
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self.port = 0
        self._thread = threading.Thread(target=lambda: asyncio.run(self._main()), daemon=True)

    async def _handle(self, connection: ServerConnection) -> None:
        async for raw in connection:
            message = json.loads(raw)
            self.received.append(message)
            if message.get("eventName") == "__join":
                for reply in self.script:
                    await connection.send(json.dumps(reply))

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        # A short open_timeout: browsers' idle preconnected sockets would otherwise hold up the exit.
        async with serve(self._handle, "127.0.0.1", 0, process_request=make_page_responder(None),
                         close_timeout=1, open_timeout=1) as server:
            self.port = next(iter(server.sockets)).getsockname()[1]
            self._ready.set()
            await self._stop.wait()

    def __enter__(self) -> "ScriptedServer":
        self._thread.start()
        assert self._ready.wait(10), "scripted server did not start"
        return self

    def __exit__(self, *_exc: object) -> None:
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)

    def sent(self, event_name: str) -> list[dict]:
        return [m["data"] for m in list(self.received) if m.get("eventName") == event_name]


def wait_for(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)
    return value


def test_page_offers_one_audio_and_one_video_line_and_shows_server_text_as_text(chromium: Chromium):
    script = [
        # The original server can list a ghost twice (rejoin on one socket); the page offers once per id.
        {"eventName": "_peers", "data": {"connections": [HOSTILE_ID, HOSTILE_ID, HOSTILE_ME], "you": HOSTILE_ME}},
        {"eventName": "_error", "data": {"code": 409, "message": HOSTILE_ERROR}},
    ]
    with ScriptedServer(script) as server:
        page = chromium.new_page(f"http://127.0.0.1:{server.port}/#r%20one", "scripted", PAGE_READY)
        try:
            wait_for(lambda: server.sent("__offer"), 10, "the page's offer")
            wait_for(lambda: server.sent("__ice_candidate"), 10, "the page's candidates")
            assert server.sent("__join") == [{"room": "r one"}]   # the fragment, percent-decoded
            time.sleep(0.3)   # room for a duplicate offer to show up, had there been one

            (offer,) = server.sent("__offer")
            assert offer["socketId"] == HOSTILE_ID and offer["sdp"]["type"] == "offer"
            sections = offer["sdp"]["sdp"].split("\r\nm=")[1:]
            # Audio and video, then the data channel the offerer makes for chat and files (SkyRTC's).
            assert [section.split(" ")[0] for section in sections] == ["audio", "video", "application"]
            assert all("\r\na=sendrecv" in section for section in sections[:2]), sections
            data_lines = sections[2].split("\r\n")
            assert data_lines[0].split(" ")[2:] == ["UDP/DTLS/SCTP", "webrtc-datachannel"], data_lines[0]
            assert "a=sctp-port:5000" in data_lines, sections[2]
            assert any(line.startswith("a=max-message-size:") for line in data_lines), sections[2]

            for candidate in server.sent("__ice_candidate"):
                assert candidate["socketId"] == HOSTILE_ID
                assert isinstance(candidate["label"], int) and isinstance(candidate["id"], str)
                assert candidate["candidate"].startswith("candidate:")

            # Server-supplied strings are shown as text, never parsed as HTML.
            wait_for(lambda: page.evaluate("document.getElementById('error').textContent"), 5, "the error line")
            assert page.evaluate("document.getElementById('error').textContent") == \
                "server error 409: " + HOSTILE_ERROR
            names = page.evaluate("[...document.querySelectorAll('.tile .name')].map(n => n.textContent)")
            assert names == ["you · " + HOSTILE_ME[:8], HOSTILE_ID[:8]]
            assert page.evaluate("window.pwned === undefined && !document.getElementById('bold')")
            assert page.evaluate("document.querySelectorAll('img').length") == 0
        except BaseException:
            print("console:\n  " + "\n  ".join(page.console))
            print("received by server:", json.dumps(server.received)[:4000])
            raise
