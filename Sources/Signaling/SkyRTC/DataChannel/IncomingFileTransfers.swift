/// The receiving side of SkyRTC file transfers, sans-IO: parsed `__file` messages, the user's answers and
/// `now` go in; messages to send, notices and progress come out. Bytes go to an injected `FileSink` as they
/// are decoded, so a file never sits in memory whole.
public struct IncomingFileTransfers {
    public typealias OfferID = FileTransferID

    public enum Effect: Equatable, Sendable {
        /// A data-channel message for `peer`.
        case send(SkyRTCPeerMessage, to: SocketID)
        /// A new offer waiting for the user; `name` is already safe to show and to create.
        case offered(OfferID, name: String, size: Int64)
        case progress(OfferID, received: Int64, size: Int64)
        case completed(OfferID, path: String)
        /// The transfer ended without a file (any partial file is gone), or an offer was refused unasked.
        case failed(OfferID, reason: String)
    }

    private struct Transfer {
        let name: String
        let size: Int64
        var handle: FileSinkHandle?
        var decoder = DataURLStreamDecoder()
        var received: Int64 = 0
        var lastActivity: MonotonicInstant
        var reportedPercent: Int64 = 0
        var reportedAt: MonotonicInstant
    }

    public let limits: FileTransferLimits
    private let sink: any FileSink
    private var transfers: [OfferID: Transfer] = [:]
    /// Offers in arrival order, so the stall check and tests see a stable order.
    private var order: [OfferID] = []

    public init(sink: any FileSink, limits: FileTransferLimits = FileTransferLimits()) {
        self.sink = sink
        self.limits = limits
    }

    /// Offers pending or being received.
    public var count: Int { transfers.count }

    /// A `__file` message from `peer`. `accept` and `refuse` are for the sending side and are ignored here.
    public mutating func receive(_ signal: SkyRTCFileSignal, from peer: SocketID, now: MonotonicInstant) -> [Effect] {
        switch signal {
        case .ask(let sendId, let offered, let size):
            return ask(OfferID(peer: peer, sendId: sendId), name: offered, size: size, now: now)
        case .chunk(let sendId, let data, let last, _):
            return chunk(OfferID(peer: peer, sendId: sendId), data: data, last: last, now: now)
        case .accept, .refuse:
            return []
        }
    }

    private mutating func ask(_ id: OfferID, name offered: String, size: Int64, now: MonotonicInstant) -> [Effect] {
        // A repeated id would let a peer replace a transfer the user already accepted.
        guard transfers[id] == nil else { return [] }
        let refuse = Effect.send(.file(.refuse(sendId: id.sendId)), to: id.peer)
        let fromPeer = transfers.keys.count { $0.peer == id.peer }
        if fromPeer >= limits.maxPerPeer || transfers.count >= limits.maxTotal {
            return [refuse, .failed(id, reason: "refused: too many file offers at once (\(limits.maxPerPeer) a peer, \(limits.maxTotal) in all)")]
        }
        if size > limits.maxFileSize {
            return [refuse, .failed(id, reason: "refused: \(size) bytes is over the \(limits.maxFileSize)-byte limit")]
        }
        let name = SafeFileName.sanitize(offered)
        transfers[id] = Transfer(name: name, size: size, lastActivity: now, reportedAt: now)
        order.append(id)
        return [.offered(id, name: name, size: size)]
    }

    /// The user takes the offer: the file is created (under a free numbered name) and the peer told to send.
    public mutating func accept(_ id: OfferID, now: MonotonicInstant) -> [Effect] {
        guard var transfer = transfers[id], transfer.handle == nil else { return [] }
        var handle: FileSinkHandle?
        var failure = "no free name for \(transfer.name) after \(SafeFileName.maxAttempts) tries"
        for attempt in 0..<SafeFileName.maxAttempts {
            do {
                handle = try sink.create(name: SafeFileName.numbered(transfer.name, attempt: attempt))
                break
            } catch .exists {
                continue
            } catch {
                failure = "cannot create \(transfer.name): \(error)"
                break
            }
        }
        guard let handle else {
            forget(id)
            return [.send(.file(.refuse(sendId: id.sendId)), to: id.peer), .failed(id, reason: failure)]
        }
        transfer.handle = handle
        transfer.lastActivity = now
        transfer.reportedAt = now
        transfers[id] = transfer
        return [.send(.file(.accept(sendId: id.sendId)), to: id.peer)]
    }

