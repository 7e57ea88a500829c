/// The registry of targets, by the name CONFTUI_FUZZ_TARGET (or the replay tool's first argument) gives.
enum FuzzTargets {
    typealias Target = @Sendable ([UInt8]) -> Void

    static let all: [(name: String, run: Target)] = [
        ("signaling", SignalingPathTarget.run),
        ("stun", StunTarget.run),
        ("ice", IceTarget.run),
        ("media", MediaTarget.run),
        ("dtls", DtlsTarget.run),
        ("websocket", WebSocketTarget.run),
        ("json", JSONTarget.run),
        ("y4m", Y4MTarget.run),
        ("turn", TurnTarget.run),
        ("sctp", SctpTarget.run),
        ("dcep", DcepTarget.run),
        ("peer-messages", PeerMessagesTarget.run),
        ("janus", JanusTarget.run),
        ("rooms", RoomsTarget.run),
    ]

    static var names: [String] { all.map(\.name) }
    static func named(_ name: String) -> Target? { all.first { $0.name == name }?.run }

    /// Set once by LLVMFuzzerInitialize, before any input; libFuzzer runs inputs on one thread.
    nonisolated(unsafe) static var selected: Target?
}
