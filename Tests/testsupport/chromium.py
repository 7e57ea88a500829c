"""Headless Debian Chromium driven over the Chrome DevTools Protocol, kept off the network.

`Chromium()` starts one browser process (and its helpers) in a fresh process group with a throw-away profile,
reads the DevTools endpoint from the profile's `DevToolsActivePort` file, and talks CDP over one WebSocket
(flattened target sessions). `new_page(url)` opens a tab whose console messages, exceptions and browser log
entries are collected in `Page.console`. `close()` (also on `with` exit) kills the browser's whole process group
and deletes the profile.

The flags follow docs/webrtc-interop.md "Testing against real peers on one machine": fake camera and microphone
with the permission prompt auto-accepted (without the permission Chromium gathers no loopback candidate),
loopback candidates allowed, host addresses not hidden behind mDNS names, audio playing without a gesture but
muted, and every name resolution and proxy pointed nowhere except 127.0.0.1.
"""

from __future__ import annotations

import base64
import concurrent.futures
import itertools
import json
import os
import pathlib
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from typing import Any, Callable

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

CHROMIUM_BINARY = os.environ.get("CHROMIUM", "/usr/bin/chromium")

OFFLINE_WEBRTC_FLAGS = (
    "--headless=new",
    "--use-fake-device-for-media-stream",
    "--use-fake-ui-for-media-stream",
    "--allow-loopback-in-peer-connection",
    "--disable-features=WebRtcHideLocalIpsWithMdns",
    "--autoplay-policy=no-user-gesture-required",
    "--mute-audio",
    "--disable-background-networking",
    "--proxy-server=http://127.0.0.1:9",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-component-update",
    "--disable-sync",
    # Several tabs of one test must all run at full speed: none of them is "in the background".
    "--disable-background-timer-throttling",
    "--disable-renderer-backgrounding",
    "--disable-backgrounding-occluded-windows",
    "--disable-gpu",
    # Root cannot use Chromium's sandbox; the tests only ever load our own page from 127.0.0.1.
    "--no-sandbox",
    "--remote-debugging-port=0",
)


class CDPError(RuntimeError):
    """A DevTools command failed, timed out, or the page threw."""


class CDPConnection:
    """One DevTools WebSocket: numbered commands with replies, and events handed to listeners."""

    def __init__(self, url: str, timeout: float = 10.0, sock=None) -> None:
        self._ws = connect(url, max_size=None, open_timeout=timeout, ping_interval=None, close_timeout=2, legacy=True,
                           sock=sock)
        self._ids = itertools.count(1)
        self._pending: dict[int, concurrent.futures.Future] = {}
        self._lock = threading.Lock()
        self._listeners: list[Callable[[str, dict, str | None], None]] = []
        self._closed = False
        self._reader = threading.Thread(target=self._read, name="cdp-reader", daemon=True)
        self._reader.start()

    def add_listener(self, listener: Callable[[str, dict, str | None], None]) -> None:
        self._listeners.append(listener)

    def call(self, method: str, params: dict | None = None, session_id: str | None = None,
             timeout: float = 15.0) -> dict:
        message: dict[str, Any] = {"id": next(self._ids), "method": method, "params": params or {}}
        if session_id is not None:
            message["sessionId"] = session_id
        future: concurrent.futures.Future = concurrent.futures.Future()
        with self._lock:
            if self._closed:
                raise CDPError(f"{method}: DevTools connection is closed")
            self._pending[message["id"]] = future
        self._ws.send(json.dumps(message))
        try:
            reply = future.result(timeout)
        except concurrent.futures.TimeoutError:
            raise CDPError(f"{method}: no reply within {timeout} s") from None
        finally:
            with self._lock:
                self._pending.pop(message["id"], None)
        if "error" in reply:
            raise CDPError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def close(self) -> None:
        self._ws.close()
        self._reader.join(timeout=5)

    def _read(self) -> None:
        try:
            for raw in self._ws:
                message = json.loads(raw)
                if "id" in message:
                    with self._lock:
                        future = self._pending.get(message["id"])
                    if future is not None:
                        future.set_result(message)
                else:
                    for listener in list(self._listeners):
                        listener(message.get("method", ""), message.get("params", {}), message.get("sessionId"))
        except ConnectionClosed:
            pass
        finally:
            with self._lock:
                self._closed = True
                pending = list(self._pending.values())
            for future in pending:
                if not future.done():
                    future.set_exception(CDPError("DevTools connection closed"))


def _describe_remote_object(value: dict) -> str:
    if "value" in value:
        return value["value"] if isinstance(value["value"], str) else json.dumps(value["value"])
    return str(value.get("description", value.get("type", "?")))


