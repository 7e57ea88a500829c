import Foundation
import Synchronization
import Testing
@testable import Engine
@testable import EngineTransport

/// Server-reflexive gathering: the sans-IO gatherer, and a call with `stunServer` against a STUN responder on
/// 127.0.0.1 that maps every request to the sender's port + 1000 (a stand-in for a NAT).
@Suite struct ServerReflexiveTests {
    let server = TransportAddress("127.0.0.1:3478")!
    let base = TransportAddress("127.0.0.1:40000")!

    func response(to request: [UInt8], mapped: TransportAddress, type: StunMessageType = .bindingSuccess) throws -> [UInt8] {
        let m = try StunMessage(decoding: request)
        return try StunMessage(type: type, transactionID: m.transactionID, attributes: [.xorMappedAddress(mapped)]).encode(fingerprint: true)
    }

    @Test func requestsRetransmitThenGiveUp() throws {
        var g = ServerReflexiveGatherer(server: server, bases: [base, TransportAddress("[::1]:40001")!])
        var sent: [TransportTime] = []
        var now = TransportTime.zero
        while let deadline = g.deadline, now < .zero + .seconds(30) {
            now = max(now, deadline)
            let out = g.poll(now: now)
            #expect(out.allSatisfy { $0.from == base && $0.to == server })   // IPv6 base skipped for an IPv4 server
            sent += out.map { _ in now }
        }
        #expect(sent.count == ServerReflexiveGatherer.maxAttempts)
        #expect(sent.last! - sent.first! == .milliseconds(250 + 500 + 1000 + 2000))
        #expect(g.deadline == nil)
    }

    @Test func successGivesASrflxCandidateWithItsBase() throws {
        var g = ServerReflexiveGatherer(server: server, bases: [base])
        let requests = g.poll(now: .zero)
        let request = try #require(requests.first)
        let mapped = TransportAddress("203.0.113.7:51000")!
        let reply = try response(to: request.bytes, mapped: mapped)
        #expect(g.isResponse(from: server, bytes: reply))
        #expect(!g.isResponse(from: TransportAddress("127.0.0.1:9")!, bytes: reply))
        let handled = g.handle(bytes: reply)
        let candidate = try #require(handled)
        #expect(candidate.kind == .srflx && candidate.transportAddress == mapped)
        #expect(candidate.relatedAddress == .ip(base.ip) && candidate.relatedPort == base.port)
        let parsed = try IceCandidate(parsing: candidate.sdpValue)
        #expect(parsed.kind == .srflx && parsed.transportAddress == mapped && parsed.relatedPort == base.port, "\(candidate.sdpValue)")
        #expect(g.deadline == nil, "answered requests are not sent again")
    }

    @Test func errorsAndMappingsEqualToTheBaseGiveNothing() throws {
        var g = ServerReflexiveGatherer(server: server, bases: [base, TransportAddress("127.0.0.2:40000")!])
        let requests = g.poll(now: .zero)
        let sameAsBase = g.handle(bytes: try response(to: requests[0].bytes, mapped: base))
        #expect(sameAsBase == nil)
        let error = try response(to: requests[1].bytes, mapped: base, type: StunMessageType(method: .binding, stunClass: .errorResponse))
        let fromError = g.handle(bytes: error)
        #expect(fromError == nil)
        #expect(g.requests.isEmpty)
    }

    @Test(.timeLimit(.minutes(1)))
    func aCallSignalsItsServerReflexiveCandidateAndStillConnects() throws {
        let port = Mutex<UInt16>(0)
        let stop = Atomic<Bool>(false)
        let responder = Thread {
            guard let socket = try? UdpSocket(bind: TransportAddress("127.0.0.1:0")!) else { return }
            port.withLock { $0 = socket.localAddress.port }
            while !stop.load(ordering: .relaxed) {
                _ = UdpSocket.wait([socket], timeoutMilliseconds: 20)
                while let (bytes, from) = socket.receive() {
                    guard let m = try? StunMessage(decoding: bytes), m.type == .bindingRequest else { continue }
                    let mapped = TransportAddress(ip: from.ip, port: from.port &+ 1000)
                    guard let answer = try? StunMessage(type: .bindingSuccess, transactionID: m.transactionID,
                                                        attributes: [.xorMappedAddress(mapped)]).encode(fingerprint: true) else { continue }
                    socket.send(answer, to: from)
                }
            }
        }
        responder.start()
        defer { stop.store(true, ordering: .relaxed) }
        #expect(waitFor(2) { port.withLock { $0 } != 0 })
        let stunServer = TransportAddress(ip: IPAddress("127.0.0.1")!, port: port.withLock { $0 })

        let room = InProcessRoom()
        let a = try room.makeCall("a", tone: 440, participant: 1, stunServer: stunServer)
        let b = try room.makeCall("b", tone: 660, participant: 2, stunServer: stunServer)
        defer { room.stopAll() }
        room.join("a")
        room.join("b")
        let connected = waitFor(8) {
            a.snapshot(analyseAudio: false).peers[RemotePeerID("b")]?.video.framesDecoded ?? 0 > 5
                && b.snapshot(analyseAudio: false).peers[RemotePeerID("a")]?.video.framesDecoded ?? 0 > 5
        }
        #expect(connected)
        for (call, other) in [(a, "b"), (b, "a")] {
            let signalled = call.snapshot(analyseAudio: false).peers[RemotePeerID(other)]?.localCandidates ?? []
            #expect(signalled.contains { $0.contains(" typ host") }, "\(signalled)")
            #expect(signalled.contains { $0.contains(" typ srflx raddr 127.0.0.1 rport ") }, "\(signalled)")
        }
    }
}
