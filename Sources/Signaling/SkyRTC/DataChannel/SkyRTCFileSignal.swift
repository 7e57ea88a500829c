/// One `__file` message of the SkyRTC data-channel sub-protocol, after its fields were checked.
public enum SkyRTCFileSignal: Equatable, Sendable {
    /// The sender offers a file; `name` is as the sender wrote it (at most 255 bytes), not yet made safe.
    case ask(sendId: FileSendID, name: String, size: Int64)
    case accept(sendId: FileSendID)
    case refuse(sendId: FileSendID)
    /// The next slice of the file's base64 data URL. The original sends `percent` (0-100, possibly a fraction)
    /// only on chunks that are not the last.
    case chunk(sendId: FileSendID, data: String, last: Bool, percent: Double?)

    public var sendId: FileSendID {
        switch self {
        case .ask(let id, _, _), .accept(let id), .refuse(let id), .chunk(let id, _, _, _): return id
        }
    }
}
