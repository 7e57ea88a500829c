import Foundation

/// The sending side of SkyRTC file transfers, sans-IO: the user's offers, the peers' answers and each
/// channel's buffered amount go in; `ask` and `chunk` messages come out. Chunks leave only while the channel
/// holds less than `lowWaterMark` bytes, so a transfer runs as fast as the channel drains instead of the
/// original's fixed 1,000 characters every 10 ms (100 KB/s at best), and never queues a file in memory.
public struct OutgoingFileTransfers {
    public struct Configuration: Sendable, Equatable {
        /// The peer's max message size when it has not said (RFC 8841 §6: 64 KiB is the default to assume).
        public var maxMessageSize = 64 * 1024
        /// Characters of the data URL per chunk at most: large enough to amortise the JSON around it,
        /// small enough that chat interleaves between chunks without waiting long.
        public var maxChunkCharacters = 64 * 1024
        /// Chunks are sent while the channel's buffered amount is below this.
        public var lowWaterMark = 256 * 1024
        /// Bytes read from the file at a time: a multiple of 3, so each block's base64 joins the next cleanly.
        public var readBlock = 48 * 1024

        public init() {}
    }

    public enum Effect: Equatable, Sendable {
        case send(SkyRTCPeerMessage, to: SocketID)
        /// Percent of the data URL sent, 0-99 (whole numbers), after each chunk that is not the last.
        case progress(FileTransferID, percent: Int)
        case completed(FileTransferID)
        /// The transfer ended without completing: refused, the peer left, or the file could not be read.
        case ended(FileTransferID, reason: String)
    }

    /// The data URL's header for any file: the receiver keeps the name, so the type adds nothing.
    public static let dataURLHeader = "data:application/octet-stream;base64,"
    /// Bytes of JSON around a chunk's data: the keys, a 64-character id, `"percent":100`; rounded up.
    static let chunkOverhead = 256

    private struct Transfer {
        let source: any FileSource
        let size: Int64
        let totalCharacters: Int64
        var accepted = false
        var read: Int64 = 0
        var pending: [UInt8] = Array(OutgoingFileTransfers.dataURLHeader.utf8)
        var sentCharacters: Int64 = 0
    }

    public let configuration: Configuration
    private var transfers: [FileTransferID: Transfer] = [:]
    private var order: [FileTransferID] = []
    /// Per peer: the buffered amount last reported plus what was sent since.
    private var buffered: [SocketID: Int] = [:]
    private var maxMessageSizes: [SocketID: Int] = [:]

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    public var count: Int { transfers.count }

    /// Offers `source` (`size` bytes, shown as `name`) to each peer under a fresh id. The name is reduced to
    /// a safe base name here too: a path would tell the peers about this machine's directories.
    public mutating func offer(_ source: any FileSource, name: String, size: Int64, to peers: [SocketID],
                               random: inout some RandomNumberGenerator) -> [Effect] {
        guard (0...SkyRTCPeerMessage.maxFileSize).contains(size) else { return [] }
        let shown = SafeFileName.sanitize(name)
        // The data URL is the header plus 4 characters per started 3 bytes; size ≤ 2^53 keeps it in range.
        let total = Int64(Self.dataURLHeader.utf8.count) + (size + 2) / 3 * 4
        var effects: [Effect] = []
        for peer in peers {
            var id = FileTransferID(peer: peer, sendId: FileSendID.random(using: &random))
            while transfers[id] != nil { id = FileTransferID(peer: peer, sendId: FileSendID.random(using: &random)) }
            transfers[id] = Transfer(source: source, size: size, totalCharacters: total)
            order.append(id)
            effects.append(.send(.file(.ask(sendId: id.sendId, name: shown, size: size)), to: peer))
        }
        return effects
    }

