"""A real Janus (Debian's `janus` 1.1.2, its VideoRoom plugin and WebSocket transport) for a test, in a namespace of
the emulated internet (testsupport.netns):

    with emulated_internet() as net, JanusServer(net, tmp_path) as janus:
        ...  # janus.url == "ws://100.64.0.1:8188/"; janus.print_logs() on failure

Why a namespace: Janus never gathers a loopback address (its ICE code skips every IFF_LOOPBACK interface before it
applies `ice_enforce_list`), so on 127.0.0.1 nobody can reach its media. In the public namespace it gathers the
bridge's 100.64.0.1 only (`ice_enforce_list` = the bridge), where every participant of that namespace, and every
site behind a router, can reach it.

Its configuration is `Tests/Janus/config/`, copied to the test's directory with the placeholders filled in (the
WebSocket address and port, the interface); nothing is read from /etc/janus. Its log (stdout, level 4, timestamps)
goes to `janus.log` in that directory.
"""

from __future__ import annotations

import json
import pathlib
import secrets
import shutil
import signal
import socket
import resource
import subprocess
import time

from testsupport.binaries import TESTS
from testsupport.processes import tail_lines

JANUS_BINARY = "/usr/bin/janus"
CONFIG_TEMPLATE = TESTS / "Janus" / "config"
SUBPROTOCOL = "janus-protocol"    # the WebSocket transport refuses an upgrade without it
BRIDGE = "br0"                    # the public namespace's bridge (testsupport.netns)
READY_TIMEOUT = 5.0


class JanusServer:
    """Janus in namespace `net.public`, on its bridge address; a context manager (stops it on exit).

    `url` is its WebSocket URL; `log_text()` its log so far; `describe()`/`print_logs()` the end of it, for a test's
    failure output. Refuses to start when something already listens on `port` in that namespace. `stop()` then
    `start()` restarts it (as an operator would), on the same address, the log going on."""

    def __init__(self, net, workdir: pathlib.Path, port: int = 8188) -> None:
        from testsupport.netns import PUBLIC_ADDRESS
        self.net, self.namespace, self.port = net, net.public, port
        self.address = PUBLIC_ADDRESS
        self.config_dir = pathlib.Path(workdir) / "janus-config"
        self.log_path = pathlib.Path(workdir) / "janus.log"
        self.command = [JANUS_BINARY, "-F", str(self.config_dir), "-C", str(self.config_dir / "janus.jcfg")]
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"ws://{self.address}:{self.port}/"

    def __enter__(self) -> JanusServer:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def _write_config(self) -> None:
        if self.config_dir.exists():
            shutil.rmtree(self.config_dir)
        shutil.copytree(CONFIG_TEMPLATE, self.config_dir)
        values = {"@CONFIG_DIR@": str(self.config_dir), "@WS_IP@": self.address, "@WS_PORT@": str(self.port),
                  "@INTERFACE@": BRIDGE, "@SERVER_NAME@": f"conftui-test-{self.namespace}"}
        for path in self.config_dir.glob("*.jcfg"):
            text = path.read_text()
            for placeholder, value in values.items():
                text = text.replace(placeholder, value)
            assert "@" not in "".join(l.split("#")[0] for l in text.splitlines()), f"unfilled placeholder in {path}"
            path.write_text(text)

    def _port_taken(self) -> bool:
        from testsupport.netns import in_namespace

        def try_bind() -> bool:
            with socket.socket() as s:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)   # TIME_WAIT leftovers are no owner
                try:
                    s.bind((self.address, self.port))
                except OSError:
                    return True
                return False
        return in_namespace(self.namespace, try_bind)

    def start(self) -> None:
        if self._port_taken():
            raise RuntimeError(f"something already listens on {self.address}:{self.port} in {self.namespace}: "
                               "refusing to start a second Janus there")
        self._write_config()
        # A restart (start after stop) adds to the first run's log.
        with open(self.log_path, "ab" if self.process is not None else "wb") as log:
            # No core file: Janus 1.1.2 can die of SIGFPE when stopped under a live data channel
            # (Tests/Janus/README.md), and its ~140 MB core would land in the working directory.
            self.process = self.net.popen(self.namespace, self.command, stdin=subprocess.DEVNULL, stdout=log,
                                          stderr=subprocess.STDOUT,
                                          preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_CORE, (0, 0)))
        deadline = time.monotonic() + READY_TIMEOUT
        last_error: Exception | None = None
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"janus exited with {self.process.returncode} before answering:\n"
                                   f"{tail_lines(self.log_path, 60)}")
            try:
                self.info()
                return
            except (OSError, ValueError) as error:
                last_error = error
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"janus answered no `info` request on {self.url} within {READY_TIMEOUT} s "
                                   f"({last_error}):\n{tail_lines(self.log_path, 60)}")
            time.sleep(0.05)

    def info(self, timeout: float = 1.0) -> dict:
        """Janus's answer to `{"janus":"info"}`, over a WebSocket made inside its namespace."""
        from websockets.sync.client import connect

        from testsupport.netns import connect_in
        sock = connect_in(self.namespace, self.address, self.port, timeout=timeout)
        transaction = secrets.token_hex(6)
        with connect(self.url, sock=sock, subprotocols=[SUBPROTOCOL], open_timeout=timeout,
                     close_timeout=timeout) as ws:
            ws.send(json.dumps({"janus": "info", "transaction": transaction}))
            answer = json.loads(ws.recv(timeout))
        if answer.get("janus") != "server_info" or answer.get("transaction") != transaction:
            raise ValueError(f"unexpected answer to info: {answer}")
        return answer

    def stop(self) -> int | None:
        """SIGTERM, then waits (Janus takes about 2 s to tear down); SIGKILL after 5 s."""
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        return self.process.returncode

    def kill(self) -> None:
        """For testsupport.evidence: stopped (gently) before its log is printed."""
        self.stop()

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def describe(self, lines: int = 150) -> str:
        status = None if self.process is None else self.process.poll()
        return (f"\n===== janus ({' '.join(self.command)} in {self.namespace}; exit status {status}) =====\n"
                f"{tail_lines(self.log_path, lines)}")

    def print_logs(self, lines: int = 150) -> None:
        print(self.describe(lines))
