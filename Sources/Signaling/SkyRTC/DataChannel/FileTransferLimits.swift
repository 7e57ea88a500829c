/// The bounds of file transfers over the data channel, each with its reason (docs/chat-and-files.md).
public struct FileTransferLimits: Sendable, Equatable {
    /// `--max-file-size`: the largest file accepted. 1 GiB by default: a file is written as it arrives, so
    /// this bounds the disk a peer can fill, not memory.
    public var maxFileSize: Int64 = 1 << 30
    /// Offers pending or being received from one peer: a peer cannot bury the user's prompt in offers.
    public var maxPerPeer = 4
    /// Offers pending or being received in all: bounds the open files and the state kept for a room.
    public var maxTotal = 16
    /// A transfer with no chunk for this long fails, so a peer cannot hold a file (and a slot) open forever.
    public var stallTimeout: Double = 60
    /// Progress is reported when the percentage moves by a whole point, or after this many seconds.
    public var progressInterval: Double = 0.25

    public init() {}
}
