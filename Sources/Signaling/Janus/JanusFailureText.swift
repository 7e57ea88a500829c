/// The human sentences of `.failed`, from Janus's codes (janus_videoroom.c's JANUS_VIDEOROOM_ERROR_* macros,
/// apierror.h's JANUS_ERROR_*). `reason` is Janus's text, already cut and escaped.
enum JanusFailureText {
    static func join(room: UInt64, code: Int, reason: String) -> String {
        switch code {
        case 426: "Janus: no such room \(room) (426)"
        case 432: "room \(room) is full (\(reason), 432)"
        case 433: "Janus: unauthorized to join room \(room): \(reason) (433)"
        default: "Janus refused to join room \(room): \(reason) (\(code))"
        }
    }

    /// The publishers limit is checked when the offer arrives, not at `join` (janus_videoroom.c: "Maximum number
    /// of publishers (%d) already reached").
    static func publish(room: UInt64, code: Int, reason: String) -> String {
        switch code {
        case 432: "room \(room) is full (\(reason), 432)"
        case 433: "Janus: unauthorized to publish in room \(room): \(reason) (433)"
        default: "Janus refused our offer in room \(room): \(reason) (\(code))"
        }
    }

    static func createRoom(room: UInt64, code: Int, reason: String) -> String {
        switch code {
        case 403, 433: "Janus: unauthorized to create room \(room): \(reason) (\(code))"
        default: "Janus could not create room \(room): \(reason) (\(code))"
        }
    }

    /// A Janus core `error` answering `request`.
    static func core(request: String, code: Int, reason: String) -> String {
        switch code {
        case 403: "Janus: unauthorized (403: \(reason))"
        case 458: "Janus: session not found (458)"
        case 459: "Janus: handle not found (459)"
        case 460: "Janus has no VideoRoom plugin (460: \(reason))"
        default: "Janus refused '\(request)': \(reason) (\(code))"
        }
    }

    static func timeout(request: String, seconds: Double) -> String {
        "Janus did not answer '\(request)' within \(seconds.rounded() == seconds ? String(Int(seconds)) : String(seconds)) s"
    }
}
