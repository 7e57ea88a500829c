"""Debian's coturn (`turnserver`) for a test: STUN on UDP 3478 and a TURN relay with one long-term credential,
listening on one address only (loopback or an emulated-network namespace), TLS only when asked (`tls_port`), no CLI, its own log in the
test's directory. It never reads /etc/turnserver.conf (`-n`)."""

from __future__ import annotations

import os
import pathlib
import socket
import subprocess
import time

from testsupport.processes import stop_process, tail_lines

TURN_BINARY = "/usr/bin/turnserver"
USER, PASSWORD, REALM = "conftui", "test-only-secret", "conftui.test"


class Coturn:
    def __init__(self, address: str, workdir: pathlib.Path, netns: str | None = None, port: int = 3478,
                 *extra: str, tls_port: int | None = None, cert: pathlib.Path | None = None,
                 key: pathlib.Path | None = None) -> None:
        """`tls_port` (with `cert` and `key`): also a TLS listener there, for `turns:`."""
        self.address, self.port, self.tls_port = address, port, tls_port
        tls = ["--tls-listening-port", str(tls_port), "--cert", str(cert), "--pkey", str(key), "--no-dtls"] \
            if tls_port else ["--no-tls", "--no-dtls"]
        self.log_path = workdir / "turnserver.log"
        self.command = [*(["ip", "netns", "exec", netns] if netns else []), TURN_BINARY, "-n",
                        "--listening-ip", address, "--relay-ip", address, "--listening-port", str(port),
                        "--no-cli", *tls, "--lt-cred-mech", "--user", f"{USER}:{PASSWORD}",
                        "--realm", REALM, "--log-file", str(self.log_path), "--simple-log", "--no-stdout-log",
                        "--pidfile", str(workdir / "turnserver.pid"), "--min-port", "49152", "--max-port", "49999",
                        *extra]
        self.netns = netns
        self.process = self._start()

    def _start(self) -> subprocess.Popen:
        """Starts turnserver and returns once it answers a STUN Binding request."""
        process = subprocess.Popen(self.command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.STDOUT)
        self.process = process
        # Ready when it answers a STUN Binding request (RFC 8489 §6: type 0x0001, the magic cookie, a transaction id).
        from testsupport.netns import udp_socket_in
        probe = udp_socket_in(self.netns) if self.netns else socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        probe.settimeout(0.2)
        request = bytes.fromhex("000100002112a442") + os.urandom(12)
        deadline = time.monotonic() + 10
        try:
            while True:
                if process.poll() is not None:
                    raise RuntimeError(f"turnserver exited with {process.returncode}:\n{tail_lines(self.log_path, 40)}")
                if time.monotonic() > deadline:
                    self.close()
                    raise RuntimeError(f"turnserver answered no STUN request in 10 s:\n{tail_lines(self.log_path, 40)}")
                probe.sendto(request, (self.address, self.port))
                try:
                    if probe.recv(200)[:2] == b"\x01\x01":
                        break
                except socket.timeout:
                    pass
        finally:
            probe.close()
        return process

    def restart(self) -> float:
        """Stops turnserver and starts it again on the same addresses, as an operator's restart does: every
        allocation is gone. Returns the monotonic time at which the old process was stopped."""
        stop_process(self.process, timeout=5)
        stopped = time.monotonic()
        self._start()
        return stopped

    @property
    def stun_uri(self) -> str:
        return f"stun:{self.address}:{self.port}"

    def turn_args(self, transport: str = "udp") -> list[str]:
        """The `--turn` options of a conftui command using this server (UDP, or TCP for networks without UDP, or
        "tls" for `turns:` on the TLS listener)."""
        uri = f"turns:{self.address}:{self.tls_port}?transport=tcp" if transport == "tls" \
            else f"turn:{self.address}:{self.port}?transport={transport}"
        return ["--turn", uri, "--turn-user", USER, "--turn-password", PASSWORD]

    def close(self) -> None:
        stop_process(self.process, timeout=5)

    def describe(self) -> str:
        return f"\n===== coturn ({' '.join(self.command)}) =====\n{tail_lines(self.log_path, 80)}"
