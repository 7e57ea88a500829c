import Signaling
#if canImport(Glibc)
import Glibc
#endif

/// `conftui serve`: the SkyRTC signaling server plus the browser page on one port.
///
/// Contract with scripts and tests: once listening, it prints exactly one line to standard output
/// and flushes it — `conftui serve: listening on http://HOST:PORT/ (ws://HOST:PORT/)` (https/wss
/// with TLS) — and nothing else there. Joins, leaves and errors are logged one line each to
/// `--log PATH` or standard error. SIGINT/SIGTERM close every connection (1001) and exit 0.
let serveCommand = Command(
    name: "serve",
    summary: "run the SkyRTC signaling server and the browser page (http/ws, or https/wss)",
    options: [
        .value("host", "ADDR", "IPv4 address to listen on (default 127.0.0.1)"),
        SharedOptions.port("port (default 3000; 0 picks a free one)"),
        .value("tls", "self-signed", "serve https/wss with an in-memory self-signed certificate"),
        .value("tls-cert", "FILE", "PEM certificate (chain) for https/wss"),
        .value("tls-key", "FILE", "PEM private key for --tls-cert"),
        .value("compat", "original", "behave like the original SkyRTC server on the wire"),
        SharedOptions.log("append log lines here instead of standard error"),
        .value("ping-interval", "SECONDS", "WebSocket ping after this long without a complete message (default 20; dropped after twice)"),
        .value("handshake-timeout", "SECONDS", "close connections that do not upgrade in time (default 10)"),
        .value("max-message", "BYTES", "largest WebSocket message accepted (default 1048576)"),
        SharedOptions.allowOrigin("also accept WebSocket upgrades from this web origin (repeatable; * allows any)"),
        .value("max-connections", "N", "open connections in all (default 20000)"),
        .value("max-per-ip", "N", "open connections from one IPv4 address (default 64)"),
        .value("max-rooms", "N", "rooms at once; more gets _error too_many_rooms (default 1000)"),
        .value("max-room-size", "N", "members per room; more gets _error room_full (default 32)"),
        .value("max-rate", "N", "messages per second per connection, bursts of 4N (default 50); more: rate_limited, then 1008"),
        .value("max-buffered", "BYTES", "bytes held for all connections; past it the biggest holder is dropped (default 67108864)"),
    ],
    details: """
    examples:
      conftui serve --port 3000                 then open http://127.0.0.1:3000/#room
      conftui serve --tls self-signed --port 0  https/wss on a free port
      conftui serve --host 0.0.0.0 --allow-origin https://conf.example.org   a page on another origin may connect

    WebSocket upgrades carrying an Origin are accepted only from the server's own page (http or https, the address
    it was reached at when that is an IP address or localhost, or --host and the port) and from --allow-origin;
    others get 403. Clients that send no Origin (conftui, aiortc, scripts) are not browsers and are accepted.
    """,
    run: { args in
        guard args.positional.isEmpty else { throw UsageError("serve takes no positional arguments") }
        var config = SignalingServerConfiguration()
        config.host = args.value("host") ?? "127.0.0.1"
        config.port = try SharedOptions.port(args, default: 3000)
        config.pingInterval = try args.double("ping-interval", default: 20, range: 0.05...86400)
        config.handshakeTimeout = try args.double("handshake-timeout", default: 10, range: 0.05...86400)
        config.maxMessageSize = try args.int("max-message", default: 1 << 20, range: 1024...(64 << 20))
        config.allowedOrigins = args.values("allow-origin")
        config.maxConnections = try args.int("max-connections", default: config.maxConnections, range: 1...1_000_000)
        config.maxConnectionsPerIP = try args.int("max-per-ip", default: config.maxConnectionsPerIP, range: 1...1_000_000)
        config.maxRooms = try args.int("max-rooms", default: config.maxRooms, range: 1...1_000_000)
        config.maxMembersPerRoom = try args.int("max-room-size", default: config.maxMembersPerRoom, range: 1...100_000)
        let rate = try args.int("max-rate", default: Int(config.messagesPerSecond), range: 1...100_000)
        config.messagesPerSecond = Double(rate)
        config.messageBurst = 4 * rate
        config.maxBufferedBytes = try args.int("max-buffered", default: config.maxBufferedBytes, range: (1 << 20)...(1 << 40))
        switch (args.value("tls"), args.value("tls-cert"), args.value("tls-key")) {
        case (nil, nil, nil): config.tls = nil
        case ("self-signed", nil, nil): config.tls = .selfSigned
        case (nil, let cert?, let key?): config.tls = .files(certificate: cert, key: key)
        case (let mode?, nil, nil): throw UsageError("--tls takes 'self-signed', not '\(mode)'")
        default: throw UsageError("use either --tls self-signed or both --tls-cert and --tls-key")
        }
        switch args.value("compat") {
        case nil: config.format = .conftui
        case "original": config.format = .original
        case let other?: throw UsageError("--compat takes 'original', not '\(other)'")
        }
        let log = try SharedOptions.log(args, otherwise: .standardError)

        // Block the stop signals in every thread (the server thread inherits the mask), then wait for
        // them synchronously here: no async-signal-safety concerns, and stop() runs on a normal thread.
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGINT)
        sigaddset(&stopSignals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &stopSignals, nil)

        let server = try SignalingServer(config, log: log)
        server.start()
        log.write("serve: listening on \(server.pageURL) (\(server.webSocketURL))\(config.format == .original ? " compat=original" : "")")
        let line = "conftui serve: listening on \(server.pageURL) (\(server.webSocketURL))\n"
        _ = line.withCString { write(1, $0, strlen($0)) }
        // write(2) on fd 1 is unbuffered: the line is out as soon as the call returns.

        var received: Int32 = 0
        sigwait(&stopSignals, &received)
        log.write("serve: signal \(received), stopping")
        server.stop()
        log.write("serve: stopped")
        return 0
    })
