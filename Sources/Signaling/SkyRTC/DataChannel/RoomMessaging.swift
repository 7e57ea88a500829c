/// Chat and files for a whole room, sans-IO: the layer between "the channel to peer X is open, delivered this
/// text, drained to this many buffered bytes" and what the room shows and reports. It owns the two file-transfer
/// cores, checks every message a peer sends before anything acts on it, and keeps every table bounded
/// (`Configuration`). No threads, no clock, no I/O but the injected `FileSink` and file opener: a call driver
/// and the terminal UI feed it inputs with `now` and carry out the effects it returns.
public struct RoomMessaging {
    public enum Input: Sendable, Equatable {
        /// The data channel to a peer is open: chat and offers now go to it.
        case channelOpened(SocketID)
        /// The channel is gone: its transfers fail and their partial files are removed.
        case channelClosed(SocketID)
        /// A text message, already decoded by the caller.
        case received(SocketID, text: String)
        /// A text message as raw bytes, decoded here as strict UTF-8 (invalid ones are dropped).
        case receivedBytes(SocketID, [UInt8])
        /// A binary message: the sub-protocol is text only, so it is dropped with a log line.
        case receivedBinary(SocketID, count: Int)
        /// The channel's bytes queued but not yet sent, whenever it changes (above all when it drains).
        case bufferedAmount(SocketID, Int)
        /// The peer's max message size (its SDP's a=max-message-size; 0 means no limit).
        case maxMessageSize(SocketID, Int)
        /// Chat to every open channel.
        case say(String)
        /// Offers the file at `path` to every open channel.
        case sendFile(path: String)
        /// The user takes a file a peer offered.
        case accept(FileTransferID)
        /// The user declines an offer, or cancels a file being received.
        case refuse(FileTransferID)
        /// The deadline of the last output has passed.
        case timer
    }

    /// Which side of a transfer an event is about: a peer's id and its `sendId` may name one transfer each way.
    public enum Direction: Sendable, Equatable { case incoming, outgoing }

    public enum Effect: Sendable, Equatable {
        /// A text message for the channel to the peer.
        case send(SocketID, text: String)
        /// Chat from a peer, exactly as sent (unknown message types show their `data`, like the original client).
        /// Untrusted text: the screen cleans it (RoomModel's SafeText), the report escapes it (`escapedForReport`).
        case chat(from: SocketID, text: String, at: MonotonicInstant)
        /// What `.say` sent, and to whom.
        case chatSent(String, to: [SocketID])
        /// A peer offers a file; `name` is already a safe base name (`SafeFileName`).
        case offered(FileTransferID, from: SocketID, name: String, size: Int64)
        /// This side offered a file to a peer (one transfer per peer).
        case offerSent(FileTransferID, name: String, size: Int64)
        /// Bytes received, or about that many sent (the sender counts in percent), of `size`.
        case progress(FileTransferID, Direction, bytes: Int64, size: Int64)
        /// A file arrived whole; `sha256` is of the bytes written (lowercase hex).
        case fileReceived(FileTransferID, path: String, size: Int64, sha256: String)
        /// A file went out whole; `sha256` is of the bytes read, nil if they were not read in order.
        case fileSent(FileTransferID, name: String, size: Int64, sha256: String?)
        /// An offer declined: by the peer (`.outgoing`) or by this side (`.incoming`, the user or the policy).
        case fileRefused(FileTransferID, Direction)
        /// A transfer ended without a file; any partial file is removed.
        case fileFailed(FileTransferID, Direction, reason: String)
        /// Something for the user: nobody to send to, an offer refused by the limits, a channel not tracked.
        case notice(String)
        /// For the log: every message dropped, with its reason.
        case log(String)
    }

    public struct Output: Sendable, Equatable {
        public var effects: [Effect]
        /// When to feed `.timer` (nil: no need). Transfers being received are checked for stalls once a second.
        public var deadline: MonotonicInstant?

        public init(effects: [Effect] = [], deadline: MonotonicInstant? = nil) {
            self.effects = effects
            self.deadline = deadline
        }
    }

    /// Opens a file to send: its source and its size now, which the offer announces.
    public typealias FileOpener = (String) throws(FileSourceError) -> (source: any FileSource, size: Int64)

    /// `DiskFileSource`, the program's opener.
    public static func openDiskFile(_ path: String) throws(FileSourceError) -> (source: any FileSource, size: Int64) {
        let source = try DiskFileSource(path: path)
        return (source, source.size)
    }

    private struct Channel {
        var limiter: MessageRateLimiter
        var logLimiter: MessageRateLimiter
        /// What the peer takes in one message, when it said.
        var maxMessageSize: Int?
    }