    /// The user declines the offer (or cancels a transfer under way, whose partial file is removed).
    public mutating func refuse(_ id: OfferID) -> [Effect] {
        guard let transfer = transfers[id] else { return [] }
        if let handle = transfer.handle { sink.remove(handle) }
        forget(id)
        return [.send(.file(.refuse(sendId: id.sendId)), to: id.peer)]
    }

    private mutating func chunk(_ id: OfferID, data: String, last: Bool, now: MonotonicInstant) -> [Effect] {
        // Chunks of an offer not accepted (or unknown) are dropped: nothing was asked for.
        guard var transfer = transfers[id], let handle = transfer.handle else { return [] }
        var bytes: [UInt8] = []
        do {
            try transfer.decoder.decode(data.utf8, into: &bytes)
            if last { try transfer.decoder.finish(into: &bytes) }
        } catch {
            return fail(id, reason: "the peer sent a malformed file (\(error))", tellPeer: true)
        }
        let limit = min(transfer.size, limits.maxFileSize)
        let (total, overflow) = transfer.received.addingReportingOverflow(Int64(bytes.count))
        guard !overflow, total <= limit else {
            return fail(id, reason: "the peer sent more than the \(limit) bytes offered", tellPeer: true)
        }
        if !bytes.isEmpty {
            do { try sink.append(bytes, to: handle) } catch {
                return fail(id, reason: "cannot write \(transfer.name): \(error)", tellPeer: true)
            }
        }
        transfer.received = total
        transfer.lastActivity = now
        if last {
            guard total == transfer.size else {
                return fail(id, reason: "the peer ended the file at \(total) of \(transfer.size) bytes", tellPeer: false)
            }
            forget(id)
            do { return [.completed(id, path: try sink.finish(handle))] } catch {
                sink.remove(handle)
                return [.failed(id, reason: "cannot finish \(transfer.name): \(error)")]
            }
        }
        var effects: [Effect] = []
        // total ≤ size ≤ 2^53, so total * 100 fits in Int64.
        let percent = transfer.size == 0 ? 100 : total * 100 / transfer.size
        if percent > transfer.reportedPercent || now - transfer.reportedAt >= limits.progressInterval {
            transfer.reportedPercent = percent
            transfer.reportedAt = now
            effects.append(.progress(id, received: total, size: transfer.size))
        }
        transfers[id] = transfer
        return effects
    }

    /// The peer is gone: its offers are dropped and its partial files removed.
    public mutating func peerLeft(_ peer: SocketID) -> [Effect] {
        let ids = order
        return ids.filter { $0.peer == peer }.flatMap { id -> [Effect] in
            guard transfers[id]?.handle != nil else {
                forget(id)
                return [.failed(id, reason: "the peer left before the file was accepted")]
            }
            return fail(id, reason: "the peer left during the transfer", tellPeer: false)
        }
    }

    /// Fails transfers that had no chunk for `limits.stallTimeout`; call it now and then (once a second).
    public mutating func tick(now: MonotonicInstant) -> [Effect] {
        let ids = order
        return ids.flatMap { id -> [Effect] in
            guard let transfer = transfers[id], transfer.handle != nil,
                  now - transfer.lastActivity >= limits.stallTimeout else { return [] }
            return fail(id, reason: "no data for \(Int(limits.stallTimeout)) s", tellPeer: true)
        }
    }

    /// Removes the partial file; a `refuse` tells a sender still sending to stop (the original sender drops a
    /// transfer on `refuse` whatever its state).
    private mutating func fail(_ id: OfferID, reason: String, tellPeer: Bool) -> [Effect] {
        if let handle = transfers[id]?.handle { sink.remove(handle) }
        forget(id)
        let failed = Effect.failed(id, reason: reason)
        return tellPeer ? [.send(.file(.refuse(sendId: id.sendId)), to: id.peer), failed] : [failed]
    }

    private mutating func forget(_ id: OfferID) {
        transfers[id] = nil
        order.removeAll { $0 == id }
    }
}
