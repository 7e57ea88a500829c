@testable import EngineTransport

/// Two `DataChannels` joined directly, no DTLS, on a virtual clock, for the `sctp` and `dcep` targets: A plays the
/// peer (its packets, or the fuzzer's in its name), B is under test. Fixed seeds: the tags and TSNs are the same in
/// every run, so what the fuzzer learns about them (trace-cmp) stays true.
final class SctpPair {
    let a: DataChannels
    let b: DataChannels
    var now = TransportTime(nanoseconds: 1_000_000_000)
    /// The verification tag B expects (what A's packets carry once the handshake is done).
    private(set) var tagAtB: UInt32 = 0
    /// Packets each side sent that the other has not received yet.
    private var toA: [[UInt8]] = []
    private var toB: [[UInt8]] = []
    private var deadlineA: TransportTime?
    private var deadlineB: TransportTime?
    /// Channels B reported open and not closed since.
    private(set) var openAtB: Set<UInt16> = []
    /// Messages B delivered, counted, and the short ones since the last `mark()` (for a follow-up check).
    private(set) var messageCountAtB = 0
    private var shortSinceMark: [(UInt16, DataChannels.Message)] = []

    func mark() { shortSinceMark.removeAll() }
    func deliveredSinceMark(_ id: UInt16, _ m: DataChannels.Message) -> Bool { shortSinceMark.contains { $0 == (id, m) } }

    init(aIsClient: Bool, configure: (inout DataChannels.Configuration) -> Void = { _ in }) {
        var ca = DataChannels.Configuration(isDtlsClient: aIsClient)
        ca.sctp.seed = 11
        var cb = DataChannels.Configuration(isDtlsClient: !aIsClient)
        cb.sctp.seed = 12
        configure(&ca)
        configure(&cb)
        a = DataChannels(configuration: ca)
        b = DataChannels(configuration: cb)
    }

    /// Starts both ends and passes packets until both are established.
    func connect() -> Bool {
        fromA(a.start(now: now))
        fromB(b.start(now: now))
        pump()
        return a.isConnected && b.isConnected
    }

    /// Sees every packet A sends (the seeds record a real session with it).
    var onPacketFromA: (([UInt8]) -> Void)?

    func fromA(_ out: DataChannels.Output) {
        deadlineA = out.deadline
        for p in out.transmits {
            onPacketFromA?(p)
            if p.count >= 8 { tagAtB = UInt32(p[4]) << 24 | UInt32(p[5]) << 16 | UInt32(p[6]) << 8 | UInt32(p[7]) }
            toB.append(p)
        }
    }

    /// The largest DTLS record (and so SCTP packet) OpenSSL writes: a larger one fails the DTLS connection.
    static let maxRecord = 16_384

    func fromB(_ out: DataChannels.Output) {
        deadlineB = out.deadline
        for p in out.transmits { precondition(p.count <= Self.maxRecord, "B wrote a \(p.count)-byte packet, above a DTLS record") }
        toA += out.transmits
        for e in out.events {
            switch e {
            case .opened(let id, _, _): openAtB.insert(id)
            case .closed(let id): openAtB.remove(id)
            case .ended: openAtB.removeAll()
            case .message(let id, let m):
                messageCountAtB += 1
                if case .text(let t) = m, t.count <= 64, shortSinceMark.count < 1_000 { shortSinceMark.append((id, m)) }
            default: break
            }
        }
    }

    /// A packet in A's name straight to B (B's answers wait for `pump` or are dropped by `dropToA`).
    func deliverToB(_ packet: [UInt8]) { fromB(b.receive(packet: packet, now: now)) }

    func dropToA() { toA.removeAll() }

    /// Passes packets both ways until none is left (at most `rounds` exchanges): no delay, no loss.
    func pump(rounds: Int = 64) {
        for _ in 0..<rounds where !toA.isEmpty || !toB.isEmpty {
            let forB = toB, forA = toA
            toB = []; toA = []
            for p in forB { fromB(b.receive(packet: p, now: now)) }
            for p in forA { fromA(a.receive(packet: p, now: now)) }
        }
    }

    /// Pumps, and lets 200 ms pass between rounds (delayed SACKs, retransmissions), until `until` holds or 30
    /// virtual seconds pass.
    func settle(until: () -> Bool) -> Bool {
        for _ in 0..<150 {
            pump()
            if until() { return true }
            advance(.milliseconds(200))
        }
        return until()
    }

    /// Lets `duration` of virtual time pass, firing both ends' timers.
    func advance(_ duration: Duration) {
        now = now + duration
        if let d = deadlineA, d <= now { fromA(a.handleTimeout(now: now)) }
        if let d = deadlineB, d <= now { fromB(b.handleTimeout(now: now)) }
    }

    /// What B must never exceed, whatever A sends.
    func checkBounds() {
        let sctp = b.configuration.sctp
        // The window and its eighth (SctpReceiveBuffer.limit), plus the reserve the chunk that fills the first gap may use.
        let reserve = min(sctp.maxIncomingMessage, sctp.receiveWindow) * 17 / 16
        let limit = sctp.receiveWindow + sctp.receiveWindow / 8
        precondition(b.association.receiveHeldBytes <= limit + reserve, "receive buffer above its limit and reserve")
        precondition(b.association.receiveHeldBytes >= 0, "receive buffer accounting below zero")
        precondition(b.association.bufferedAmount <= sctp.maxQueuedBytes, "send queue above its bound")
        precondition(b.openChannels.count <= b.configuration.maxChannels, "more channels than maxChannels")
    }

    /// `packet` with B's ports, B's verification tag and a correct CRC32c, each unless `keep` says otherwise.
    func fixed(_ packet: [UInt8], keepChecksum: Bool, keepTag: Bool, keepPorts: Bool) -> [UInt8] {
        guard packet.count >= SctpPacket.headerSize else { return packet }
        var p = packet
        if !keepPorts {
            p[0] = UInt8(b.configuration.sctp.remotePort >> 8); p[1] = UInt8(b.configuration.sctp.remotePort & 0xFF)
            p[2] = UInt8(b.configuration.sctp.localPort >> 8); p[3] = UInt8(b.configuration.sctp.localPort & 0xFF)
        }
        if !keepTag {
            p[4] = UInt8(tagAtB >> 24); p[5] = UInt8(tagAtB >> 16 & 0xFF); p[6] = UInt8(tagAtB >> 8 & 0xFF); p[7] = UInt8(tagAtB & 0xFF)
        }
        if !keepChecksum {
            p[8] = 0; p[9] = 0; p[10] = 0; p[11] = 0
            let crc = Crc32c.checksum(p)
            p[8] = UInt8(crc & 0xFF); p[9] = UInt8(crc >> 8 & 0xFF); p[10] = UInt8(crc >> 16 & 0xFF); p[11] = UInt8(crc >> 24)
        }
        return p
    }
}
