extension RoomMessaging {
    /// What to do with a file a peer offers.
    public enum FilePolicy: Sendable, Equatable {
        /// Show the offer and wait for `.accept` or `.refuse` (the terminal UI).
        case ask
        /// Take every offer within the limits (the bot with `--accept-files DIR`).
        case acceptAll
        /// Decline every offer at once (the bot without `--accept-files`).
        case refuseAll
    }

    /// The bounds and choices of one room's messaging, each with its reason (docs/chat-and-files.md).
    public struct Configuration: Sendable, Equatable {
        /// Where accepted files go (`--download-dir`, the bot's `--accept-files DIR`); used by the initialiser
        /// that makes a `DiskFileSink`, created 0700 when missing and not at all under `.refuseAll`.
        public var downloadDirectory = "./conftui-downloads"
        /// The receiving side's limits, `--max-file-size` among them.
        public var limits = FileTransferLimits()
        public var filePolicy = FilePolicy.ask
        /// The bot's `--say` and `--send-file`: what was said or offered is also sent to each channel that opens
        /// later. Without it, a peer joining later gets nothing of what was sent before.
        public var repeatToNewChannels = false
        /// Channels tracked at once: twice the server's default room size (32). A channel past it is not
        /// tracked (a notice says so), so a room that floods us with channels costs a bounded table.
        public var maxChannels = 64
        /// Messages a second taken from one peer; past it the rest of the second is dropped with one log line.
        /// Chunks of a file this side accepted do not count: the channel paces them and the offered size
        /// bounds them. 5,000 is far above typing and above what a bot reading a script sends (`--say-lines`
        /// paces itself at 2,000), so no real conversation loses a line, while a flood costs bounded work.
        public var maxMessagesPerSecond = 5_000
        /// Log lines a second about one peer's messages (drops and their reasons); past it one line says the
        /// rest are not logged. A flood of junk costs at most this many lines.
        public var maxLogLinesPerSecond = 20
        /// The largest message taken: the max-message-size conftui announces (256 KiB). Checked before parsing.
        public var maxIncomingMessageSize = SkyRTCPeerMessage.defaultMaxMessageSize
        /// Outgoing transfers (one per file and peer) pending or under way. Peers may never answer an offer,
        /// so without a cap offers would pile up; past it `.sendFile` is declined with a notice.
        public var maxOutgoingTransfers = 256
        /// Texts and files kept for `repeatToNewChannels` (each file keeps its descriptor open); past it a new
        /// `.say` or `.sendFile` is sent to the open channels only, with a notice.
        public var maxRepeated = 16
        /// Chunk size and pacing of the sending side.
        public var outgoing = OutgoingFileTransfers.Configuration()

        public init() {}

        /// `--max-file-size`.
        public var maxFileSize: Int64 {
            get { limits.maxFileSize }
            set { limits.maxFileSize = newValue }
        }
    }
}
