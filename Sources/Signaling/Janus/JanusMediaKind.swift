/// The media of a published or subscribed stream, as Janus names it (`type`).
public enum JanusMediaKind: String, Sendable, Equatable {
    case audio, video, data
}
