/// Why a data-channel message was dropped instead of shown or acted on.
public enum SkyRTCPeerMessageError: Error, Equatable, Sendable {
    /// Longer than the receiver's max message size (the byte count, then the limit).
    case tooLarge(Int, limit: Int)
    /// A text message must be UTF-8.
    case notUTF8
    /// A `__file` message whose named field is missing, of the wrong type or out of its bounds.
    case badField(String)
    /// A `__file` signal this side does not act on: `close` (reserved by the original, never sent) or unknown.
    case ignoredSignal(String)
}
