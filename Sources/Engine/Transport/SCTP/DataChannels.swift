/// WebRTC data channels over one SCTP association (RFC 8831, DCEP RFC 8832), sans-IO. A channel is a stream pair
/// opened with DATA_CHANNEL_OPEN and closed with a stream reset; our streams are even as the DTLS client and odd
/// as the server (RFC 8832 §6). Text arrives as bytes: whoever reads it decodes UTF-8 and refuses what is not.
public final class DataChannels {
    public typealias ChannelID = UInt16

    public struct Configuration: Sendable {
        public var isDtlsClient: Bool
        public var sctp = SctpAssociation.Configuration()
        /// The peer's `a=max-message-size` (RFC 8841 §6): 0 means no limit; absent, 64 KiB.
        public var remoteMaxMessageSize = 65_536
        /// Channels open at once, ours and the peer's together.
        public var maxChannels = 64

        public init(isDtlsClient: Bool) { self.isDtlsClient = isDtlsClient }
    }

    public enum Message: Equatable, Sendable {
        case text([UInt8])
        case binary([UInt8])
    }

    public enum Event: Equatable, Sendable {
        /// The association is up; channels opened before it now reach the peer.
        case connected
        case opened(ChannelID, label: String, protocol: String)
        case message(ChannelID, Message)
        /// The channel's queued bytes changed (after sending, or as the network took them).
        case buffered(ChannelID, Int)
        case closed(ChannelID)
        case warning(String)
        /// The association ended: every channel is closed.
        case ended(reason: String)
    }

    public struct Output: Sendable {
        public var transmits: [[UInt8]] = []
        public var events: [Event] = []
        public var deadline: TransportTime?
    }

    public enum ChannelError: Error, Equatable, CustomStringConvertible {
        case tooManyChannels, noSuchChannel(ChannelID), tooLarge(Int, limit: Int), transport(String)
        public var description: String {
            switch self {
            case .tooManyChannels: "too many data channels"
            case .noSuchChannel(let id): "no open data channel \(id)"
            case .tooLarge(let n, let limit): "message of \(n) bytes is above the peer's limit of \(limit)"
            case .transport(let why): why
            }
        }
    }

    private struct Channel {
        var label: String
        var opened: Bool
        var closing = false
        var reportedBuffered = 0
    }

    public let configuration: Configuration
    public let association: SctpAssociation
    private var channels: [ChannelID: Channel] = [:]
    private var nextOwnStream: ChannelID

    public init(configuration: Configuration) {
        self.configuration = configuration
        association = SctpAssociation(configuration: configuration.sctp)
        nextOwnStream = configuration.isDtlsClient ? 0 : 1
    }

    public var maxSendSize: Int { configuration.remoteMaxMessageSize == 0 ? Int.max : configuration.remoteMaxMessageSize }
    public var isConnected: Bool { association.state == .established }
    public var openChannels: [ChannelID] { channels.filter { $0.value.opened && !$0.value.closing }.keys.sorted() }
    public func label(of id: ChannelID) -> String? { channels[id]?.label }
    public func bufferedAmount(_ id: ChannelID) -> Int { association.bufferedAmount(stream: id) }

    /// Both ends start the association: browsers do, and the collision is part of the handshake.
    public func start(now: TransportTime) -> Output { translate(association.connect(now: now), now: now) }

    /// Opens an ordered, reliable channel (what SkyRTC uses); usable at once, DCEP needs no round trip first.
    public func open(label: String, protocol proto: String = "", now: TransportTime) throws(ChannelError) -> (ChannelID, Output) {
        guard channels.count < configuration.maxChannels else { throw .tooManyChannels }
        var id = nextOwnStream
        while channels[id] != nil { id &+= 2 }
        guard id < configuration.sctp.streams else { throw .tooManyChannels }
        nextOwnStream = id &+ 2
        let open = DcepMessage.open(channelType: 0, priority: 256, reliability: 0, label: label, protocol: proto)
        do {
            let out = try association.send(stream: id, ppid: DataChannelPPID.dcep, payload: open.encoded(), now: now)
            channels[id] = Channel(label: label, opened: true)
            return (id, translate(out, now: now))
        } catch {
            throw .transport(error.description)
        }
    }

    public func send(_ message: Message, on id: ChannelID, now: TransportTime) throws(ChannelError) -> Output {
        guard let channel = channels[id], channel.opened, !channel.closing else { throw .noSuchChannel(id) }
        let (ppid, payload): (UInt32, [UInt8])
        switch message {
        // RFC 8831 §6.6: an empty message is sent as one zero byte with its own PPID.
        case .text(let b): (ppid, payload) = b.isEmpty ? (DataChannelPPID.emptyString, [0]) : (DataChannelPPID.string, b)
        case .binary(let b): (ppid, payload) = b.isEmpty ? (DataChannelPPID.emptyBinary, [0]) : (DataChannelPPID.binary, b)
        }
        guard payload.count <= maxSendSize else { throw .tooLarge(payload.count, limit: maxSendSize) }
        do {
            return translate(try association.send(stream: id, ppid: ppid, payload: payload, now: now), now: now)
        } catch {
            throw .transport(error.description)
        }
    }

    /// Closes the channel: our outgoing stream is reset once its queued messages are sent (RFC 8831 §6.7).
    public func close(_ id: ChannelID, now: TransportTime) -> Output {
        guard var channel = channels[id], !channel.closing else { return Output() }
        channel.closing = true
        channels[id] = channel
        return translate(association.resetStreams([id], now: now), now: now)
    }

