@testable import EngineTransport

/// Target 3, the ICE agent under a hostile peer: a script of operations read from the input — remote candidates
/// from text, raw datagrams, checks and responses that pass integrity (signed with the right password, so the
/// agent's state machine is reached rather than the integrity check), timeouts, end-of-candidates, close.
enum IceTarget {
    static let locals = [TransportAddress("127.0.0.1:40000")!, TransportAddress("[::1]:40000")!]
    static let remotes = [TransportAddress("127.0.0.1:40001")!, TransportAddress("127.0.0.1:40002")!,
                          TransportAddress("[::1]:40001")!, TransportAddress("10.0.0.9:9")!]
    static let localCredentials = IceCredentials(ufrag: "locl", pwd: "localpasswordlocalpassw")
    static let remoteCredentials = IceCredentials(ufrag: "rmte", pwd: "remotepasswordremotepas")

    static func run(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let setup = input.byte()
        var config = IceAgentConfig(role: setup & 1 == 0 ? .controlling : .controlled, local: localCredentials,
                                    tieBreaker: UInt64(setup), seed: 7)
        if setup & 2 != 0 { config.nomination = .aggressive }
        let agent = IceAgent(config: config)
        var now = TransportTime.zero
        var deadline: TransportTime?
        var sent: [Transmit] = []
        func feed(_ i: IceInput) {
            let out = agent.handle(i, now: now)
            deadline = out.deadline
            sent += out.transmits
            if sent.count > 64 { sent.removeFirst(sent.count - 64) }
        }
        feed(.command(.addLocalHost(locals[0])))
        if setup & 4 != 0 { feed(.command(.addLocalHost(locals[1]))) }
        if setup & 8 == 0 { feed(.command(.setRemoteCredentials(remoteCredentials))) }
        var steps = 0
        while !input.isEmpty && steps < 64 {
            steps += 1
            let op = input.byte()
            let from = remotes[Int(op >> 4) % remotes.count], to = locals[Int(op >> 6) % locals.count]
            switch op & 0x07 {
            case 0:
                let text = String(decoding: input.chunk(), as: UTF8.self)
                if let c = try? IceCandidate(parsing: text) { feed(.command(.addRemoteCandidate(c))) }
            case 1:
                feed(.datagram(from: from, to: to, bytes: input.chunk()))
            case 2:
                // A check from the peer, correctly signed, with fuzzed attributes after USERNAME.
                var m = StunMessage(type: .bindingRequest, transactionID: transactionID(&input),
                                    attributes: [.username("\(localCredentials.ufrag):\(remoteCredentials.ufrag)")])
                m.attributes += attributes(&input)
                // A USERNAME over its limit cannot be encoded: then there is nothing to send.
                guard let datagram = try? m.encode(integrityKey: key(localCredentials), fingerprint: true) else { continue }
                feed(.datagram(from: from, to: to, bytes: datagram))
            case 3:
                // A response to one of the agent's own checks (its transaction id), signed with the remote password.
                let checks = sent.compactMap { try? StunMessage(decoding: $0.bytes) }.filter { $0.type == .bindingRequest }
                guard !checks.isEmpty else { continue }
                let check = checks[Int(input.byte()) % checks.count]
                let error = input.byte() & 1 == 1
                var m = StunMessage(type: error ? .bindingError : .bindingSuccess, transactionID: check.transactionID)
                m.attributes = attributes(&input)
                let target = sent.first { (try? StunMessage(decoding: $0.bytes))?.transactionID == check.transactionID }
                guard let datagram = try? m.encode(integrityKey: key(remoteCredentials), fingerprint: true) else { continue }
                feed(.datagram(from: input.byte() & 1 == 0 ? (target?.to ?? from) : from, to: target?.from ?? to,
                               bytes: datagram))
            case 4:
                now = now + .milliseconds(Int64(input.byte()) * 20)
                feed(.timeout)
            case 5:
                if let d = deadline { now = max(now, d) }
                feed(.timeout)
            case 6:
                feed(.command(input.byte() & 1 == 0 ? .endOfRemoteCandidates : .setRemoteCredentials(remoteCredentials)))
            default:
                if input.byte() == 0xFF { feed(.command(.close)) }
            }
        }
        _ = (agent.state, agent.selected, agent.roundTripTime, agent.localCandidates, agent.remoteCandidates)
    }

    static func key(_ c: IceCredentials) -> [UInt8] { StunIntegrity.shortTermKey(password: c.pwd) }

    static func transactionID(_ input: inout FuzzInput) -> TransactionID {
        TransactionID(bytes: (0..<12).map { _ in input.byte() })!
    }

    /// A few attributes chosen and filled by the input.
    static func attributes(_ input: inout FuzzInput) -> [StunAttribute] {
        var list: [StunAttribute] = []
        for _ in 0..<Int(input.byte() % 6) {
            func u32() -> UInt32 { UInt32(input.uint16()) << 16 | UInt32(input.uint16()) }
            func u64() -> UInt64 { UInt64(u32()) << 32 | UInt64(u32()) }
            switch input.byte() % 9 {
            case 0: list.append(.priority(u32()))
            case 1: list.append(.useCandidate)
            case 2: list.append(.iceControlling(u64()))
            case 3: list.append(.iceControlled(u64()))
            case 4: list.append(.xorMappedAddress(remotes[Int(input.byte()) % remotes.count]))
            case 5: list.append(.xorMappedAddress(TransportAddress(ip: remotes[0].ip, port: input.uint16())))
            case 6: if let e = StunErrorCode(code: Int(input.uint16()) % 700, reason: "x") { list.append(.errorCode(e)) }
            case 7: list.append(.unknown(type: input.uint16(), value: Array(input.chunk().prefix(64))))
            default: list.append(.username(String(decoding: input.chunk().prefix(600), as: UTF8.self)))
            }
        }
        return list
    }
}
