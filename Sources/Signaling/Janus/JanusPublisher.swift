/// A publisher in the room as Janus lists it (`joined`'s `publishers[]`, later `publishers` events).
struct JanusPublisher: Equatable {
    struct Stream: Equatable {
        var kind: JanusMediaKind
        var mid: String
        /// `disabled: true`: the publisher's offer made this section inactive (or recvonly).
        var disabled: Bool
        /// `moderated: true`: the room's admin muted it (`moderate`); Janus drops its media.
        var moderated = false
        /// `description`, when well-formed (`JanusMediaDescription.checked`): conftui says mute and video off here.
        var description: String? = nil

        /// Media flows: not disabled, not moderated, and the description does not say muted or off.
        var sending: Bool { !disabled && !moderated && !JanusMediaDescription.saysNotSending(description, kind: kind) }
    }

    var feed: UInt64
    var display: String?
    var streams: [Stream]

    /// "disabled: if true, it means this stream is currently inactive/disabled" (janus_videoroom.c).
    var audioSending: Bool { streams.contains { $0.kind == .audio && $0.sending } }
    var videoSending: Bool { streams.contains { $0.kind == .video && $0.sending } }
    /// Something a subscription would carry ("if a publisher stream is marked as disabled and you try to subscribe
    /// to it, it will be skipped silently"); a moderated stream is still subscribed, for when it is unmuted.
    var hasMedia: Bool { streams.contains { $0.kind != .data && !$0.disabled } }

    /// One entry, checked; `dummy` publishers (placeholders a room may hold) are not participants. A description
    /// that fails its check is ignored (the stream stays, `notes` says why): it is a label, not the media.
    static func parse(_ value: JSONValue, limits: JanusLimits, notes: inout [String]) throws(JanusDropped) -> JanusPublisher? {
        guard case .object = value else { throw JanusDropped("a publisher is not an object") }
        let feed = try JanusChecked.id(value["id"], "publisher id")
        if JanusChecked.bool(value["dummy"]) == true { return nil }
        let display = try JanusChecked.optionalText(value["display"], "display", maxBytes: limits.maxDisplayBytes)
        var streams: [Stream] = []
        var ignored = 0
        if value["streams"] != nil {
            for item in try JanusChecked.array(value["streams"], "streams", maxCount: limits.maxStreamsPerMessage) {
                let type = try JanusChecked.text(item["type"], "stream type", maxBytes: 16)
                // A kind this client does not know is no media it would show.
                guard let kind = JanusMediaKind(rawValue: type) else { continue }
                let mid = try JanusChecked.text(item["mid"], "stream mid", maxBytes: limits.maxMidBytes)
                let (description, problem) = JanusMediaDescription.checked(item["description"], maxBytes: limits.maxDescriptionBytes)
                if let problem {
                    ignored += 1
                    // One line per publisher entry, whatever the count: 64 publishers of 72 streams is no log.
                    if ignored == 1 {
                        notes.append("ignored the description of publisher \(feed)'s mid \(JanusChecked.shown(mid, maxBytes: 64)): it \(problem)")
                    }
                }
                streams.append(Stream(kind: kind, mid: mid, disabled: JanusChecked.bool(item["disabled"]) ?? false,
                                      moderated: JanusChecked.bool(item["moderated"]) ?? false, description: description))
            }
        }
        if ignored > 1 { notes.append("ignored \(ignored - 1) more descriptions of publisher \(feed)") }
        return JanusPublisher(feed: feed, display: display, streams: streams)
    }
}
