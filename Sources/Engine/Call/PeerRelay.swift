import Glibc
import EngineTransport

/// One peer connection's TURN allocation, driven on the call's event thread: the sans-IO `TurnClient` and its link to
/// the server, either the UDP socket of one of the peer's host candidates (so the allocation's server-reflexive
/// address is that socket's mapping) or a TCP connection of its own. Not Sendable: the event thread owns it.
final class PeerRelay {
    enum Link {
        case udp(UdpSocket)
        case tcp(TcpStream)
    }

    let server: TurnServer
    let client: TurnClient
    let link: Link
    private var framer = TurnStreamFramer()
    private(set) var deadline: TransportTime?
    /// Messages for the server the link refused (a TCP queue over its bound, a full UDP buffer): counted as loss.
    private(set) var droppedTransmits = 0
    /// Why the link broke (a TCP connection refused or closed, a stream that is not TURN); nothing is sent after.
    private(set) var brokenReason: String?

    /// Picks the link: for UDP the host socket of the server's family (a loopback one only for a loopback server);
    /// nil when there is none. Throws when a TCP connection cannot even be started.
    init?(server: TurnServer, sockets: [UdpSocket], seed: UInt64) throws(EngineError) {
        self.server = server
        var config = TurnClientConfig(credentials: server.credentials, seed: seed)
        switch server.transport {
        case .udp:
            let family = sockets.filter { $0.localAddress.ip.isIPv4 == server.address.ip.isIPv4 }
            guard let socket = family.first(where: { $0.localAddress.ip.isLoopback == server.address.ip.isLoopback }) ?? family.first
            else { return nil }
            link = .udp(socket)
        case .tcp:
            link = .tcp(try TcpStream(connectTo: server.address))
            config.reliableTransport = true
        }
        client = TurnClient(config: config)
    }

    /// The relayed transport address while the allocation stands.
    var relayedAddress: TransportAddress? { client.state == .allocated ? client.relayedAddress : nil }

    /// The UDP socket the server's datagrams arrive on (nil over TCP).
    var udpSocket: UdpSocket? { if case .udp(let s) = link { s } else { nil } }

    /// The TCP connection to poll (nil over UDP).
    var stream: TcpStream? { if case .tcp(let s) = link { s } else { nil } }

    /// Feeds the client and writes what it sends; returns its events.
    func handle(_ input: TurnInput, now: TransportTime) -> [TurnEvent] {
        guard brokenReason == nil else { return [] }
        let out = client.handle(input, now: now)
        for bytes in out.transmits {
            let sent: Bool = switch link {
            case .udp(let socket): socket.send(bytes, to: server.address)
            case .tcp(let stream): stream.write(bytes)
            }
            if !sent { droppedTransmits += 1 }
        }
        deadline = out.deadline
        return out.events
    }

    /// After poll reported the TCP connection readable, writable or broken: flushes, reads and frames what arrived.
    /// A broken or non-TURN stream ends the allocation (the client is told nothing more; the event says why).
    func serviceStream(revents: Int16, now: TransportTime) -> [TurnEvent] {
        guard case .tcp(let stream) = link, brokenReason == nil, client.state != .failed, client.state != .closed else { return [] }
        stream.flush()
        var events: [TurnEvent] = []
        for _ in 0..<16 {   // bounded: other sockets get their turn
            switch stream.read() {
            case .nothing:
                if revents & Int16(POLLERR | POLLHUP) != 0, let error = stream.pendingError() {
                    return events + fail("TCP connection to \(server.address): \(error)")
                }
                return events
            case .closed(let reason):
                return events + fail("TCP connection to \(server.address): \(reason)")
            case .bytes(let bytes):
                do {
                    for message in try framer.push(bytes) { events += handle(.received(message), now: now) }
                } catch {
                    return events + fail("\(error)")
                }
            }
        }
        return events
    }

    private func fail(_ reason: String) -> [TurnEvent] {
        deadline = nil
        brokenReason = reason
        return [.failed(reason: reason)]
    }
}
