#!/usr/bin/env python3
"""Time from offer to connected on loopback: conftui↔conftui, conftui↔aiortc (both directions), aiortc↔aiortc.

All pairs meet through one `conftui serve` on 127.0.0.1 in the same run. The figure is the offerer's: from the
moment it starts creating its offer to its connection state `connected` (ICE connected and DTLS/SRTP up). For
`conftui bot` that is `timeToConnected` in its report (its peer connection is created right before the offer);
for aiortc it is measured around `createOffer()` and `connectionstatechange`. Media starts flowing right after.

Usage: connect_time.py [CONFTUI_BIN] [--runs N]   (binary from argv or $CONFTUI_BIN). Loopback only.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import pathlib
import statistics
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))   # Tests/, for testsupport

from testsupport.aiortc_peer import AiortcPeer, loopback_host_addresses  # noqa: E402
from testsupport.bot import BotProcess  # noqa: E402
from testsupport.serve import ServerProcess, conftui_serve_command  # noqa: E402


async def wait_for(condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        await asyncio.sleep(0.01)


async def bot_offer_time(ws: str, room: str, tmp: pathlib.Path, first) -> float:
    """`first` (a coroutine factory) puts the answerer in the room; then the bot joins and offers."""
    answerer = await first()
    bot = BotProcess(ws, room, "offerer", tmp)
    try:
        await asyncio.to_thread(bot.wait_joined)
        await asyncio.sleep(1.5)
        report = await asyncio.to_thread(bot.stop)
    finally:
        bot.kill()
        await answerer.close()
    (peer,) = report["peers"].values()
    if peer.get("timeToConnected") is None:
        raise RuntimeError(f"bot did not connect: {peer['timeline']}")
    return peer["timeToConnected"]


async def aiortc_offer_time(ws: str, room: str, first) -> float:
    answerer = await first()
    offerer = AiortcPeer(ws, room)
    stop = asyncio.Event()
    task = asyncio.ensure_future(offerer.run(stop))
    try:
        await wait_for(lambda: offerer.seen and offerer.remote().connected_after is not None, 15,
                       "aiortc offerer connects")
        return offerer.remote().connected_after
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)
        await answerer.close()


class BotInRoom:
    def __init__(self, ws: str, room: str, tmp: pathlib.Path) -> None:
        self.bot = BotProcess(ws, room, "answerer", tmp)

    async def start(self) -> "BotInRoom":
        await asyncio.to_thread(self.bot.wait_joined)
        return self

    async def close(self) -> None:
        self.bot.kill()


class AiortcInRoom:
    def __init__(self, ws: str, room: str) -> None:
        self.peer = AiortcPeer(ws, room)
        self.stop = asyncio.Event()

    async def start(self) -> "AiortcInRoom":
        self.task = asyncio.ensure_future(self.peer.run(self.stop))
        await wait_for(lambda: self.peer.you is not None, 10, "aiortc joins")
        return self

    async def close(self) -> None:
        self.stop.set()
        await asyncio.wait_for(self.task, 10)


async def measure(ws: str, runs: int, tmp: pathlib.Path) -> dict[str, list[float]]:
    results: dict[str, list[float]] = {"conftui → conftui": [], "conftui → aiortc": [], "aiortc → conftui": [],
                                       "aiortc → aiortc": []}
    for i in range(runs):
        results["conftui → conftui"].append(
            await bot_offer_time(ws, f"cc{i}", tmp, lambda: BotInRoom(ws, f"cc{i}", tmp).start()))
        results["conftui → aiortc"].append(
            await bot_offer_time(ws, f"ca{i}", tmp, lambda: AiortcInRoom(ws, f"ca{i}").start()))
        results["aiortc → conftui"].append(
            await aiortc_offer_time(ws, f"ac{i}", lambda: BotInRoom(ws, f"ac{i}", tmp).start()))
        results["aiortc → aiortc"].append(
            await aiortc_offer_time(ws, f"aa{i}", lambda: AiortcInRoom(ws, f"aa{i}").start()))
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary", nargs="?", default=os.environ.get("CONFTUI_BIN", ""))
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if not args.binary:
        sys.exit("give the conftui binary (argument or $CONFTUI_BIN)")
    os.environ["CONFTUI_BIN"] = args.binary
    import aioice.ice
    aioice.ice.get_host_addresses = loopback_host_addresses   # loopback only, like the tests
    with tempfile.TemporaryDirectory(prefix="conftui-connect-") as tmp:
        server = ServerProcess(conftui_serve_command(binary=args.binary), "conftui serve",
                               pathlib.Path(tmp) / "serve.log").start()
        try:
            results = asyncio.run(asyncio.wait_for(measure(server.ws_url, args.runs, pathlib.Path(tmp)), 240))
        finally:
            server.stop()
    print(f"\ntime from offer to connected on loopback (offerer's view, {args.runs} runs each, one conftui serve)")
    print(f"{'offerer → answerer':<22}{'median ms':>11}{'min ms':>9}{'max ms':>9}")
    for pair, values in results.items():
        ms = [v * 1000 for v in values]
        print(f"{pair:<22}{statistics.median(ms):>11.1f}{min(ms):>9.1f}{max(ms):>9.1f}")


if __name__ == "__main__":
    main()
