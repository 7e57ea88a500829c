"""Cross-site WebSocket hijacking, with a real browser: a page from another origin cannot open a WebSocket to
`conftui serve`, while the server's own page can.

A second HTTP server on another loopback port plays "any web page the user has open": its page tries
`new WebSocket(ws://127.0.0.1:PORT/)` to the signaling server. Chromium sends that page's origin in `Origin`; the
server must answer 403 (RFC 6455 section 10.2) and log one line. The same attempt from the server's own page opens.
Only for `conftui serve` (the reference server, like the original, checks nothing).
"""

from __future__ import annotations

import http.server
import threading

import pytest

from testsupport.serve import server_choice

FOREIGN_PAGE = b"<!doctype html><title>elsewhere</title><p>some other site</p>"

# Resolves to "open" or "refused" once the WebSocket opens or fails.
TRY_WEBSOCKET = """
new Promise(resolve => {
  const ws = new WebSocket(%s);
  ws.onopen = () => { ws.close(); resolve("open"); };
  ws.onerror = () => resolve("refused");
  setTimeout(() => resolve("no answer"), 5000);
})
"""


class ForeignSite:
    """A plain HTTP server on a free loopback port serving one harmless page."""

    def __init__(self) -> None:
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(FOREIGN_PAGE)))
                self.end_headers()
                self.wfile.write(FOREIGN_PAGE)

            def log_message(self, *_args) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.skipif("serve" not in server_choice().command, reason="the Origin policy is conftui serve's")
def test_a_foreign_page_is_refused_and_the_servers_own_page_is_not(signaling_server, chromium):
    site = ForeignSite()
    try:
        foreign = chromium.new_page(site.url, "foreign")
        attempt = TRY_WEBSOCKET % repr(signaling_server.ws_url)
        assert foreign.evaluate(attempt, timeout=10) == "refused", signaling_server.log_tail()
        log = signaling_server.log_path.read_text(errors="replace")
        assert f"refused (403): origin not allowed: Origin {site.url.rstrip('/')} " in log, log

        # The server's own page (which joins room "origin" itself, over its own socket) opens one more.
        own = chromium.new_page(signaling_server.http_url + "#origin", "own")
        assert own.evaluate(attempt, timeout=10) == "open", signaling_server.log_tail()
        assert signaling_server.log_path.read_text(errors="replace").count("refused (403)") == 1
    finally:
        site.close()
