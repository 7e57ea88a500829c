@testable import EngineTransport

/// Target 10, raw SCTP packets into an ESTABLISHED association: a `DataChannels` pair is connected (fixed seeds,
/// so tags and TSNs repeat), A opens a channel, and then the input is a script of packets in A's name to B, time
/// passing, the real A answering, and B's own sends and closes. The fuzzer's packets get B's ports, B's
/// verification tag and a correct CRC32c unless a flag bit says to keep the bytes given: otherwise nearly every
/// input would stop at the checksum. Checked after every step: B's receive buffer stays inside its window (and
/// the reserve for the chunk that fills the first gap), its send queue inside its bound, its channels at most
/// `maxChannels`, every packet it writes within a DTLS record (16 KB); and no trap anywhere.
///
/// The input: one mode byte (bit 0: A is the DTLS client; bit 1: B has a message outstanding, never acknowledged by
/// the real A, for the fuzzer's SACKs to cover), then up to 64 operations, each an op byte:
/// - `0x00...0x1F`: `(op & 0x0F) * 50 ms` pass; with 0x10, the real A and B also exchange what they have queued.
/// - `0x20...0x2F`: B acts: sends a text of `next byte * 16` bytes on a channel, opens one, closes one, or shuts
///   down; or A sends a text through the real path.
/// - `0x30...0xFF`: a packet (a length-prefixed chunk) to B; bit 0 keeps its checksum, bit 1 its verification tag,
///   bit 2 its ports; bit 3 lets the real A answer afterwards (B's packets are dropped otherwise).
enum SctpTarget {
    static func run(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let mode = input.byte()
        let pair = SctpPair(aIsClient: mode & 1 != 0) { $0.maxChannels = 8 }
        guard pair.connect(), let (channel, out) = try? pair.a.open(label: "chat", now: pair.now) else { return }
        pair.fromA(out)
        pair.pump()
        if mode & 2 != 0 {
            if let out = try? pair.b.send(.binary([UInt8](repeating: 7, count: 3_000)), on: channel, now: pair.now) {
                pair.fromB(out)
            }
            pair.dropToA()
        }
        var steps = 0
        while !input.isEmpty && steps < 64 {
            steps += 1
            let op = input.byte()
            switch op {
            case 0x00...0x1F:
                pair.advance(.milliseconds(Int64(op & 0x0F) * 50))
                if op & 0x10 != 0 { pair.pump() } else { pair.dropToA() }
            case 0x20...0x2F:
                act(Int(op & 0x0F), size: Int(input.byte()) * 16, channel: channel, pair: pair)
            default:
                // What arrives through DTLS is at most one record.
                let packet = pair.fixed(Array(input.chunk().prefix(SctpPair.maxRecord)), keepChecksum: op & 1 != 0, keepTag: op & 2 != 0, keepPorts: op & 4 != 0)
                pair.deliverToB(packet)
                if op & 8 != 0 { pair.pump() } else { pair.dropToA() }
            }
            pair.checkBounds()
            if pair.b.association.state == .closed { break }
        }
        _ = (pair.b.openChannels, pair.b.isConnected, pair.b.association.congestionWindow,
             pair.b.association.bytesInFlight, pair.b.association.retransmissionTimeout)
    }

    private static func act(_ what: Int, size: Int, channel: UInt16, pair: SctpPair) {
        let now = pair.now
        switch what % 5 {
        case 0:
            let id = pair.b.openChannels.first ?? channel
            if let out = try? pair.b.send(.text([UInt8](repeating: 0x61, count: size)), on: id, now: now) { pair.fromB(out) }
        case 1:
            if let (_, out) = try? pair.b.open(label: "b", now: now) { pair.fromB(out) }
        case 2:
            if let id = pair.b.openChannels.last { pair.fromB(pair.b.close(id, now: now)) }
        case 3:
            pair.fromB(pair.b.shutdown(now: now))
        default:
            if let out = try? pair.a.send(.text([UInt8](repeating: 0x62, count: max(1, size))), on: channel, now: now) {
                pair.fromA(out)
            }
            pair.pump()
        }
    }
}
