/// The bounds on what Janus may send, checked before anything acts on a message. A value past one drops the
/// message (or the one entry) with a log line: a Swift trap on network data would be a remote crash.
public struct JanusLimits: Sendable, Equatable {
    /// One text frame from Janus, in bytes. An offer for 72 sections is far below this.
    public var maxMessageBytes = 256 * 1024
    /// JSON nesting. Janus's deepest message (`attached` with simulcast info) nests about 6 levels; metadata
    /// other clients chose may add some.
    public var maxJSONDepth = 32
    /// A publisher's display name, in UTF-8 bytes.
    public var maxDisplayBytes = 256
    /// Publishers in one message (`joined` lists them all; later events one each).
    public var maxPublishersPerMessage = 64
    /// Streams in one publisher entry or one `attached`/`updated` list.
    public var maxStreamsPerMessage = 72
    /// Publishers tracked at once: past this, newcomers are logged and ignored.
    public var maxKnownPublishers = 256
    /// A mid (RFC 8843 allows any token; Janus's are short numbers).
    public var maxMidBytes = 64
    /// A stream's `description` (a label; conftui's mute texts are under 20 bytes). A longer one is ignored.
    public var maxDescriptionBytes = 128
    /// A transaction echoed back (ours are a few bytes: longer ones are not ours).
    public var maxTransactionBytes = 64
    /// An error reason, cut to this before it is shown or logged.
    public var maxReasonBytes = 300

    public init() {}
}
