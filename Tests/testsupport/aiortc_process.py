"""The aiortc peer (`aiortc_peer.AiortcPeer`) as a participant of its own, in its own process, so that a test
polling screens, pages and files never starves its media or ICE of the GIL. It writes what it saw as JSON every
0.5 s and at the end (SIGTERM, with getStats), the way `conftui bot --report` does:
    python -m testsupport.aiortc_process WS_URL --room ROOM --tone HZ --report FILE --log FILE
(with Tests/ on the module path). `AiortcProcess` starts it and reads that report. Its host candidates are pinned
to 127.0.0.1 (or `--host ADDRESS`, with `--advertise CANDIDATE` for candidates it signals beyond its own), and it sends its picture at 10 frames/s (it encodes it once per peer of a mesh).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import pathlib
import signal
import subprocess
import sys
import time

from testsupport.binaries import TESTS
from testsupport.processes import stop_process, tail
from testsupport.reports import read_report, write_report


async def take_part(ws_url: str, room: str, tone_hz: float, report: str, log_path: str, host: str = "127.0.0.1",
                    advertise: list[str] = ()) -> None:
    import aioice.ice

    from testsupport.aiortc_peer import AiortcPeer
    aioice.ice.get_host_addresses = lambda use_ipv4, use_ipv6: [host]
    stop = asyncio.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(signum, stop.set)
    peer = AiortcPeer(ws_url, room, tone_hz, fps=10, log_level=logging.WARNING, advertise=advertise)
    client = asyncio.ensure_future(peer.run(stop))
    try:
        while not stop.is_set() and not client.done():
            write_report(report, peer.to_json())
            with open(log_path, "w") as f:
                f.write(peer.log.getvalue())
            await asyncio.sleep(0.5)
        final = peer.to_json()
        final["stats"] = await peer.stats_text()
        write_report(report, final)
    finally:
        stop.set()
        await asyncio.wait_for(client, 10)
        with open(log_path, "w") as f:
            f.write(peer.log.getvalue())


class AiortcProcess:
    """The peer as a subprocess (see the module doc); `report()` is its latest JSON report."""

    def __init__(self, ws_url: str, room: str, tone_hz: float, tmp_path: pathlib.Path, netns: str | None = None,
                 host: str = "127.0.0.1", advertise: list[str] = ()) -> None:
        """`netns`: the namespace to run in, `host` its one host address there; `advertise`: candidates beyond its
        own that it signals (`AiortcPeer`)."""
        self.report_path = tmp_path / "aiortc.json"
        self.log_path = tmp_path / "aiortc.log"
        self.output_path = tmp_path / "aiortc.out"
        self.command = [*(["ip", "netns", "exec", netns] if netns else []),
                        sys.executable, "-m", "testsupport.aiortc_process", ws_url, "--room", room,
                        "--tone", str(tone_hz), "--report", str(self.report_path), "--log", str(self.log_path),
                        "--host", host, *(f"--advertise={c}" for c in advertise)]
        environment = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(TESTS),
                                                                               os.environ.get("PYTHONPATH")])))
        with open(self.output_path, "wb") as output:
            self.process = subprocess.Popen(self.command, stdin=subprocess.DEVNULL, stdout=output,
                                            stderr=subprocess.STDOUT, env=environment,
                                            preexec_fn=self._raise_priority)
        self.socket_id: str | None = None

    @staticmethod
    def _raise_priority() -> None:
        """Every other participant spreads its media work over threads in C (both cores); this one runs its event
        loop, RTP, SRTP and its codecs' glue in one Python thread, and needs about a third of a core for four peers.
        When the machine is busy (load 15 and more here, other test suites running) that thread falls seconds behind:
        its peers see ICE consent expire and stop sending, its video decoder then waits for a keyframe. So it gets a
        larger share of the CPU when it can (root: nice -10), as a browser gives its media threads real-time priority;
        it only takes what it needs, the participants under test keep the rest."""
        try:
            os.nice(-10)
        except OSError:
            pass

    def report(self) -> dict | None:
        return read_report(self.report_path)

    def wait_joined(self, timeout: float = 15.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process.poll() is None, f"the aiortc peer exited\n{self.describe()}"
            report = self.report()
            if report and report["you"]:
                self.socket_id = report["you"]
                return self.socket_id
            time.sleep(0.05)
        raise AssertionError(f"the aiortc peer did not join within {timeout} s\n{self.describe()}")

    def stop(self) -> dict | None:
        stop_process(self.process)
        return self.report()

    def kill(self) -> None:
        """Stops it the gentle way (SIGTERM): its final report carries getStats."""
        self.stop()

    def describe(self) -> str:
        report = self.report() or {}
        peers = "\n  ".join(json.dumps({k: v for k, v in p.items() if k != "candidates"})
                            for p in report.get("peers", {}).values())
        return (f"===== aiortc peer process ({self.socket_id}): {' '.join(self.command)} =====\n"
                f"exit status: {self.process.poll()}; names {report.get('names')}; joined with "
                f"{report.get('joinedWith')}\n  {peers}\n----- output -----\n{tail(self.output_path)}\n"
                f"----- log -----\n{tail(self.log_path)}\n----- getStats (at its end) -----\n"
                f"{str(report.get('stats', '(not stopped yet)'))[-12000:]}")


def main() -> None:
    parser = argparse.ArgumentParser(description="aiortc as one participant of a SkyRTC room")
    parser.add_argument("ws_url")
    parser.add_argument("--room", default="")
    parser.add_argument("--tone", type=float, default=880.0)
    parser.add_argument("--report", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--host", default="127.0.0.1", help="its one host address (default: loopback)")
    parser.add_argument("--advertise", action="append", default=[], help="a candidate to signal beyond its own")
    args = parser.parse_args()
    asyncio.run(take_part(args.ws_url, args.room, args.tone, args.report, args.log, args.host, args.advertise))


if __name__ == "__main__":
    main()