    /// A peer's answer: `accept` starts sending, `refuse` ends the transfer (before or during it).
    public mutating func receive(_ signal: SkyRTCFileSignal, from peer: SocketID) -> [Effect] {
        let id = FileTransferID(peer: peer, sendId: signal.sendId)
        guard let transfer = transfers[id] else { return [] }
        switch signal {
        case .accept:
            guard !transfer.accepted else { return [] }
            transfers[id]?.accepted = true
            return pump(peer)
        case .refuse:
            forget(id)
            return [.ended(id, reason: transfer.accepted ? "the peer stopped the transfer" : "the peer refused the file")]
        case .ask, .chunk:
            return []
        }
    }

    /// The channel to `peer` now holds `bytes` unsent; sends what fits below the low-water mark.
    public mutating func bufferedAmount(_ peer: SocketID, _ bytes: Int) -> [Effect] {
        buffered[peer] = max(0, bytes)
        return pump(peer)
    }

    /// The max message size negotiated with `peer` (its SDP's a=max-message-size; 0 means no limit).
    public mutating func maxMessageSize(_ peer: SocketID, _ bytes: Int) {
        maxMessageSizes[peer] = bytes
    }

    public mutating func peerLeft(_ peer: SocketID) -> [Effect] {
        buffered[peer] = nil
        maxMessageSizes[peer] = nil
        let ids = order
        return ids.filter { $0.peer == peer }.map { id in
            forget(id)
            return .ended(id, reason: "the peer left")
        }
    }

    /// Characters of data per chunk to `peer`: what its max message size leaves after the JSON, capped.
    func chunkCharacters(for peer: SocketID) -> Int {
        var limit = maxMessageSizes[peer] ?? configuration.maxMessageSize
        if limit <= 0 { limit = Int.max }
        let room = limit > Self.chunkOverhead ? limit - Self.chunkOverhead : 1
        return max(1, min(room, configuration.maxChunkCharacters))
    }

    private mutating func pump(_ peer: SocketID) -> [Effect] {
        var effects: [Effect] = []
        while buffered[peer, default: 0] < configuration.lowWaterMark,
              let id = order.first(where: { $0.peer == peer && transfers[$0]?.accepted == true }) {
            effects += sendChunk(id)
        }
        return effects
    }

    /// Sends the next chunk of `id`, reading as much of the file as it needs.
    private mutating func sendChunk(_ id: FileTransferID) -> [Effect] {
        guard var transfer = transfers[id] else { return [] }
        let want = chunkCharacters(for: id.peer)
        while transfer.pending.count < want && transfer.read < transfer.size {
            let count = Int(min(Int64(configuration.readBlock), transfer.size - transfer.read))
            let block: [UInt8]
            do { block = try transfer.source.read(at: transfer.read, count: count) } catch {
                forget(id)
                return [.ended(id, reason: "cannot read the file: \(error.reason)")]
            }
            guard block.count == count else {
                forget(id)
                return [.ended(id, reason: "the file is shorter than the \(transfer.size) bytes offered")]
            }
            transfer.read += Int64(count)
            transfer.pending += Array(Data(block).base64EncodedString().utf8)
        }
        let take = min(want, transfer.pending.count)
        let data = String(decoding: transfer.pending[..<take], as: UTF8.self)
        transfer.pending.removeFirst(take)
        transfer.sentCharacters += Int64(take)
        let last = transfer.read == transfer.size && transfer.pending.isEmpty
        // sentCharacters < totalCharacters on a chunk that is not the last; the cap keeps Double's rounding of
        // a file of petabytes from saying 100 before the end.
        let percent = last ? nil : min(99, Int(Double(transfer.sentCharacters) * 100 / Double(transfer.totalCharacters)))
        let message = SkyRTCPeerMessage.file(.chunk(sendId: id.sendId, data: data, last: last, percent: percent.map(Double.init)))
        buffered[id.peer, default: 0] += message.jsonBytes.count
        var effects: [Effect] = [.send(message, to: id.peer)]
        if last {
            forget(id)
            effects.append(.completed(id))
        } else {
            transfers[id] = transfer
            effects.append(.progress(id, percent: percent ?? 0))
        }
        return effects
    }

    private mutating func forget(_ id: FileTransferID) {
        transfers[id] = nil
        order.removeAll { $0 == id }
    }
}
