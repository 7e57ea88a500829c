import EngineTransport

/// One connection's TURN allocation, sans-IO: the `TurnClient` and the path its messages take to the server, either
/// as datagrams from one of the connection's host sockets (so the allocation's server-reflexive address is that
/// socket's mapping) or over a TCP connection of its own that the driver keeps (RFC 8656 §3.1, framed per RFC 6544).
final class RelayLink {
    enum Path: Equatable {
        case udp(base: TransportAddress)
        /// A stream the driver keeps: plain TCP, or TCP carrying `tls`'s records.
        case tcp
    }

    /// What one input produced: datagrams for the server (UDP), messages for the stream (TCP), the client's events.
    struct Output {
        var datagrams: [Transmit] = []
        var streamWrites: [[UInt8]] = []
        var events: [TurnEvent] = []
    }

    let server: TurnServer
    let client: TurnClient
    let path: Path
    private var framer = TurnStreamFramer()
    /// `turns:`: the TLS session on the stream (TURN messages travel in its plaintext).
    private let tls: TlsClientCore?
    private(set) var deadline: TransportTime?
    /// Why the TCP path broke (refused, closed, a stream that is not TURN); nothing is sent after.
    private(set) var brokenReason: String?

    /// Picks the path: for UDP the host address of the server's family (a loopback one only for a loopback server);
    /// nil when there is none.
    init?(server: TurnServer, bases: [TransportAddress], seed: UInt64) {
        self.server = server
        var config = TurnClientConfig(credentials: server.credentials, seed: seed)
        switch server.transport {
        case .udp:
            let family = bases.filter { $0.ip.isIPv4 == server.address.ip.isIPv4 }
            guard let base = family.first(where: { $0.ip.isLoopback == server.address.ip.isLoopback }) ?? family.first
            else { return nil }
            path = .udp(base: base)
        case .tcp, .tls:
            path = .tcp
            config.reliableTransport = true
        }
        tls = server.transport == .tls ? try? TlsClientCore(host: server.tlsHost, verification: server.tlsVerification) : nil
        if server.transport == .tls && tls == nil { return nil }
        client = TurnClient(config: config)
    }

    /// The relayed transport address while the allocation stands.
    var relayedAddress: TransportAddress? { client.state == .allocated ? client.relayedAddress : nil }

    /// True for a datagram that is the server's own (relayed peers arrive from relayed addresses, other ports, never
    /// from the server's listening one).
    func isFromServer(local: TransportAddress, from: TransportAddress) -> Bool {
        path == .udp(base: local) && from == server.address
    }

    func handle(_ input: TurnInput, now: TransportTime) -> Output {
        guard brokenReason == nil else { return Output() }
        let out = client.handle(input, now: now)
        deadline = out.deadline
        switch path {
        case .udp(let base):
            return Output(datagrams: out.transmits.map { Transmit(from: base, to: server.address, bytes: $0) }, events: out.events)
        case .tcp:
            guard let tls else { return Output(streamWrites: out.transmits, events: out.events) }
            var sealed = TlsClientCore.Output()
            if tls.state == .handshaking && !startedTls {
                startedTls = true
                sealed = tls.start()
            }
            for message in out.transmits where !tls.send(message, into: &sealed) {
                if tls.isFailed { return Output(streamWrites: [], events: out.events + fail(tlsFailure(tls))) }
            }
            return Output(streamWrites: sealed.transmit.isEmpty ? [] : [sealed.transmit], events: out.events)
        }
    }

    private var startedTls = false

    private func tlsFailure(_ tls: TlsClientCore) -> String {
        if case .failed(let reason) = tls.state { return reason }
        return "TLS session with \(server.address) failed"
    }

    /// Bytes from the TCP connection: framed into messages for the client. A stream that is not TURN ends the
    /// allocation (the client is told nothing more; the event says why).
    func streamData(_ bytes: [UInt8], now: TransportTime) -> Output {
        guard brokenReason == nil, client.state != .failed, client.state != .closed else { return Output() }
        var result = Output()
        var bytes = bytes
        if let tls {
            let opened = tls.receive(bytes)
            if tls.isFailed { return Output(events: fail(tlsFailure(tls))) }
            if !opened.transmit.isEmpty { result.streamWrites.append(opened.transmit) }
            bytes = opened.plaintext
        }
        do {
            for message in try framer.push(bytes) {
                let out = handle(.received(message), now: now)
                result.streamWrites += out.streamWrites
                result.events += out.events
            }
        } catch {
            result.events += fail("\(error)")
        }
        return result
    }

    func streamClosed(reason: String) -> [TurnEvent] {
        guard brokenReason == nil else { return [] }
        return fail("\(tls == nil ? "TCP" : "TLS") connection to \(server.address): \(reason)")
    }

    private func fail(_ reason: String) -> [TurnEvent] {
        deadline = nil
        brokenReason = reason
        return [.failed(reason: reason)]
    }
}
