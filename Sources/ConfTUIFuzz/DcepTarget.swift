@testable import EngineTransport

/// Target 11, DCEP and PPIDs: fuzzed (stream, PPID, payload) messages that A's association sends as ordinary,
/// well-formed SCTP to B's `DataChannels`: DATA_CHANNEL_OPEN with odd labels and lengths, ACKs, OPEN on B's own
/// parity, duplicates, text on streams with no channel, PPIDs 52 and 54 and unknown ones, empty-message PPIDs,
/// channel resets, more OPENs than `maxChannels` (8 here). Checked: no trap; B's association is still
/// established after every message (nothing at this level may end it); B's channels stay at most `maxChannels`
/// and its buffers inside their bounds; and at the end a text on the channel A opened first still arrives.
///
/// The input: one mode byte (bit 0: A is the DTLS client), then up to 64 operations, each an op byte:
/// - bits 0-2 pick the PPID: 50 (DCEP), 51, 52, 53, 54, 56, 57, or the next four bytes;
/// - bit 3: unordered; bit 4: the stream is the next two bytes (else the next byte, streams below 256);
/// - bits 5-6: 0 and 1 send the payload (a length-prefixed chunk; empty becomes one byte, SCTP has no empty
///   DATA), 2 a well-formed OPEN whose label is the chunk, 3 resets A's outgoing side of the stream (a close);
/// - bit 7: 50 ms pass first.
enum DcepTarget {
    static let ppids: [UInt32] = [50, 51, 52, 53, 54, 56, 57]

    static func run(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let mode = input.byte()
        let pair = SctpPair(aIsClient: mode & 1 != 0) { $0.maxChannels = 8 }
        guard pair.connect(), let (control, out) = try? pair.a.open(label: "control", now: pair.now) else { return }
        pair.fromA(out)
        pair.pump()
        let streams = pair.a.configuration.sctp.streams
        var steps = 0
        while !input.isEmpty && steps < 64 {
            steps += 1
            let op = input.byte()
            if op & 0x80 != 0 { pair.advance(.milliseconds(50)) }
            let ppid = op & 7 < 7 ? ppids[Int(op & 7)] : UInt32(input.uint16()) << 16 | UInt32(input.uint16())
            let stream = op & 0x10 != 0 ? input.uint16() : UInt16(input.byte())
            var payload = input.chunk()
            switch op >> 5 & 3 {
            case 0, 1:
                if payload.isEmpty { payload = [0] }
            case 2:
                let label = String(decoding: payload, as: UTF8.self)
                payload = DcepMessage.open(channelType: UInt8(truncatingIfNeeded: ppid), priority: 256, reliability: 0,
                                           label: label, protocol: String(label.reversed())).encoded()
            default:
                // The control channel stays: the final check needs it.
                if stream != control { pair.fromA(pair.a.association.resetStreams([stream], now: pair.now).asChannels) }
                pair.pump()
                pair.checkBounds()
                continue
            }
            let target = stream % streams
            let ppidSent = op >> 5 & 3 == 2 ? DataChannelPPID.dcep : ppid
            if let out = try? pair.a.association.send(stream: target, ppid: ppidSent, payload: payload,
                                                       unordered: op & 8 != 0, now: pair.now) {
                pair.fromA(out.asChannels)
            }
            pair.pump()
            pair.checkBounds()
            precondition(pair.b.isConnected, "a DATA-level message ended the association")
        }
        // A text on the first channel still arrives, and as text.
        guard pair.openAtB.contains(control), let out = try? pair.a.send(.text(Array("still here".utf8)), on: control, now: pair.now) else {
            return
        }
        pair.mark()
        pair.fromA(out)
        let text = DataChannels.Message.text(Array("still here".utf8))
        precondition(pair.settle { pair.deliveredSinceMark(control, text) }, "the channel stopped delivering")
    }
}
