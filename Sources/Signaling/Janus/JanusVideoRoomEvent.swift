/// The VideoRoom plugin's `data` (janus_videoroom.c's API comment), typed and checked. Entries of a publisher
/// list that fail a check are dropped one by one (`notes` says which); anything else bad drops the message.
enum JanusVideoRoomEvent: Equatable {
    /// What a `"videoroom": "event"` carries: several of these may be set at once.
    struct Notice: Equatable {
        var publishers: [JanusPublisher] = []
        /// `unpublished: <id>` (another publisher); `unpublished: "ok"` answers ours.
        var unpublished: UInt64?
        /// `leaving: <id>` (another participant).
        var leaving: UInt64?
        /// `leaving: "ok"`, with `reason: "kicked"` when the room's admin kicked us.
        var weLeft = false
        var weWereKicked = false
        /// `kicked: <id>` (another participant).
        var kicked: UInt64?
        var configured = false
        var started = false
        /// `id` with `display` and nothing else: a participant's new display name.
        var renamed: (feed: UInt64, display: String)?
        /// `id`, `mid` and `moderation: "muted"|"unmuted"`: the admin muted or unmuted one of a publisher's streams.
        var moderation: (feed: UInt64, mid: String, muted: Bool)?

        static func == (a: Notice, b: Notice) -> Bool {
            a.publishers == b.publishers && a.unpublished == b.unpublished && a.leaving == b.leaving && a.weLeft == b.weLeft
                && a.weWereKicked == b.weWereKicked && a.kicked == b.kicked && a.configured == b.configured
                && a.started == b.started && a.renamed?.feed == b.renamed?.feed && a.renamed?.display == b.renamed?.display
                && a.moderation?.feed == b.moderation?.feed && a.moderation?.mid == b.moderation?.mid
                && a.moderation?.muted == b.moderation?.muted
        }
    }

    case joined(feed: UInt64, privateID: UInt64?, publishers: [JanusPublisher])
    case created
    case attached(streams: [JanusSubscriberStream])
    /// nil streams: "your request didn't change anything as far as the SDP negotiation is concerned".
    case updated(streams: [JanusSubscriberStream]?)
    /// "an empty updating event ... to notify the caller that the management of that request has been postponed".
    case updating
    case talking(feed: UInt64, Bool)
    case destroyed
    case error(code: Int, reason: String)
    case notice(Notice)
    case other(String)

    static func parse(_ data: JSONValue, limits: JanusLimits) throws(JanusDropped) -> (JanusVideoRoomEvent, notes: [String]) {
        // Any of them may carry an error: "error_code" and "error" in the data, whatever "videoroom" says.
        if data["error_code"] != nil {
            let code = try JanusChecked.code(data["error_code"], "error_code")
            let reason = (try? JanusChecked.text(data["error"], "error", maxBytes: limits.maxMessageBytes)) ?? ""
            return (.error(code: code, reason: reason), [])
        }
        let kind = try JanusChecked.text(data["videoroom"], "videoroom", maxBytes: 32)
        var notes: [String] = []
        switch kind {
        case "joined":
            let feed = try JanusChecked.id(data["id"], "id")
            let privateID = try JanusChecked.optionalID(data["private_id"], "private_id")
            return (.joined(feed: feed, privateID: privateID, publishers: try publishers(data["publishers"], limits, &notes)), notes)
        case "created":
            return (.created, [])
        case "attached":
            return (.attached(streams: try streams(data["streams"], limits)), [])
        case "updated":
            return (.updated(streams: data["streams"] == nil ? nil : try streams(data["streams"], limits)), [])
        case "updating":
            return (.updating, [])
        case "talking", "stopped-talking":
            return (.talking(feed: try JanusChecked.id(data["id"], "id"), kind == "talking"), [])
        case "destroyed":
            return (.destroyed, [])
        case "event":
            var notice = Notice()
            if data["publishers"] != nil { notice.publishers = try publishers(data["publishers"], limits, &notes) }
            if let value = data["unpublished"], value != .string("ok") {
                notice.unpublished = try JanusChecked.id(value, "unpublished")
            }
            if let value = data["leaving"] {
                if value == .string("ok") {
                    notice.weLeft = true
                    notice.weWereKicked = data["reason"] == .string("kicked")
                } else {
                    notice.leaving = try JanusChecked.id(value, "leaving")
                }
            }
            if let value = data["kicked"] { notice.kicked = try JanusChecked.id(value, "kicked") }
            notice.configured = data["configured"] == .string("ok")
            notice.started = data["started"] == .string("ok")
            if data["publishers"] == nil, data["leaving"] == nil, let id = data["id"], data["display"] != nil {
                let display = try JanusChecked.text(data["display"], "display", maxBytes: limits.maxDisplayBytes)
                notice.renamed = (try JanusChecked.id(id, "id"), display)
            }
            if let moderation = data["moderation"], moderation == .string("muted") || moderation == .string("unmuted") {
                let mid = try JanusChecked.text(data["mid"], "mid", maxBytes: limits.maxMidBytes)
                notice.moderation = (try JanusChecked.id(data["id"], "id"), mid, moderation == .string("muted"))
            }
            return (.notice(notice), notes)
        default:
            return (.other(kind), [])
        }
    }

    private static func publishers(_ value: JSONValue?, _ limits: JanusLimits, _ notes: inout [String]) throws(JanusDropped) -> [JanusPublisher] {
        if value == nil { return [] }
        var list: [JanusPublisher] = []
        for item in try JanusChecked.array(value, "publishers", maxCount: limits.maxPublishersPerMessage) {
            do {
                if let publisher = try JanusPublisher.parse(item, limits: limits, notes: &notes) { list.append(publisher) }
            } catch {
                notes.append("dropped a publisher entry: \(error.reason)")
            }
        }
        return list
    }

    private static func streams(_ value: JSONValue?, _ limits: JanusLimits) throws(JanusDropped) -> [JanusSubscriberStream] {
        var list: [JanusSubscriberStream] = []
        for item in try JanusChecked.array(value, "streams", maxCount: limits.maxStreamsPerMessage) {
            let type = try JanusChecked.text(item["type"], "stream type", maxBytes: 16)
            guard let kind = JanusMediaKind(rawValue: type) else { throw JanusDropped("a stream of unknown type") }
            let mid = try JanusChecked.text(item["mid"], "stream mid", maxBytes: limits.maxMidBytes)
            let feed = try JanusChecked.optionalID(item["feed_id"], "feed_id")
            let display = try JanusChecked.optionalText(item["feed_display"], "feed_display", maxBytes: limits.maxDisplayBytes)
            // The summary says "active" when the section has a source; `updated` lists may leave it out.
            let active = JanusChecked.bool(item["active"]) ?? (feed != nil || kind == .data)
            list.append(JanusSubscriberStream(mid: mid, kind: kind, feed: feed, display: display, active: active))
        }
        guard Set(list.map(\.mid)).count == list.count else { throw JanusDropped("streams with a repeated mid") }
        return list
    }
}
