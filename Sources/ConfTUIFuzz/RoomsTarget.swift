@testable import Signaling

/// Target 14, the server's room logic as a driver runs it, resume tokens included: six connections, each opened with a
/// token; the fuzzer's bytes pick, step by step, a connection and what happens to it: a message (a chunk of the input,
/// or a `__join` presenting some connection's token, so resumes are reached without guessing 32 hex digits), a close,
/// a silent drop, a rate refusal, or time passing. The actions are carried out as `ServerEventLoop` does: a `.resume`
/// re-keys the connection, a `.close` closes it. Whatever the input, the core must not trap and its counts must agree.
enum RoomsTarget {
    static func run(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let control = input.byte()
        var rooms = SkyRTCRooms(format: control & 1 == 0 ? .conftui : .original,
                                limits: SkyRTCRoomLimits(maxRooms: 2, maxMembersPerRoom: 4),
                                resumeGrace: Double(control >> 1 & 3), heldBytesBudget: 2048)
        let tokens = (0..<6).map { "token-\($0)" }
        // What each connection is known as now (a resume re-keys it); nil once closed.
        var identity: [SocketID?] = (0..<6).map { SocketID("s\($0)") }
        var now = MonotonicInstant(seconds: 0)
        // A close the core asks for reaches it back as `.closed`, after the actions of the input that caused it.
        var carryOutLater: [SkyRTCRooms.Input] = []
        func carryOut(_ actions: [SkyRTCRooms.Action]) {
            for action in actions {
                switch action {
                case .resume(let connection, let member):
                    for i in identity.indices where identity[i] == member { identity[i] = nil }
                    for i in identity.indices where identity[i] == connection { identity[i] = member }
                case .close(let id, _, _):
                    guard let i = identity.firstIndex(of: id) else { continue }
                    identity[i] = nil
                    carryOutLater.append(.closed(id))
                case .send(_, let bytes):
                    _ = try? SkyRTCServerMessage.decode(bytes)
                case .log(let event):
                    _ = event.description
                }
            }
        }
        for (i, id) in identity.enumerated() { carryOut(rooms.handle(.opened(id!, resumeToken: tokens[i]))) }
        for _ in 0..<64 where !input.isEmpty {
            let step = input.byte()
            let slot = Int(step >> 4) % identity.count
            let next: SkyRTCRooms.Input?
            switch (step & 0x0F, identity[slot]) {
            case (0...5, let id?):
                next = .message(id, input.chunk(), isBinary: step & 1 == 1)
            case (6...7, let id?):
                let token = tokens[Int(input.byte()) % tokens.count]
                let resumable = step & 1 == 0 ? #","resumable":true"# : ""
                next = .message(id, Array(#"{"eventName":"__join","data":{"room":"r","resume":"\#(token)"\#(resumable)}}"#.utf8), isBinary: false)
            case (8, let id?):
                identity[slot] = nil
                next = .closed(id)
            case (9, let id?):
                identity[slot] = nil
                next = .lost(id, now: now)
            case (10, let id?):
                next = .throttled(id)
            default:
                now = now + Double(step & 0x0F)
                next = .tick(now)
            }
            if let next { carryOut(rooms.handle(next)) }
            while !carryOutLater.isEmpty { carryOut(rooms.handle(carryOutLater.removeFirst())) }
            _ = rooms.nextDeadline
        }
        precondition(rooms.heldCount <= rooms.joinedCount && rooms.joinedCount <= 6, "the rooms' counts disagree")
    }
}
