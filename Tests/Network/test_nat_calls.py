"""Calls across the emulated internet (Tests/testsupport/netns.py, docs/emulated-network.md): `conftui serve` and
coturn (as the STUN server) in the public namespace, participants behind routers that NAT.

- A `conftui bot` behind a restricted NAT (Linux's own) and headless Chromium in the public namespace: the bot learns its public
  address from coturn (a server-reflexive candidate) and the two exchange media; Chromium's selected pair names
  the bot by its router's public address, since its host address is unreachable from the public side.
- Two bots behind two full-cone NATs: only their server-reflexive addresses can work (each host address is
  private, behind the other's router); they connect and each checks the other's test card and tone.
- Two bots behind symmetric NATs, or behind two restricted NATs (whose first checks block each other's mapping,
  docs/emulated-network.md), cannot connect directly: with `--turn` they connect through coturn's relay and exchange
  test cards and tones for 30 s; with UDP blocked at both routers they reach coturn over TCP (`?transport=tcp`)
  and are relayed the same way.
- Headless Chromium and a bot, each behind its own symmetric NAT, with the page told the same TURN server
  (`?turn=...&relay-only=1`): Chromium's relayed candidate and ours meet through coturn and media flows both ways.
- Two bots behind full-cone NATs with a firewall between their sites: they start relayed, and when the firewall
  rule is lifted mid-call they move to the direct (server-reflexive) pair without dropping the call.

On failure: the bots' logs and reports, coturn's log, the server's log, Chromium's output and the page's state."""

from __future__ import annotations

import time
import urllib.parse

import pytest

from testsupport.bot import bot_participant
from testsupport.chromium import Chromium
from testsupport.evidence import evidence_on_failure
from testsupport.internet_calls import bot_in, serve_in, started
from testsupport.netns import PUBLIC_ADDRESS, emulated_internet
from testsupport.pages import PAGE_READY, PagesEvidence, wait_until
from testsupport.waiting import eventually


def chromium_decodes(page, bot, frames: int, timeout: float, what: str) -> dict:
    """Waits until the page is connected to the bot and has decoded `frames` of its video; the page's view of it."""
    (state,) = wait_until([page], lambda s: bot.socket_id in s[0]["peers"]
                          and s[0]["peers"][bot.socket_id]["connectionState"] == "connected"
                          and s[0]["peers"][bot.socket_id]["framesDecoded"] >= frames, timeout, what)
    return state["peers"][bot.socket_id]


def bot_report_of_one_peer(bot, frames: int) -> dict:
    """Stops the bot (after 3 s more of call) and returns its one peer, which decoded at least `frames`."""
    time.sleep(3)
    report = bot.stop()
    (page_id, peer), = report["peers"].items()
    assert peer["video"]["framesDecoded"] >= frames, peer["video"]
    return peer


def test_a_bot_behind_a_nat_and_chromium_in_public_connect_through_its_reflexive_address(tmp_path):
    with emulated_internet() as net, evidence_on_failure() as evidence:
        site = net.add_site("restricted")
        coturn, serve = started(evidence, net, tmp_path)
        try:
            bot = bot_in(evidence, site, serve, coturn, "nat", "natbot", 440, tmp_path)
            chromium = Chromium(netns=net.public)
            evidence.add(chromium, close=chromium.close)
            page = chromium.new_page(f"{serve.http_url}#nat", "public", PAGE_READY)
            evidence.add(PagesEvidence([page]))
            seen = chromium_decodes(page, bot, 20, 25.0, "Chromium decodes the NATed bot's video")
            remote = seen["selectedPair"].split(" -> ")[1]
            assert remote.startswith(site.wan_address + ":"), (
                f"Chromium reaches the bot at its router's public address {site.wan_address}: {seen['selectedPair']}")
            assert seen["selectedPairTypes"].split("/")[1] in ("srflx", "prflx"), seen["selectedPairTypes"]
            peer = bot_report_of_one_peer(bot, 20)
            assert "connected" in [c["state"] for c in peer["timeline"]], peer["timeline"]
            log = bot.log_path.read_text(errors="replace")
            assert f"server-reflexive candidate candidate:" in log and f" {site.wan_address} " in log, \
                "the bot learnt its public address from coturn and signalled it"
            print(f"Chromium -> bot pair {seen['selectedPair']} ({seen['selectedPairTypes']}); "
                  f"bot decoded {peer['video']['framesDecoded']} frames from Chromium")
        finally:
            serve.stop()
            coturn.close()


def test_chromium_and_a_bot_behind_symmetric_nats_meet_through_coturn(tmp_path):
    with emulated_internet() as net, evidence_on_failure() as evidence:
        browser_site, bot_site = net.add_site("symmetric"), net.add_site("symmetric")
        coturn, serve = started(evidence, net, tmp_path)
        try:
            bot = bot_in(evidence, bot_site, serve, coturn, "relay", "relaybot", 440, tmp_path, turn="udp")
            chromium = Chromium(netns=browser_site.client)
            evidence.add(chromium, close=chromium.close)
            _, uri, _, user, _, password = coturn.turn_args("udp")
            query = urllib.parse.urlencode({"turn": uri, "turn-user": user, "turn-password": password, "relay-only": "1"})
            page = chromium.new_page(f"{serve.http_url}?{query}#relay", "behind a NAT", PAGE_READY)
            evidence.add(PagesEvidence([page]))
            seen = chromium_decodes(page, bot, 30, 30.0, "Chromium decodes the bot's video through the relay")
            assert seen["selectedPairTypes"].split("/")[0] == "relay", seen["selectedPairTypes"]
            peer = bot_report_of_one_peer(bot, 30)
            assert f"{PUBLIC_ADDRESS}:" in peer["transport"]["selectedPair"], peer["transport"]
            print(f"Chromium pair {seen['selectedPair']} ({seen['selectedPairTypes']}); bot pair "
                  f"{peer['transport']['selectedPair']}; bot decoded {peer['video']['framesDecoded']} frames")
        finally:
            serve.stop()
            coturn.close()