    public func receive(packet: [UInt8], now: TransportTime) -> Output {
        translate(association.receive(packet: packet, now: now), now: now)
    }

    public func handleTimeout(now: TransportTime) -> Output {
        translate(association.handleTimeout(now: now), now: now)
    }

    public func setSendRate(bytesPerSecond: Int?, now: TransportTime) -> Output {
        translate(association.setSendRate(bytesPerSecond: bytesPerSecond, now: now), now: now)
    }

    public func shutdown(now: TransportTime) -> Output { translate(association.shutdown(now: now), now: now) }

    // MARK: - From SCTP events to channel events

    private func translate(_ sctp: SctpAssociation.Output, now: TransportTime) -> Output {
        var out = Output()
        out.transmits = sctp.transmits
        out.deadline = sctp.deadline
        var pending = sctp.events[...]
        while let event = pending.popFirst() {
            switch event {
            case .connected: out.events.append(.connected)
            case .message(let stream, let ppid, let payload):
                let more = deliver(stream: stream, ppid: ppid, payload: payload, now: now, into: &out.events)
                out.transmits += more.transmits
                out.deadline = [out.deadline, more.deadline].compactMap { $0 }.min()
                pending.append(contentsOf: more.events)
            case .incomingStreamsReset(let streams):
                // The peer closed these channels; close our side too (RFC 8831 §6.7).
                var ours: [UInt16] = []
                for s in streams {
                    guard var channel = channels[s] else { continue }
                    if !channel.closing { ours.append(s) }
                    channel.closing = true
                    channels[s] = channel
                    channels.removeValue(forKey: s)
                    out.events.append(.closed(s))
                }
                if !ours.isEmpty {
                    let more = association.resetStreams(ours, now: now)
                    out.transmits += more.transmits
                    out.deadline = [out.deadline, more.deadline].compactMap { $0 }.min()
                    pending.append(contentsOf: more.events)
                }
            case .outgoingStreamsReset(let streams):
                for s in streams where channels.removeValue(forKey: s) != nil { out.events.append(.closed(s)) }
            case .warning(let why): out.events.append(.warning(why))
            case .closed(let reason):
                for id in channels.keys.sorted() { out.events.append(.closed(id)) }
                channels.removeAll()
                out.events.append(.ended(reason: reason))
            }
        }
        for (id, channel) in channels where channel.opened {
            let now = association.bufferedAmount(stream: id)
            if now != channel.reportedBuffered {
                channels[id]?.reportedBuffered = now
                out.events.append(.buffered(id, now))
            }
        }
        return out
    }

    private func deliver(stream: UInt16, ppid: UInt32, payload: [UInt8], now: TransportTime,
                         into events: inout [Event]) -> SctpAssociation.Output {
        switch ppid {
        case DataChannelPPID.dcep:
            return control(stream: stream, payload: payload, now: now, into: &events)
        case DataChannelPPID.string, DataChannelPPID.binary, DataChannelPPID.emptyString, DataChannelPPID.emptyBinary:
            guard let channel = channels[stream], channel.opened, !channel.closing else {
                events.append(.warning("message on stream \(stream) without an open channel dropped"))
                return SctpAssociation.Output()
            }
            switch ppid {
            case DataChannelPPID.string: events.append(.message(stream, .text(payload)))
            case DataChannelPPID.binary: events.append(.message(stream, .binary(payload)))
            case DataChannelPPID.emptyString: events.append(.message(stream, .text([])))
            default: events.append(.message(stream, .binary([])))
            }
        default:
            // 52 and 54 (the deprecated partial messages) and anything unknown.
            events.append(.warning("message with PPID \(ppid) on stream \(stream) dropped"))
        }
        return SctpAssociation.Output()
    }

    private func control(stream: UInt16, payload: [UInt8], now: TransportTime, into events: inout [Event]) -> SctpAssociation.Output {
        switch DcepMessage.parse(payload) {
        case .open(_, _, _, let label, let proto):
            // RFC 8832 §6 gives each side a parity, so that two OPENs never meet on one stream. Janus 1.1.2 takes the
            // lowest free stream whatever its role (its relayed channels land on ours): a free stream of our parity is
            // accepted too, and `open` skips streams in use, so nothing collides.
            guard channels[stream] == nil else {
                events.append(.warning("DATA_CHANNEL_OPEN for open stream \(stream) ignored"))
                return SctpAssociation.Output()
            }
            guard channels.count < configuration.maxChannels else {
                events.append(.warning("DATA_CHANNEL_OPEN refused: \(configuration.maxChannels) channels already"))
                return association.resetStreams([stream], now: now)
            }
            let cleanLabel = String(label.unicodeScalars.prefix(256).map(Character.init))
            channels[stream] = Channel(label: cleanLabel, opened: true)
            events.append(.opened(stream, label: cleanLabel, protocol: String(proto.prefix(256))))
            return (try? association.send(stream: stream, ppid: DataChannelPPID.dcep, payload: DcepMessage.ack.encoded(), now: now))
                ?? SctpAssociation.Output()
        case .ack:
            return SctpAssociation.Output()
        case nil:
            events.append(.warning("malformed DCEP message on stream \(stream) dropped"))
            return SctpAssociation.Output()
        }
    }
}

extension SctpAssociation.Output {
    /// The packets of an association output with no channel events (an ABORT on the way out).
    public var asChannels: DataChannels.Output {
        var o = DataChannels.Output()
        o.transmits = transmits
        o.deadline = deadline
        return o
    }
}
