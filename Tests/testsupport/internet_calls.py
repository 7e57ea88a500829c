"""Calls on the emulated internet (`netns.emulated_internet`): `conftui serve` and coturn in the public namespace,
bots behind the sites' routers. Shared by the network tests."""

from __future__ import annotations

import pathlib

from testsupport.binaries import conftui_bin
from testsupport.bot import BotProcess
from testsupport.coturn import Coturn
from testsupport.netns import PUBLIC_ADDRESS
from testsupport.serve import ServerProcess


def serve_in(net, workdir: pathlib.Path) -> ServerProcess:
    command = ("ip", "netns", "exec", net.public, conftui_bin(), "serve", "--port", "0", "--host", PUBLIC_ADDRESS)
    return ServerProcess(command, "conftui serve (public namespace)", workdir / "serve.log").start()


def started(evidence, net, workdir, *coturn_options: str):
    coturn = evidence.add(Coturn(PUBLIC_ADDRESS, workdir, net.public, 3478, *coturn_options), close=None)
    serve = serve_in(net, workdir)
    evidence.add(serve)
    return coturn, serve


def bot_in(evidence, site, serve, coturn, room, name, tone, workdir, duration=40.0, turn: str | None = None) -> BotProcess:
    relay = coturn.turn_args(turn) if turn else []
    bot = evidence.add(BotProcess(serve.ws_url, room, name, workdir, "--stun", coturn.stun_uri, "--tone", str(tone),
                                  *relay, duration=duration, host_candidates="all", netns=site.client))
    bot.wait_joined()
    return bot