class Page:
    """One tab, attached through a flattened session."""

    def __init__(self, connection: CDPConnection, target_id: str, session_id: str, name: str) -> None:
        self._connection = connection
        self.target_id = target_id
        self.session_id = session_id
        self.name = name
        self.console: list[str] = []
        self.requests: list[str] = []   # every URL the page asked for (HTTP and WebSocket), in order
        connection.add_listener(self._on_event)

    def call(self, method: str, params: dict | None = None, timeout: float = 15.0) -> dict:
        return self._connection.call(method, params, self.session_id, timeout)

    def _on_event(self, method: str, params: dict, session_id: str | None) -> None:
        if session_id != self.session_id:
            return
        stamp = time.strftime("%H:%M:%S")
        if method == "Network.requestWillBeSent":
            self.requests.append(params.get("request", {}).get("url", ""))
        elif method == "Network.webSocketCreated":
            self.requests.append(params.get("url", ""))
        elif method == "Runtime.consoleAPICalled":
            text = " ".join(_describe_remote_object(arg) for arg in params.get("args", []))
            self.console.append(f"{stamp} console.{params.get('type')}: {text}")
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            description = details.get("exception", {}).get("description") or details.get("text", "")
            self.console.append(f"{stamp} exception: {description}")
        elif method == "Log.entryAdded":
            entry = params.get("entry", {})
            self.console.append(f"{stamp} log.{entry.get('level')}: {entry.get('text')} {entry.get('url', '')}".rstrip())

    def evaluate(self, expression: str, timeout: float = 15.0) -> Any:
        """The JSON value of `expression` (awaited if it is a promise); raises CDPError if it throws."""
        result = self.call("Runtime.evaluate", {
            "expression": expression, "awaitPromise": True, "returnByValue": True,
        }, timeout=timeout)
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            description = details.get("exception", {}).get("description") or details.get("text", "")
            raise CDPError(f"{self.name}: {expression[:60]!r} threw {description}")
        return result.get("result", {}).get("value")

    def navigate(self, url: str, ready_expression: str = "document.readyState === 'complete'",
                 timeout: float = 15.0) -> None:
        """Loads `url` and waits until `ready_expression` is true in the page."""
        reply = self.call("Page.navigate", {"url": url})
        if reply.get("errorText"):
            raise CDPError(f"{self.name}: navigating to {url} failed: {reply['errorText']}")
        deadline = time.monotonic() + timeout
        while True:
            try:
                if self.evaluate(ready_expression, timeout=5):
                    return
            except CDPError:
                pass  # the old document may be going away mid-evaluation
            if time.monotonic() > deadline:
                raise CDPError(f"{self.name}: {url} not ready ({ready_expression}) within {timeout} s")
            time.sleep(0.1)

    def set_viewport(self, width: int, height: int) -> None:
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    def screenshot(self, path: pathlib.Path | str) -> pathlib.Path:
        data = self.call("Page.captureScreenshot", {"format": "png"})["data"]
        path = pathlib.Path(path)
        path.write_bytes(base64.b64decode(data))
        return path


class Chromium:
    """A headless Chromium process with its own profile; use as a context manager."""

    def __init__(self, extra_flags: tuple[str, ...] = (), omit_flags: tuple[str, ...] = (),
                 startup_timeout: float = 20.0, netns: str | None = None) -> None:
        """`netns`: run inside that network namespace (testsupport.netns), whose own emptiness keeps the browser off
        the network, so the proxy and resolver rules that do it on the host are left out (they would also send
        the namespace's own addresses to the dead proxy)."""
        self.netns = netns
        if netns:
            omit_flags = (*omit_flags, "--proxy-server=http://127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1")
        if not os.access(CHROMIUM_BINARY, os.X_OK):
            raise FileNotFoundError(f"{CHROMIUM_BINARY} not found (Debian package chromium; `make deps`)")
        self.profile = pathlib.Path(tempfile.mkdtemp(prefix="conftui-chromium-"))
        self.log_path = self.profile / "chromium-output.log"
        self._pages: list[Page] = []
        self.connection: CDPConnection | None = None
        flags = [flag for flag in OFFLINE_WEBRTC_FLAGS if flag not in omit_flags]
        log_file = open(self.log_path, "wb")
        try:
            self.process = subprocess.Popen(
                [*(["ip", "netns", "exec", netns] if netns else []), CHROMIUM_BINARY, f"--user-data-dir={self.profile}",
                 *flags, *extra_flags, "about:blank"],
                stdin=subprocess.DEVNULL, stdout=log_file, stderr=subprocess.STDOUT,
                start_new_session=True)  # its own process group, so close() can reap the helpers too
        finally:
            log_file.close()
        try:
            url = self._devtools_url(startup_timeout)
            sock = None
            if netns:
                from testsupport.netns import connect_in
                sock = connect_in(netns, "127.0.0.1", int(url.split(":")[2].split("/")[0]))
            self.connection = CDPConnection(url, sock=sock)
        except BaseException:
            self.close()
            raise

    def _devtools_url(self, timeout: float) -> str:
        port_file = self.profile / "DevToolsActivePort"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise CDPError(f"chromium exited with status {self.process.returncode}: {self.output_tail()}")
            try:
                lines = port_file.read_text().split("\n")
                if len(lines) >= 2 and lines[0].strip().isdigit() and lines[1].strip():
                    return f"ws://127.0.0.1:{int(lines[0])}{lines[1].strip()}"
            except FileNotFoundError:
                pass
            time.sleep(0.05)
        raise CDPError(f"chromium wrote no DevToolsActivePort within {timeout} s: {self.output_tail()}")

    def output_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def describe(self) -> str:
        """Its evidence for a failure message: the browser's own output."""
        return f"\n===== chromium output =====\n{self.output_tail()}"

    def new_page(self, url: str | None = None, name: str | None = None,
                 ready_expression: str = "document.readyState === 'complete'") -> Page:
        assert self.connection is not None
        target_id = self.connection.call("Target.createTarget", {"url": "about:blank", "newWindow": True})["targetId"]
        session_id = self.connection.call("Target.attachToTarget", {"targetId": target_id, "flatten": True})["sessionId"]
        page = Page(self.connection, target_id, session_id, name or f"page{len(self._pages) + 1}")
        self._pages.append(page)
        for domain in ("Runtime", "Log", "Page", "Network"):
            page.call(f"{domain}.enable")
        if url is not None:
            page.navigate(url, ready_expression)
        return page

    def close(self) -> None:
        """Ends the browser at once: the profile is thrown away, so there is nothing to shut down gracefully
        (Browser.close costs about half a second more per browser)."""
        if self.connection is not None:
            self.connection.close()
            self.connection = None
        # Chromium's helpers (zygote, renderers, GPU, network service) share the process group created for it.
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> "Chromium":
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