def two_bots(tmp_path, nat: str, wait: float, turn: str | None = None, block_udp: bool = False):
    """Two bots behind `nat` routers in one room; returns both reports after `wait` seconds of call (or raises).
    Without `turn` they must have connected directly (each names the other's router); with it, through coturn."""
    with emulated_internet() as net, evidence_on_failure() as evidence:
        sites = [net.add_site(nat, block_udp=block_udp), net.add_site(nat, block_udp=block_udp)]
        coturn, serve = started(evidence, net, tmp_path)
        try:
            bots = [bot_in(evidence, site, serve, coturn, "pair", name, tone, tmp_path, duration=wait + 30, turn=turn)
                    for site, name, tone in zip(sites, ("Ana", "Ben"), (440, 660))]
            time.sleep(wait)
            reports = [bot.stop() for bot in bots]
            for (me, other, other_site, tone), report in zip(
                    ((bots[0], bots[1], sites[1], 660), (bots[1], bots[0], sites[0], 440)), reports):
                peer = report["peers"].get(other.socket_id)
                assert peer, f"{me.name} has no connection to {other.name}: {list(report['peers'])}"
                assert "connected" in [c["state"] for c in peer["timeline"]], f"{me.name}: {peer['timeline']}"
                pair = peer["transport"]["selectedPair"]
                if turn:
                    # One end of the pair is a relayed address on coturn's (the public) address.
                    assert f"{PUBLIC_ADDRESS}:" in pair, f"{me.name}: not relayed: {pair}"
                else:
                    assert pair.split(" -> ")[1].startswith(other_site.wan_address + ":"), pair
                card = peer["video"]["testCard"]
                # The picture kept coming for the whole call: at least 10 of the 15 frames a second, after the
                # first 5 s for signaling, ICE (relay allocation included) and DTLS.
                minimum = 20 if wait < 20 else int(10 * (wait - 5))
                assert card["participant"] == bot_participant(other.name) and card["count"] >= minimum, (minimum, card)
                assert abs(peer["audio"]["dominantFrequency"] - tone) < 10, peer["audio"]
            return reports
        finally:
            serve.stop()
            coturn.close()


def test_two_bots_behind_full_cone_nats_connect_through_reflexive_addresses(tmp_path):
    reports = two_bots(tmp_path, "full-cone", 8)
    print("pairs:", [next(iter(r["peers"].values()))["transport"]["selectedPair"] for r in reports])


@pytest.mark.parametrize("nat", ["symmetric", "restricted"])
def test_two_bots_behind_nats_that_need_a_relay_connect_through_coturn(tmp_path, nat):
    """The first "Done when" item over UDP: 30 s of verified media relayed by coturn."""
    reports = two_bots(tmp_path, nat, 30 if nat == "symmetric" else 10, turn="udp")
    print("pairs:", [next(iter(r["peers"].values()))["transport"]["selectedPair"] for r in reports])


def test_two_bots_on_networks_without_udp_are_relayed_over_tcp(tmp_path):
    """The first "Done when" item with UDP blocked at both routers: TURN over TCP, 30 s of verified media."""
    reports = two_bots(tmp_path, "symmetric", 30, turn="tcp", block_udp=True)
    print("pairs:", [next(iter(r["peers"].values()))["transport"]["selectedPair"] for r in reports])


def test_a_relayed_call_moves_to_a_direct_pair_when_one_opens(tmp_path):
    with emulated_internet() as net, evidence_on_failure() as evidence:
        sites = [net.add_site("full-cone"), net.add_site("full-cone")]
        for site, other in ((sites[0], sites[1]), (sites[1], sites[0])):
            site.block(other.wan_address)
        coturn, serve = started(evidence, net, tmp_path)
        try:
            bots = [bot_in(evidence, site, serve, coturn, "switch", name, tone, tmp_path, duration=60, turn="udp")
                    for site, name, tone in zip(sites, ("Ana", "Ben"), (440, 660))]

            def selected_pairs() -> list[str]:
                return [line.split("selected pair ", 1)[1] for bot in bots
                        for line in bot.log_path.read_text(errors="replace").splitlines() if "selected pair " in line]

            assert eventually(lambda: len(selected_pairs()) >= 2, 20), "no pair selected while relayed"
            assert all(f"{PUBLIC_ADDRESS}:" in pair for pair in selected_pairs()), selected_pairs()
            time.sleep(5)   # a relayed call in progress
            for site in sites:
                site.unblock()
            direct = [f"{site.wan_address}:" for site in sites]
            assert eventually(lambda: sum(1 for pair in selected_pairs() if any(d in pair.split(" -> ")[1] for d in direct)) >= 2, 15), \
                f"still relayed 15 s after the firewall opened: {selected_pairs()}"
            time.sleep(5)
            reports = [bot.stop() for bot in bots]
            for me, other, report in ((bots[0], bots[1], reports[0]), (bots[1], bots[0], reports[1])):
                peer = report["peers"][other.socket_id]
                assert [c["state"] for c in peer["timeline"]].count("connected") == 1, peer["timeline"]   # never dropped
                assert f"{PUBLIC_ADDRESS}:" not in peer["transport"]["selectedPair"], peer["transport"]["selectedPair"]
                card = peer["video"]["testCard"]
                assert card["participant"] == bot_participant(other.name) and card["count"] >= 150, card
            print("pairs:", selected_pairs())
        finally:
            serve.stop()
            coturn.close()
