import Glibc
@testable import Engine
@testable import EngineTransport
@testable import Signaling

/// Target 12, the chat and file sub-protocol through a connected pair: two `PeerConnection`s (`ConnectedPeers`)
/// with a data channel up; the fuzzer's messages go out of A's channel, over SCTP and DTLS, into B, whose channel
/// events feed the layer-wish reader of a Janus session (`JanusLayerWish`) and a `RoomMessaging` (accept-all policy,
/// 64 KiB files, 2 per peer, 4 in all) writing into a fresh download directory per input; what the room sends back
/// goes out of B's channel. Checked after every message:
/// no trap; the channel is still open at both ends and a chat line A sends next arrives as chat. After every
/// input: nothing was written beside the download directory, which holds only regular files, at most one per
/// message and none above the file limit.
///
/// The input: up to 32 operations, each an op byte and a length-prefixed message: bit 0 sends it as binary
/// (else text, its bytes as they are, not necessarily UTF-8); bit 1 lets a virtual second pass for the room (its
/// stall timer and rate limits).
///
/// Connecting the pair costs hundreds of inputs' time, so one pair serves `inputsPerPair` inputs, as the media
/// target does (and like it this one runs without per-input leak checks: see the Makefile).
enum PeerMessagesTarget {
    static let inputsPerPair = 2_000
    static let peer = SocketID("fuzz-peer-a")

    final class Session {
        let peers: ConnectedPeers
        let channel: UInt16
        var inputs = 0
        /// B's data channel events not yet given to the room.
        var pending: [DataChannelEvent] = []

        init?() {
            guard let peers = ConnectedPeers() else { return nil }
            self.peers = peers
            var events: [DataChannelEvent] = []
            peers.onEventAtB = { event in if case .dataChannel(let e) = event { events.append(e) } }
            peers.feed("A", .command(.openDataChannel(label: "fuzz")))
            var opened: UInt16?
            peers.run(until: {
                for case .opened(let id, _, true, _) in events { opened = id }
                return opened != nil
            })
            guard let opened else { return nil }
            channel = opened
            peers.onEventAtB = { [unowned self] event in if case .dataChannel(let e) = event { self.pending.append(e) } }
        }

        var isOpen: Bool {
            peers.a.state == .connected && peers.b.state == .connected
                && peers.a.data?.openChannels.contains(channel) == true && peers.b.data?.openChannels.contains(channel) == true
        }
    }

    nonisolated(unsafe) static var session: Session?
    nonisolated(unsafe) static var root: String?
    nonisolated(unsafe) static var inputNumber = 0

    static func run(_ bytes: [UInt8]) {
        if let s = session, s.inputs < inputsPerPair, s.isOpen {
            s.inputs += 1
        } else {
            session = nil
            session = Session()
        }
        guard let s = session, let root = makeRoot() else { return }
        inputNumber += 1
        let inputDirectory = "\(root)/\(inputNumber)"
        let downloads = "\(inputDirectory)/dl"
        mkdir(inputDirectory, 0o700)
        defer { removeTree(inputDirectory) }

        var configuration = RoomMessaging.Configuration()
        configuration.downloadDirectory = downloads
        configuration.filePolicy = .acceptAll
        configuration.limits.maxFileSize = 64 * 1024
        configuration.limits.maxPerPeer = 2
        configuration.limits.maxTotal = 4
        configuration.limits.stallTimeout = 3
        var room = RoomMessaging(configuration: configuration)
        var clock = MonotonicInstant(seconds: 1_000)
        var chats: [String] = []
        s.pending.removeAll()

        func apply(_ output: RoomMessaging.Output) {
            for effect in output.effects {
                switch effect {
                case .send(_, let text): s.peers.feed("B", .command(.sendData(channel: s.channel, .text(Array(text.utf8)))))
                case .chat(_, let text, _): chats.append(text)
                default: break
                }
            }
        }
        /// Hands B's channel events to the room.
        func drain() {
            while !s.pending.isEmpty {
                let event = s.pending.removeFirst()
                switch event {
                case .message(let id, .text(let b)) where id == s.channel:
                    // A Janus session reads each text for a layer wish before the room sees it: a wish reads back as itself.
                    if let wish = JanusLayerWish.parse(b) { precondition(JanusLayerWish.parse(wish.message) == wish) }
                    apply(room.handle(.receivedBytes(peer, b), now: clock))
                case .message(let id, .binary(let b)) where id == s.channel: apply(room.handle(.receivedBinary(peer, count: b.count), now: clock))
                case .buffered(let id, let n, _) where id == s.channel: apply(room.handle(.bufferedAmount(peer, n), now: clock))
                case .closed(let id) where id == s.channel: preconditionFailure("B's channel closed under the fuzzer's messages")
                default: break
                }
            }
        }

        apply(room.handle(.channelOpened(peer), now: clock))
        apply(room.handle(.maxMessageSize(peer, 65_536), now: clock))
        var input = FuzzInput(bytes)
        var messages = 0
        while !input.isEmpty && messages < 32 {
            messages += 1
            let op = input.byte()
            let message = input.chunk()
            if op & 2 != 0 {
                clock.seconds += 1
                apply(room.handle(.timer, now: clock))
            }
            s.peers.feed("A", .command(.sendData(channel: s.channel, op & 1 != 0 ? .binary(message) : .text(message))))
            // The follow-up: a chat line that must arrive as chat, after the fuzzer's message (same ordered channel).
            let ping = "ping \(inputNumber).\(messages)"
            s.peers.feed("A", .command(.sendData(channel: s.channel, .text(SkyRTCPeerMessage.chat(ping).jsonBytes))))
            let arrived = s.peers.run(until: { drain(); return chats.contains(ping) }, limit: .seconds(5))
            precondition(arrived, "the follow-up chat did not arrive after a fuzzed message")
            precondition(s.isOpen, "the channel or the connection closed under the fuzzer's messages")
            chats.removeAll()
        }
        _ = room.openChannels
        checkDirectory(inputDirectory, downloads: downloads, messages: messages, maxFile: Int(configuration.limits.maxFileSize))
    }

    private static func makeRoot() -> String? {
        if let root { return root }
        var template = Array("/tmp/conftui-fuzz-peer-messages-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else { return nil }
        root = String(cString: made)
        // Each input removes its own directory; the empty root goes when the process exits.
        atexit { if let root = PeerMessagesTarget.root { rmdir(root) } }
        return root
    }

    /// Only `dl` beside nothing, and in it regular files within the limits.
    private static func checkDirectory(_ directory: String, downloads: String, messages: Int, maxFile: Int) {
        let outside = entries(directory)
        precondition(outside.allSatisfy { $0 == "dl" }, "written beside the download directory: \(outside)")
        let files = entries(downloads)
        precondition(files.count <= messages, "\(files.count) files from \(messages) messages")
        for name in files {
            var info = stat()
            precondition(lstat("\(downloads)/\(name)", &info) == 0, "cannot stat \(name)")
            precondition(info.st_mode & S_IFMT == S_IFREG, "\(name) in the download directory is not a regular file")
            precondition(Int(info.st_size) <= maxFile, "\(name) is \(info.st_size) bytes, above the \(maxFile) limit")
        }
    }

    private static func entries(_ directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) } }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    private static func removeTree(_ directory: String) {
        let downloads = "\(directory)/dl"
        for name in entries(downloads) { unlink("\(downloads)/\(name)") }
        rmdir(downloads)
        for name in entries(directory) { unlink("\(directory)/\(name)") }
        rmdir(directory)
    }
}
