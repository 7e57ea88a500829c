"""#31 (d) and (e): networks that let only TLS on 443 out (hotels, offices). Both participants sit behind routers
that drop all UDP and all TCP but port 443; the signaling server listens on 443 of one public address and coturn's
TLS listener on 443 of another (coturn's certificate is signed by a test CA that the bots trust through
SSL_CERT_FILE, so they verify it as they would a real one: chain and IP address). They connect through coturn over
`turns:` and exchange test cards and tones for 30 s, relayed.

- Two bots (d); a third bot in the room that does not trust the CA gets a log line naming the certificate for each
  relay it asks for, and no call, while the first two talk on.
- Headless Chromium (the page with `?turn=turns:...`) and a bot (e); Chromium accepts the test CA's certificate
  through `--ignore-certificate-errors` (its trust store is NSS's, which the test leaves alone).

On failure: the bots' logs and reports, coturn's log, the server's log, Chromium's output and the page's state."""

from __future__ import annotations

import time
import urllib.parse

from testsupport.binaries import conftui_bin
from testsupport.bot import BotProcess, bot_participant
from testsupport.certificates import make_certificates
from testsupport.chromium import Chromium
from testsupport.coturn import Coturn
from testsupport.evidence import evidence_on_failure
from testsupport.netns import PUBLIC_ADDRESS, emulated_internet, run
from testsupport.pages import PAGE_READY, PagesEvidence, wait_until
from testsupport.serve import ServerProcess

# The signaling server's own public address (coturn has PUBLIC_ADDRESS): both listen on 443.
SERVE_ADDRESS = "100.64.0.2"


def https_only_internet(net, evidence, workdir):
    """coturn (TLS on 443) and `conftui serve` (on 443 of its own address) in the public namespace."""
    run("ip", "addr", "add", f"{SERVE_ADDRESS}/24", "dev", "br0", ns=net.public)
    certificates = make_certificates(workdir / "pki", addresses=[PUBLIC_ADDRESS])
    coturn = evidence.add(Coturn(PUBLIC_ADDRESS, workdir, net.public, tls_port=443, cert=certificates.cert,
                                 key=certificates.key), close=None)
    command = ("ip", "netns", "exec", net.public, conftui_bin(), "serve", "--port", "443", "--host", SERVE_ADDRESS)
    serve = evidence.add(ServerProcess(command, "conftui serve (public namespace, port 443)", workdir / "serve.log").start())
    return coturn, serve, certificates


def tls_bot(evidence, site, serve, coturn, room, name, tone, workdir, ca, duration=60.0) -> BotProcess:
    bot = evidence.add(BotProcess(serve.ws_url, room, name, workdir, "--tone", str(tone), *coturn.turn_args("tls"),
                                  duration=duration, host_candidates="all", netns=site.client,
                                  env={"SSL_CERT_FILE": str(ca)} if ca else None))
    bot.wait_joined()
    return bot


def test_two_bots_that_may_only_use_443_are_relayed_over_turns(tmp_path):
    with emulated_internet() as net, evidence_on_failure() as evidence:
        sites = [net.add_site("symmetric", tcp_port_only=443) for _ in range(3)]
        coturn, serve, certificates = https_only_internet(net, evidence, tmp_path)
        try:
            bots = [tls_bot(evidence, site, serve, coturn, "tls", name, tone, tmp_path, certificates.ca)
                    for site, name, tone in zip(sites, ("Ana", "Ben"), (440, 660))]
            # One that does not trust the relay's certificate: it says why and gets no relay (so no call: its network
            # lets nothing else out), while the others' call goes on.
            doubter = tls_bot(evidence, sites[2], serve, coturn, "tls", "Cy", 550, tmp_path, None, duration=20)
            time.sleep(30)
            reports = [bot.stop() for bot in bots]
            for me, report, other, tone in ((bots[0], reports[0], bots[1], 660), (bots[1], reports[1], bots[0], 440)):
                peer = report["peers"].get(other.socket_id)
                assert peer, f"{me.name} has no connection to {other.name}: {list(report['peers'])}"
                assert f"{PUBLIC_ADDRESS}:" in peer["transport"]["selectedPair"], peer["transport"]
                card = peer["video"]["testCard"]
                # 15 frames a second; at least 10 of them for the 25 s after signaling, TLS, allocation and ICE.
                assert card["participant"] == bot_participant(other.name) and card["count"] >= 250, card
                assert abs(peer["audio"]["dominantFrequency"] - tone) < 10, peer["audio"]
                log = me.log_path.read_text(errors="replace")
                assert "over tls" in log and "relayed candidate" in log, "the bot allocated its relay over TLS"
            doubter.stop()
            refused = [line for line in doubter.log_path.read_text(errors="replace").splitlines()
                       if "TURN relay failed" in line]
            assert refused and "certificate" in refused[0], f"the doubter's log: {refused}"
            print("pairs:", [r["peers"][o.socket_id]["transport"]["selectedPair"] for r, o in zip(reports, bots[::-1])])
            print("the doubter:", refused[0])
        finally:
            serve.stop()
            coturn.close()


def test_chromium_and_a_bot_that_may_only_use_443_are_relayed_over_turns(tmp_path):
    with emulated_internet() as net, evidence_on_failure() as evidence:
        browser_site, bot_site = net.add_site("symmetric", tcp_port_only=443), net.add_site("symmetric", tcp_port_only=443)
        coturn, serve, certificates = https_only_internet(net, evidence, tmp_path)
        try:
            bot = tls_bot(evidence, bot_site, serve, coturn, "tlsweb", "Ana", 440, tmp_path, certificates.ca)
            # Chromium's trust store is NSS's, not OpenSSL's: it takes the test CA's certificate on this flag (the bot
            # on the other side verifies it).
            chromium = Chromium(("--ignore-certificate-errors",), netns=browser_site.client)
            evidence.add(chromium, close=chromium.close)
            _, uri, _, user, _, password = coturn.turn_args("tls")
            query = urllib.parse.urlencode({"turn": uri, "turn-user": user, "turn-password": password, "relay-only": "1"})
            page = chromium.new_page(f"{serve.http_url}?{query}#tlsweb", "behind a 443-only router", PAGE_READY)
            evidence.add(PagesEvidence([page]))
            (state,) = wait_until([page], lambda s: bot.socket_id in s[0]["peers"]
                                  and s[0]["peers"][bot.socket_id].get("framesDecoded", 0) >= 30, 40.0,
                                  "Chromium decodes the bot's video through coturn's TLS listener")
            seen = state["peers"][bot.socket_id]
            assert seen["selectedPairTypes"].split("/")[0] == "relay", seen["selectedPairTypes"]
            time.sleep(30)
            report = bot.stop()
            (page_id, peer), = report["peers"].items()
            assert f"{PUBLIC_ADDRESS}:" in peer["transport"]["selectedPair"], peer["transport"]
            assert peer["video"]["framesDecoded"] >= 300, peer["video"]
            assert peer["audio"]["dominantFrequency"] is not None, peer["audio"]
            print(f"Chromium pair {seen['selectedPair']} ({seen['selectedPairTypes']}); bot pair "
                  f"{peer['transport']['selectedPair']}; bot decoded {peer['video']['framesDecoded']} frames")
        finally:
            serve.stop()
            coturn.close()