    private struct IncomingInfo {
        let name: String
        let size: Int64
        var accepted = false
    }

    private struct OutgoingInfo {
        let name: String
        let size: Int64
        let source: HashingFileSource
        var accepted = false
    }

    private enum Repeated {
        case text(String)
        case file(source: any FileSource, name: String, size: Int64)
    }

    public let configuration: Configuration
    private let sink: HashingFileSink
    private let openFile: FileOpener
    private var random: any RandomNumberGenerator
    private var incoming: IncomingFileTransfers
    private var outgoing: OutgoingFileTransfers
    /// At most `maxChannels` entries; `channelOrder` keeps the order they opened in, so sends are in a stable order.
    private var channels: [SocketID: Channel] = [:]
    private var channelOrder: [SocketID] = []
    /// At most `limits.maxTotal` entries (what `IncomingFileTransfers` holds).
    private var incomingInfo: [FileTransferID: IncomingInfo] = [:]
    /// At most `maxOutgoingTransfers` entries.
    private var outgoingInfo: [FileTransferID: OutgoingInfo] = [:]
    /// At most `maxRepeated` entries.
    private var repeated: [Repeated] = []

    /// A core writing accepted files through `sink` and opening files to send with `openFile`; `random` makes
    /// the ids of this side's offers.
    public init(configuration: Configuration = Configuration(), sink: any FileSink,
                openFile: @escaping FileOpener = RoomMessaging.openDiskFile,
                random: some RandomNumberGenerator = SystemRandomNumberGenerator()) {
        self.configuration = configuration
        self.sink = HashingFileSink(sink)
        self.openFile = openFile
        self.random = random
        incoming = IncomingFileTransfers(sink: self.sink, limits: configuration.limits)
        outgoing = OutgoingFileTransfers(configuration: configuration.outgoing)
    }

    /// The program's core: files go to `configuration.downloadDirectory`, made when the first file is accepted
    /// (never under a policy that refuses every file).
    public init(configuration: Configuration) {
        let sink: any FileSink = configuration.filePolicy == .refuseAll
            ? NoFileSink() : DeferredDiskFileSink(directory: configuration.downloadDirectory)
        self.init(configuration: configuration, sink: sink)
    }

    /// Channels open and tracked.
    public var openChannels: [SocketID] { channelOrder }

    public mutating func handle(_ input: Input, now: MonotonicInstant) -> Output {
        var effects: [Effect] = []
        switch input {
        case .channelOpened(let peer): effects = channelOpened(peer)
        case .channelClosed(let peer): effects = channelClosed(peer)
        case .received(let peer, let text):
            // Counted before copied: a message over the limit is refused without holding a second copy of it.
            effects = received(peer, count: text.utf8.count, bytes: { Array(text.utf8) }, now: now)
        case .receivedBytes(let peer, let bytes): effects = received(peer, count: bytes.count, bytes: { bytes }, now: now)
        case .receivedBinary(let peer, let count):
            effects = [.log("dropped a binary message of \(max(0, count)) bytes from \(peer): the chat and file sub-protocol is text only")]
        case .bufferedAmount(let peer, let bytes):
            if channels[peer] != nil { effects = mapOutgoing(outgoing.bufferedAmount(peer, max(0, bytes))) }
        case .maxMessageSize(let peer, let bytes):
            if channels[peer] != nil, bytes >= 0 {
                channels[peer]?.maxMessageSize = bytes
                outgoing.maxMessageSize(peer, bytes)
            }
        case .say(let text): effects = say(text)
        case .sendFile(let path): effects = sendFile(path)
        case .accept(let id): effects = accept(id, now: now)
        case .refuse(let id): effects = refuse(id)
        case .timer: effects = mapIncoming(incoming.tick(now: now), now: now)
        }
        // Only transfers under way can stall; pending offers wait for the user without a time limit.
        let receiving = incomingInfo.values.contains { $0.accepted }
        return Output(effects: effects, deadline: receiving ? now + 1 : nil)
    }

    // MARK: Channels

    private mutating func channelOpened(_ peer: SocketID) -> [Effect] {
        guard channels[peer] == nil else { return [] }
        guard channels.count < configuration.maxChannels else {
            let text = "not tracking the channel to \(peer): already \(configuration.maxChannels) channels open"
            return [.notice(text), .log(text)]
        }
        channels[peer] = Channel(limiter: MessageRateLimiter(limit: configuration.maxMessagesPerSecond),
                                 logLimiter: MessageRateLimiter(limit: configuration.maxLogLinesPerSecond))
        channelOrder.append(peer)
        guard configuration.repeatToNewChannels else { return [] }
        var effects: [Effect] = []
        for item in repeated {
            switch item {
            case .text(let text):
                effects += sendChat(text, to: [peer])
            case .file(let source, let name, let size):
                effects += offer(source, name: name, size: size, to: [peer])
            }
        }
        return effects
    }

