// Signaling: the SkyRTC signaling protocol over RFC 6455 WebSocket, server and client, no libraries.
//
// Layers (each folder is one; pure cores at the top, thin drivers at the bottom):
// - WebSocket/  RFC 6455 sans-IO codec: incremental frame parser (§5), frame writer, close codes
//               (§7.4), the Sec-WebSocket-Accept proof (§4.2.2). Bytes in, messages out.
// - HTTP/       HTTP/1.1 request-head parser and the router deciding upgrade vs page/health/404.
// - SkyRTC/     The SkyRTC messages (typed, JSON with ordered keys), socket ids, error codes, the
//               display-name extension's cleaning rule, and `SkyRTCRooms`, the room logic as a pure
//               state machine (inputs → actions).
// - IO/         Non-blocking byte streams over sockets (plain TCP), socket helpers, `MonotonicInstant` (the
//               sans-IO cores' `now`, read from OpenSSLSupport's `MonotonicClock`, re-exported here).
// - TLS/        OpenSSL: server context (PEM files or in-memory self-signed ECDSA P-256), client
//               sessions (system trust, insecure, or pinned SHA-256), TLS byte stream.
// - Server/     `SignalingServer` + `ServerEventLoop`: one epoll(7) thread driving the cores, with
//               bounded buffers, handshake/idle/close timeouts and a thread-safe stop; the policy
//               cores it consults (pure, time as an input): `OriginPolicy`, `ConnectionLimits`,
//               `MessageRateLimit`/`TokenBucket`, `LogThrottle`, and `LogEscaping` for every log line.
// - Client/     `WebSocketClient` (ws/wss, one I/O thread, queued sends), the typed `SkyRTCClient` used by
//               `conftui bot` and `conftui join`, and `ReconnectBackoff`, when to try again after the connection
//               was lost (Client/README.md).
// BrowserPage.swift serves the page at `GET /`; its files are in BrowserPage/, compiled in by the EmbedBrowserPage plugin.
