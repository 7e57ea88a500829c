/// Decides what one HTTP request on the server's port becomes: a WebSocket upgrade or a plain
/// response. Pure: request head in, decision out.
///
/// Routes (the same port serves both, like the SkyRTC demo's express + ws pair):
/// - a WebSocket upgrade on **any path** (the original `ws` server sets no `path`) → 101;
/// - `GET /` and `GET /index.html` → the browser page; `GET /healthz` → 200 "ok";
/// - `GET /ws` without an upgrade → 426 (our documented WebSocket path; RFC 9110 §15.5.22);
/// - anything else → 404, or 405 for a method other than GET/HEAD.
public enum HTTPRouter {
    public enum Decision: Equatable, Sendable {
        /// Switch to WebSocket: send `response` (101) and start framing.
        case upgrade(response: HTTPResponse)
        /// Send `response` and close.
        case respond(HTTPResponse, headOnly: Bool)
    }

    public static func route(_ head: HTTPRequestHead, page: String) -> Decision {
        let wantsWebSocket = head.headerHasToken("upgrade", "websocket") || head.header("sec-websocket-key") != nil
        if wantsWebSocket { return upgrade(head) }
        let headOnly = head.method == "HEAD"
        guard head.method == "GET" || headOnly else {
            return .respond(.text(405, "Method Not Allowed", "method not allowed\n", extraHeaders: [("Allow", "GET, HEAD")]), headOnly: false)
        }
        switch head.path {
        case "/", "/index.html":
            return .respond(HTTPResponse(status: 200, reason: "OK",
                                         headers: [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store")],
                                         body: Array(page.utf8)), headOnly: headOnly)
        case "/healthz":
            return .respond(.text(200, "OK", "ok"), headOnly: headOnly)
        case "/ws":
            return .respond(.text(426, "Upgrade Required", "this path takes a WebSocket upgrade\n",
                                  extraHeaders: [("Upgrade", "websocket"), ("Connection", "Upgrade")]), headOnly: headOnly)
        default:
            return .respond(.text(404, "Not Found", "not found\n"), headOnly: headOnly)
        }
    }

    /// RFC 6455 §4.2.1: the checks on the client's opening handshake, then §4.2.2 for the reply.
    static func upgrade(_ head: HTTPRequestHead) -> Decision {
        func bad(_ why: String) -> Decision { .respond(.text(400, "Bad Request", "bad WebSocket upgrade: \(why)\n"), headOnly: false) }
        // §4.2.1 (1): "An HTTP/1.1 or higher GET request".
        guard head.method == "GET" else { return bad("method must be GET") }
        guard head.version == "HTTP/1.1" else { return bad("version must be HTTP/1.1") }
        // §4.2.1 (2)-(4): Host, Upgrade: websocket, Connection: Upgrade.
        guard head.header("host") != nil else { return bad("missing Host") }
        guard head.headerHasToken("upgrade", "websocket") else { return bad("Upgrade must be websocket") }
        guard head.headerHasToken("connection", "upgrade") else { return bad("Connection must include Upgrade") }
        // §4.2.1 (5): a base64 nonce of 16 bytes.
        guard let key = head.header("sec-websocket-key"), WebSocketAcceptKey.isValidKey(key) else {
            return bad("Sec-WebSocket-Key must be 16 base64-encoded bytes")
        }
        // §4.2.2 (4): on a version we do not speak, "the server MUST abort the WebSocket handshake
        // described in this section and instead send an appropriate HTTP error code (such as 426
        // Upgrade Required) and a |Sec-WebSocket-Version| header field indicating the version(s)".
        guard head.header("sec-websocket-version") == "13" else {
            return .respond(.text(426, "Upgrade Required", "WebSocket version 13 only\n",
                                  extraHeaders: [("Sec-WebSocket-Version", "13")]), headOnly: false)
        }
        // No subprotocol and no extension is negotiated. The server speaks SkyRTC's JSON only, so a client that asks
        // for a subprotocol gets no Sec-WebSocket-Protocol back, and decides itself whether it can go on; §4.2.2: "if
        // the server does not wish to agree to one of the suggested subprotocols, it MUST NOT send back a
        // |Sec-WebSocket-Protocol| header field in its response". Offering permessage-deflate is optional and
        // declining it is allowed, RFC 7692 §5.
        return .upgrade(response: HTTPResponse(status: 101, reason: "Switching Protocols", headers: [
            ("Upgrade", "websocket"),
            ("Connection", "Upgrade"),
            ("Sec-WebSocket-Accept", WebSocketAcceptKey.accept(forKey: key)),
        ]))
    }
}
