/// One file offer between this side and one peer. Ids are the sender's choice, so only the pair is unique,
/// and one offer to several peers is one transfer per peer.
public struct FileTransferID: Hashable, Sendable, CustomStringConvertible {
    public let peer: SocketID
    public let sendId: FileSendID

    public init(peer: SocketID, sendId: FileSendID) {
        self.peer = peer
        self.sendId = sendId
    }

    public var description: String { "\(peer)/\(sendId)" }
}