    private mutating func channelClosed(_ peer: SocketID) -> [Effect] {
        guard channels.removeValue(forKey: peer) != nil else { return [] }
        channelOrder.removeAll { $0 == peer }
        return mapIncoming(incoming.peerLeft(peer), now: nil) + mapOutgoing(outgoing.peerLeft(peer))
    }

    // MARK: Receiving

    /// Why a message is dropped before it is acted on, or the message.
    private enum Checked {
        case dropped(String)
        case message(SkyRTCPeerMessage)
    }

    /// What a message does, its log lines bounded per peer (`maxLogLinesPerSecond`): a peer sending junk as fast
    /// as the message limit allows must not turn into as many lines in the log.
    private mutating func received(_ peer: SocketID, count: Int, bytes: () -> [UInt8], now: MonotonicInstant) -> [Effect] {
        let effects = admitted(peer, count: count, bytes: bytes, now: now)
        guard channels[peer] != nil else { return effects }
        return effects.compactMap { effect in
            guard case .log = effect else { return effect }
            switch channels[peer]!.logLimiter.admit(now: now) {
            case .admitted: return effect
            case .firstDropped:
                return .log("more than \(configuration.maxLogLinesPerSecond) lines about \(peer) this second: the rest are not logged")
            case .dropped: return nil
            }
        }
    }

    private mutating func admitted(_ peer: SocketID, count: Int, bytes: () -> [UInt8], now: MonotonicInstant) -> [Effect] {
        guard channels[peer] != nil else { return [.log("dropped a message from \(peer): its channel is not open (or not tracked)")] }
        let limit = configuration.maxIncomingMessageSize
        let checked = count > limit ? .dropped("\(count) bytes, over the \(limit)-byte max message size") : check(bytes())
        // A chunk of a file this side is receiving is not counted: the limit is for what a peer makes the screen
        // and the log do, and a file's chunks are paced by the channel and bounded by the size accepted.
        var exempt = false
        if case .message(.file(.chunk(let sendId, _, _, _))) = checked {
            exempt = incomingInfo[FileTransferID(peer: peer, sendId: sendId)]?.accepted == true
        }
        if !exempt {
            switch channels[peer]?.limiter.admit(now: now) {
            case .admitted?, nil: break
            case .firstDropped?:
                return [.log("dropping messages from \(peer) for the rest of this second: more than \(configuration.maxMessagesPerSecond) a second")]
            case .dropped?:
                return []
            }
        }
        switch checked {
        case .dropped(let reason):
            return [.log("dropped a message from \(peer): \(reason)")]
        case .message(.chat(let text)):
            return [.chat(from: peer, text: text, at: now)]
        case .message(.file(let signal)):
            return fileSignal(signal, from: peer, now: now)
        }
    }

