"""#31 (c): a member that advertises candidates no unicast peer can have (limited broadcast, multicast, unspecified,
"this network", reserved, port 0, their IPv6 forms) costs nobody their relay.

coturn 4.6 deletes a whole allocation when a send to a peer fails with EACCES (a broadcast address) or another error
it does not expect; a client that asks its relay to reach every remote candidate loses the relay of that connection,
silently. Here two bots behind symmetric NATs are relayed by coturn, and an aiortc participant in the public
namespace, which the bots' routers let them reach only through coturn, joins with such candidates in its offers and
trickled after them. The bots refuse them with a logged
reason, coturn's log shows no failed send and no allocation deleted early, and every call goes on: the bots decode
each other's test card and tone, and each decodes the aiortc member's picture and it theirs.

On failure: the bots' logs and reports, coturn's log, the server's log and the aiortc member's report and log."""

from __future__ import annotations

import re
import time

from testsupport.aiortc_process import AiortcProcess
from testsupport.bot import bot_participant
from testsupport.evidence import evidence_on_failure
from testsupport.internet_calls import bot_in, started
from testsupport.netns import emulated_internet

# The aiortc member's own address in the public namespace (coturn and the server are on .1, routers on .11 up).
MEMBER_ADDRESS = "100.64.0.5"
UNREACHABLE = ["255.255.255.255 9", "224.0.0.1 5000", "239.255.255.250 1900", "0.0.0.0 9", "0.1.2.3 9",
               "240.0.0.1 9", "100.64.0.1 0", ":: 9", "ff02::1 9", "::ffff:255.255.255.255 9"]
ADVERTISED = [f"candidate:bad{i} 1 udp {2130706431 - i} {address} typ host" for i, address in enumerate(UNREACHABLE)]
# What coturn 4.6 logs when a send to a peer fails, and when it deletes an allocation before its lifetime.
COTURN_TROUBLE = re.compile(r"(send|sendto).*(error|fail)|EACCES|Permission denied|Network is unreachable|"
                            r"Invalid argument|allocation.*(deleted|closed).*error", re.IGNORECASE)


def test_candidates_no_unicast_peer_has_cost_nobody_their_relay(tmp_path):
    with emulated_internet() as net, evidence_on_failure() as evidence:
        from testsupport.netns import run
        run("ip", "addr", "add", f"{MEMBER_ADDRESS}/24", "dev", "br0", ns=net.public)
        sites = [net.add_site("symmetric"), net.add_site("symmetric")]
        for site in sites:
            # Only through a relay can a bot reach the member: its relay is what is at stake.
            site.block(MEMBER_ADDRESS)
        coturn, serve = started(evidence, net, tmp_path, "--verbose")
        try:
            bots = [bot_in(evidence, site, serve, coturn, "hostile", name, tone, tmp_path, duration=60, turn="udp")
                    for site, name, tone in zip(sites, ("Ana", "Ben"), (440, 660))]
            member = evidence.add(AiortcProcess(serve.ws_url, "hostile", 880, tmp_path, netns=net.public,
                                                host=MEMBER_ADDRESS, advertise=ADVERTISED))
            member.wait_joined()
            time.sleep(20)
            member_report = member.report() or {}
            reports = [bot.stop() for bot in bots]
            member.stop()

            for me, report, other, tone in ((bots[0], reports[0], bots[1], 660), (bots[1], reports[1], bots[0], 440)):
                log = me.log_path.read_text(errors="replace")
                refused = [line for line in log.splitlines() if "not a unicast peer" in line]
                for reason in ("limited broadcast", "multicast", "unspecified", "this network", "reserved", "port 0"):
                    assert any(reason in line for line in refused), f"{me.name} logged no refusal for {reason}: {refused}"
                peer = report["peers"].get(other.socket_id)
                assert peer, f"{me.name} has no connection to {other.name}"
                card = peer["video"]["testCard"]
                assert card["participant"] == bot_participant(other.name) and card["count"] >= 200, card
                assert abs(peer["audio"]["dominantFrequency"] - tone) < 10, peer["audio"]
                theirs = report["peers"].get(member.socket_id)
                assert theirs and theirs["video"]["framesDecoded"] >= 100, f"{me.name} of the aiortc member: {theirs}"
                assert abs(theirs["audio"]["dominantFrequency"] - 880) < 10, theirs["audio"]
            for bot, tone in zip(bots, (440, 660)):
                seen = (member_report.get("peers") or {}).get(bot.socket_id) or {}
                card = (seen.get("cards") or {}).get(str(bot_participant(bot.name))) or {}
                assert card.get("count", 0) >= 30, f"the aiortc member of {bot.name}: {seen}"
                assert seen.get("frequency") and abs(seen["frequency"] - tone) < 10, f"the aiortc member of {bot.name}: {seen}"
            trouble = [line for line in coturn.log_path.read_text(errors="replace").splitlines()
                       if COTURN_TROUBLE.search(line)]
            assert not trouble, "coturn failed a send or dropped an allocation:\n" + "\n".join(trouble[:20])
        finally:
            serve.stop()
            coturn.close()
