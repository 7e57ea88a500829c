/// The surface of `SctpAssociation`: its configuration (every bound it keeps), events and output.
extension SctpAssociation {
    public struct Configuration: Sendable {
        /// `a=sctp-port` on both sides (RFC 8841 §5); WebRTC uses 5000.
        public var localPort: UInt16 = 5000
        public var remotePort: UInt16 = 5000
        /// Largest SCTP packet: 1,200-byte DTLS datagrams less the DTLS record overhead (at most 45 bytes with
        /// AES-CBC and SHA-384; 29 with GCM) and some slack.
        public var maxPacketSize = 1140
        /// Our a_rwnd: bytes held for reassembly and ordering; DATA beyond it is dropped unacknowledged.
        public var receiveWindow = 1 << 20
        /// Incoming messages larger than this are discarded whole (the peer ignored our `a=max-message-size`).
        public var maxIncomingMessage = 256 * 1024
        /// Bytes accepted by `send` and not yet acknowledged; `send` refuses beyond it.
        public var maxQueuedBytes = 8 << 20
        /// Streams announced each way (OS and MIS); per-stream state is made lazily, only for streams in use.
        public var streams: UInt16 = 1024
        /// RTO rules of RFC 9260 §6.3.1 with a lower minimum: RFC 9260's 1 s minimum dates from dial-up paths,
        /// and a chat line lost once should not wait a second (WebRTC stacks use a few hundred milliseconds).
        public var rtoInitial: Duration = .seconds(1)
        public var rtoMin: Duration = .milliseconds(200)
        public var rtoMax: Duration = .seconds(10)
        /// Association.Max.Retrans and Max.Init.Retransmits (RFC 9260 §16): then the peer is unreachable.
        public var maxRetransmissions = 10
        public var maxInitRetransmissions = 8
        /// RFC 9260 §6.2: a SACK within 200 ms of the first unacknowledged DATA, at least every second packet.
        public var delayedAck: Duration = .milliseconds(200)
        public var seed: UInt64 = UInt64.random(in: 1...UInt64.max)

        public init() {}

        /// Payload bytes one DATA chunk carries in a full packet.
        var maxDataPayload: Int { maxPacketSize - SctpPacket.headerSize - SctpDataChunk.headerSize }
    }

    public enum Event: Equatable, Sendable {
        case connected
        /// A whole message, in order on its stream unless it was sent unordered.
        case message(stream: UInt16, ppid: UInt32, payload: [UInt8])
        /// The peer reset its outgoing side of these streams (RFC 6525): their channels are closing.
        case incomingStreamsReset([UInt16])
        /// Our reset of these streams was performed by the peer: their SSNs start again at 0.
        case outgoingStreamsReset([UInt16])
        /// Something dropped or refused, with the reason; the association goes on.
        case warning(String)
        case closed(reason: String)
    }

    public struct Output: Sendable {
        /// SCTP packets for the DTLS layer to send as application data.
        public var transmits: [[UInt8]] = []
        public var events: [Event] = []
        public var deadline: TransportTime?
        public init() {}
    }

    public enum SendError: Error, Equatable, CustomStringConvertible {
        case notOpen, invalidStream(UInt16), tooLarge(Int), queueFull(Int), empty
        public var description: String {
            switch self {
            case .notOpen: "the association is closing or closed"
            case .invalidStream(let s): "stream \(s) is beyond the negotiated stream count"
            case .tooLarge(let n): "message of \(n) bytes is larger than the peer accepts"
            case .queueFull(let n): "\(n) bytes already queued"
            case .empty: "SCTP cannot carry an empty message"
            }
        }
    }

    public enum State: Equatable, Sendable {
        case closed, cookieWait, cookieEchoed, established, shutdownPending, shutdownSent, shutdownReceived,
             shutdownAckSent
    }
}

/// Serial number arithmetic on 32-bit TSNs (RFC 9260 §1.6, RFC 1982).
enum Serial {
    static func less(_ a: UInt32, _ b: UInt32) -> Bool { Int32(bitPattern: a &- b) < 0 }
    static func lessOrEqual(_ a: UInt32, _ b: UInt32) -> Bool { a == b || less(a, b) }
    static func less16(_ a: UInt16, _ b: UInt16) -> Bool { Int16(bitPattern: a &- b) < 0 }
}