    /// Every check of a message within the size limit before it means anything: UTF-8, JSON within the codec's
    /// depth, the `__file` fields.
    private func check(_ bytes: [UInt8]) -> Checked {
        guard !bytes.isEmpty else { return .dropped("an empty message") }
        guard let text = String(validating: bytes, as: UTF8.self) else { return .dropped("not UTF-8") }
        // The codec shows text that is not JSON as chat; the original client throws on it, so nothing is shown.
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes, maxDepth: SkyRTCPeerMessage.maxDepth)
        } catch {
            return .dropped("not JSON (\(error.reason) at byte \(error.offset))")
        }
        do {
            return .message(try SkyRTCPeerMessage.interpret(value, text: text))
        } catch {
            switch error {
            case .tooLarge(let n, let limit): return .dropped("\(n) bytes, over the \(limit)-byte max message size")
            case .notUTF8: return .dropped("not UTF-8")
            case .badField(let field): return .dropped("a __file message whose \(field) is missing or out of bounds")
            case .ignoredSignal(let signal):
                return .dropped("a __file signal not acted on (\(Self.escapedForReport(String(signal.prefix(32)))))")
            }
        }
    }

    private mutating func fileSignal(_ signal: SkyRTCFileSignal, from peer: SocketID, now: MonotonicInstant) -> [Effect] {
        let id = FileTransferID(peer: peer, sendId: signal.sendId)
        switch signal {
        case .ask(_, _, let size):
            var effects = mapIncoming(incoming.receive(signal, from: peer, now: now), now: now)
            if effects.isEmpty { return [.log("dropped a message from \(peer): an offer repeating the id \(id.sendId)")] }
            if size > configuration.limits.maxFileSize, incomingInfo[id] == nil {
                effects.append(.notice("refused a file of \(size) bytes from \(peer): over the \(configuration.limits.maxFileSize)-byte limit"))
            }
            return effects
        case .chunk:
            guard let info = incomingInfo[id] else {
                return [.log("dropped a message from \(peer): a chunk of an unknown transfer \(id.sendId)")]
            }
            guard info.accepted else {
                return [.log("dropped a message from \(peer): a chunk of \(id.sendId), an offer not accepted")]
            }
            return mapIncoming(incoming.receive(signal, from: peer, now: now), now: now)
        case .accept:
            guard let info = outgoingInfo[id] else {
                return [.log("dropped a message from \(peer): an accept of an unknown transfer \(id.sendId)")]
            }
            guard !info.accepted else { return [.log("dropped a message from \(peer): a repeated accept of \(id.sendId)")] }
            outgoingInfo[id]?.accepted = true
            return mapOutgoing(outgoing.receive(signal, from: peer))
        case .refuse:
            guard let info = outgoingInfo[id] else {
                return [.log("dropped a message from \(peer): a refuse of an unknown transfer \(id.sendId)")]
            }
            return mapOutgoing(outgoing.receive(signal, from: peer), refused: !info.accepted)
        }
    }

    // MARK: The user

    private mutating func say(_ text: String) -> [Effect] {
        var effects = remember(.text(text))
        if channelOrder.isEmpty {
            effects.append(.notice(configuration.repeatToNewChannels
                ? "nobody to send to yet: each peer gets it when its channel opens" : "nobody to send to yet"))
            return effects
        }
        return effects + sendChat(text, to: channelOrder)
    }

    private mutating func sendChat(_ text: String, to peers: [SocketID]) -> [Effect] {
        let message = SkyRTCPeerMessage.chat(text)
        let bytes = message.jsonBytes.count
        let wire = message.jsonText
        var effects: [Effect] = []
        var sent: [SocketID] = []
        for peer in peers {
            // A message over the peer's max size would be refused by its stack (or tear the channel down).
            let limit = channels[peer]?.maxMessageSize ?? configuration.outgoing.maxMessageSize
            if limit > 0 && bytes > limit {
                effects.append(.notice("not sent to \(peer): \(bytes) bytes, over its \(limit)-byte max message size"))
                continue
            }
            effects.append(.send(peer, text: wire))
            sent.append(peer)
        }
        if !sent.isEmpty { effects.append(.chatSent(text, to: sent)) }
        return effects
    }

    private mutating func sendFile(_ path: String) -> [Effect] {
        guard configuration.repeatToNewChannels || !channelOrder.isEmpty else { return [.notice("nobody to send to yet")] }
        let opened: (source: any FileSource, size: Int64)
        do { opened = try openFile(path) } catch {
            return [.notice("cannot send \(Self.escapedForReport(path)): \(error.reason)")]
        }
        let name = SafeFileName.sanitize(path)
        var effects = remember(.file(source: opened.source, name: name, size: opened.size))
        if channelOrder.isEmpty {
            effects.append(.notice("nobody to send to yet: each peer gets it when its channel opens"))
            return effects
        }
        return effects + offer(opened.source, name: name, size: opened.size, to: channelOrder)
    }

    /// Keeps what `.say` and `.sendFile` sent for channels that open later, when so configured and within bounds.
    private mutating func remember(_ item: Repeated) -> [Effect] {
        guard configuration.repeatToNewChannels else { return [] }
        guard repeated.count < configuration.maxRepeated else {
            return [.notice("not repeated to peers joining later: already \(configuration.maxRepeated) texts and files kept")]
        }
        repeated.append(item)
        return []
    }

    private mutating func offer(_ source: any FileSource, name: String, size: Int64, to peers: [SocketID]) -> [Effect] {
        guard (0...SkyRTCPeerMessage.maxFileSize).contains(size) else { return [.notice("cannot send \(name): \(size) bytes")] }
        var effects: [Effect] = []
        for peer in peers {
            guard outgoingInfo.count < configuration.maxOutgoingTransfers else {
                effects.append(.notice("\(name) not offered to \(peer): already \(configuration.maxOutgoingTransfers) files being offered or sent"))
                continue
            }
            // One source per transfer, so each hashes exactly what its peer is sent.
            let hashing = HashingFileSource(source)
            for effect in outgoing.offer(hashing, name: name, size: size, to: [peer], random: &random) {
                guard case .send(let message, let to) = effect else { continue }
                if case .file(.ask(let sendId, _, _)) = message {
                    let id = FileTransferID(peer: to, sendId: sendId)
                    outgoingInfo[id] = OutgoingInfo(name: name, size: size, source: hashing)
                    effects.append(.send(to, text: message.jsonText))
                    effects.append(.offerSent(id, name: name, size: size))
                }
            }
        }
        return effects
    }

    private mutating func accept(_ id: FileTransferID, now: MonotonicInstant) -> [Effect] {
        guard let info = incomingInfo[id], !info.accepted else { return [.notice("no file offer \(id) waiting")] }
        return mapIncoming(incoming.accept(id, now: now), now: now)
    }

    private mutating func refuse(_ id: FileTransferID) -> [Effect] {
        guard incomingInfo[id] != nil else { return [.notice("no file offer \(id) waiting or being received")] }
        incomingInfo[id] = nil
        return mapIncoming(incoming.refuse(id), now: nil) + [.fileRefused(id, .incoming)]
    }

    // MARK: The cores' effects

    /// `now` is nil where the policy cannot answer an offer (none arrives on a refusal or a peer leaving).
    private mutating func mapIncoming(_ effects: [IncomingFileTransfers.Effect], now: MonotonicInstant?) -> [Effect] {
        var out: [Effect] = []
        for effect in effects {
            switch effect {
            case .send(let message, let peer):
                if case .file(.accept(let sendId)) = message { incomingInfo[FileTransferID(peer: peer, sendId: sendId)]?.accepted = true }
                out.append(.send(peer, text: message.jsonText))
            case .offered(let id, let name, let size):
                incomingInfo[id] = IncomingInfo(name: name, size: size)
                out.append(.offered(id, from: id.peer, name: name, size: size))
                switch configuration.filePolicy {
                case .ask: break
                case .acceptAll:
                    if let now { out += mapIncoming(incoming.accept(id, now: now), now: now) }
                case .refuseAll:
                    incomingInfo[id] = nil
                    out += mapIncoming(incoming.refuse(id), now: nil)
                    out.append(.fileRefused(id, .incoming))
                    out.append(.notice("refused \(name) from \(id.peer): not accepting files"))
                }
            case .progress(let id, let received, let size):
                out.append(.progress(id, .incoming, bytes: received, size: size))
            case .completed(let id, let path):
                let info = incomingInfo.removeValue(forKey: id)
                let digest = sink.takeDigest(path: path) ?? ""
                out.append(.fileReceived(id, path: path, size: info?.size ?? 0, sha256: digest))
            case .failed(let id, let reason):
                if incomingInfo.removeValue(forKey: id) != nil {
                    out.append(.fileFailed(id, .incoming, reason: reason))
                    out.append(.log("file \(id) from \(id.peer) failed: \(reason)"))
                } else {
                    // An offer refused before it was shown (the limits): the peer was told, the log says why.
                    out.append(.log("refused an offer \(id.sendId) from \(id.peer): \(reason)"))
                }
            }
        }
        return out
    }

    /// `refused`: an `.ended` is the peer declining an offer it had not accepted.
    private mutating func mapOutgoing(_ effects: [OutgoingFileTransfers.Effect], refused: Bool = false) -> [Effect] {
        var out: [Effect] = []
        for effect in effects {
            switch effect {
            case .send(let message, let peer):
                out.append(.send(peer, text: message.jsonText))
            case .progress(let id, let percent):
                guard let info = outgoingInfo[id] else { continue }
                // percent ≤ 99 and size ≤ 2^53, so the product fits.
                out.append(.progress(id, .outgoing, bytes: info.size * Int64(min(max(percent, 0), 100)) / 100, size: info.size))
            case .completed(let id):
                guard let info = outgoingInfo.removeValue(forKey: id) else { continue }
                out.append(.fileSent(id, name: info.name, size: info.size, sha256: info.source.digest(size: info.size)))
            case .ended(let id, let reason):
                outgoingInfo[id] = nil
                out.append(refused ? .fileRefused(id, .outgoing) : .fileFailed(id, .outgoing, reason: reason))
            }
        }
        return out
    }
}

/// The sink under `.refuseAll`: nothing is ever accepted, so nothing is created, not even the directory.
private final class NoFileSink: FileSink {
    func create(name: String) throws(FileSinkError) -> FileSinkHandle { throw .failed("not accepting files") }
    func append(_ bytes: [UInt8], to handle: FileSinkHandle) throws(FileSinkError) { throw .failed("not accepting files") }
    func finish(_ handle: FileSinkHandle) throws(FileSinkError) -> String { throw .failed("not accepting files") }
    func remove(_ handle: FileSinkHandle) {}
}
