"""The weakest link does not set everyone's picture: a four-party mesh of bots, each behind its own full-cone NAT on
the emulated internet (docs/emulated-network.md), one of them (Dee) behind a 300 kbit/s link both ways.

Each bot's send-side estimate (transport-wide congestion control, docs/congestion-control.md) sees Dee's link full;
its `EncodingPlan` then encodes twice: the full rate for the other two, a low one for Dee. Asserted after 25 s, from
the bots' own reports: the three fast bots encode at the full rate (at least 90 % of the 300 kbit/s maximum) and
each decodes the other two fast ones at 12 fps or more with their test cards advancing; each also runs a low
encoding below half of that for Dee, whose estimate is the lowest; Dee stays connected to all three and hears
them. The figures come from the reports the bots rewrite every 2 s while the call runs (not their final ones: a bot
that stops after another has left has already re-planned for the smaller room). Dee's own video, squeezed with
three audio streams into 300 kbit/s, is printed, not asserted. On failure: every bot's log and report, the
server's log and coturn's."""

from __future__ import annotations

import time

from testsupport.bot import BotProcess, bot_participant
from testsupport.coturn import Coturn
from testsupport.evidence import evidence_on_failure
from testsupport.netns import PUBLIC_ADDRESS, emulated_internet
from testsupport.reports import read_report
from testsupport.binaries import conftui_bin
from testsupport.serve import ServerProcess

FAST = ("Ana", "Ben", "Cy")
SLOW = "Dee"
MAX_KBPS = 300   # conftui's default video maximum


def test_one_slow_peer_gets_a_low_encoding_and_the_others_keep_the_full_rate(tmp_path):
    with emulated_internet() as net, evidence_on_failure() as evidence:
        sites = {name: net.add_site("full-cone") for name in FAST}
        sites[SLOW] = net.add_site("full-cone", rate_kbit=300)
        coturn = evidence.add(Coturn(PUBLIC_ADDRESS, tmp_path, net.public))
        command = ("ip", "netns", "exec", net.public, conftui_bin(), "serve", "--port", "0", "--host", PUBLIC_ADDRESS)
        serve = evidence.add(ServerProcess(command, "conftui serve (public namespace)", tmp_path / "serve.log").start())
        try:
            bots = {}
            for name, site in sites.items():
                bots[name] = evidence.add(BotProcess(serve.ws_url, "mesh", name, tmp_path, "--stun", coturn.stun_uri,
                                                     duration=90.0, host_candidates="all", netns=site.client))
                bots[name].wait_joined()
            time.sleep(25)
            reports = {name: read_report(bot.report_path) for name, bot in bots.items()}
            for bot in bots.values():
                bot.stop()
            ids = {name: bot.socket_id for name, bot in bots.items()}
            summary = []
            for name in FAST:
                local = reports[name]["local"]
                peers = reports[name]["peers"]
                assert local["videoBitrateKbps"] >= 0.9 * MAX_KBPS, f"{name} encodes at {local['videoBitrateKbps']} kbit/s"
                low = local.get("lowVideoBitrateKbps")
                assert low is not None and low <= MAX_KBPS / 2, f"{name} runs no low encoding for Dee: {local}"
                estimates = {other: peers[ids[other]]["transport"].get("sendEstimateBitrate") for other in sites if other != name}
                assert min(estimates, key=lambda k: estimates[k] or 0) == SLOW, f"{name}'s estimates: {estimates}"
                for other in FAST:
                    if other == name:
                        continue
                    video = peers[ids[other]]["video"]
                    assert video["framesPerSecond"] >= 12, f"{name} decodes {other} at {video['framesPerSecond']} fps"
                    card = video["testCard"]
                    assert card["participant"] == bot_participant(other) and card["last"] - card["first"] >= 100, card
                summary.append(f"{name}: full {local['videoBitrateKbps']} / low {low} kbit/s, estimates "
                               + ", ".join(f"{k} {(v or 0) // 1000}" for k, v in estimates.items()))
            dee = []
            for other in FAST:
                peer = reports[SLOW]["peers"][ids[other]]
                assert peer["transport"]["state"] == "connected", f"Dee and {other}: {peer['timeline']}"
                assert peer["audio"]["framesDecoded"] >= 50 * 20, f"Dee hears {other}: {peer['audio']}"
                dee.append(f"{other} {peer['video']['framesPerSecond']} fps {peer['video']['width']}x{peer['video']['height']}")
            print("; ".join(summary) + "; Dee decodes " + ", ".join(dee))
        finally:
            serve.stop()
            coturn.close()
