import Testing
@testable import EngineTransport

/// The allocation's life on a virtual clock: the long-term credential challenge (RFC 8489 §9.2), stale nonces,
/// refreshes before expiry, retransmissions, error responses and release (RFC 8656 §7, §8).
@Suite struct TurnAllocationTests {
    @Test func firstAllocateIsUnauthenticatedAndThe401ChallengeIsAnsweredWithCredentials() throws {
        let h = TurnClientHarness()
        h.feed(.allocate)
        let first = try h.lastRequest()
        #expect(first.type == StunMessageType(method: .allocate, stunClass: .request))
        // RFC 8656 §7.1: REQUESTED-TRANSPORT UDP (17) is mandatory.
        #expect(first.attributes.contains(.requestedTransport(17)))
        #expect(first.attributes.contains(.lifetime(600)))
        #expect(!first.hasIntegrity && first.username == nil)
        #expect(h.client.state == .allocating)

        h.feed(.received(try h.server.challenge(first)))
        let second = try h.lastRequest()
        #expect(second.transactionID != first.transactionID, "the retry is a new transaction")
        #expect(h.server.isAuthenticated(second))
        #expect(second.attributes.contains(.requestedTransport(17)))

        h.feed(.received(try h.server.allocateSuccess(second)))
        #expect(h.client.state == .allocated)
        #expect(h.client.relayedAddress == h.server.relayed)
        #expect(h.client.mappedAddress == h.server.mapped)
        #expect(h.events == [.allocated(relayed: h.server.relayed, mapped: h.server.mapped, lifetime: 600)])
        // Refreshed a minute before the 600 s run out.
        #expect(h.deadline == TransportTime.zero + .seconds(540))
    }

    @Test func theLongTermKeyIsMD5OfUsernameRealmPassword() {
        // RFC 8489 §9.2.2: key = MD5(username ":" realm ":" password); the digest below was computed outside
        // conftui (the MD5 digest of "alice:conftui.test:secret", by Python's hashlib). RFC 5769's long-term vector is checked in
        // StunVectorTests.
        #expect(TurnTestServer().key == hexBytes("48 63 ef 22 c4 fd 43 32 53 48 da 9f f1 d6 7b eb"))
    }

    @Test func staleNonceIsRetriedWithTheNewNonceAndRefreshIsRescheduled() throws {
        let h = TurnClientHarness()
        try h.allocate()
        h.advance(to: .zero + .seconds(540))
        let refresh = try h.lastRequest()
        #expect(refresh.type == StunMessageType(method: .refresh, stunClass: .request))
        #expect(refresh.attributes.contains(.lifetime(600)))
        #expect(h.server.isAuthenticated(refresh))

        // RFC 8489 §9.2.5: 438 → the same request again with the NONCE of the answer.
        h.feed(.received(try h.server.staleNonce(refresh, newNonce: "nonce-2")))
        let retry = try h.lastRequest()
        #expect(retry.transactionID != refresh.transactionID)
        #expect(retry.type.method == .refresh)
        #expect(h.server.isAuthenticated(retry, nonce: "nonce-2"))

        h.server.nonce = "nonce-2"
        h.feed(.received(try h.server.success(retry, [.lifetime(300)])))
        #expect(h.client.state == .allocated)
        // Granted 300 s: the next refresh a minute before it ends.
        #expect(h.deadline == h.now + .seconds(240))
        // Later requests carry the new nonce.
        h.advance(by: .seconds(240))
        #expect(h.server.isAuthenticated(try h.lastRequest(), nonce: "nonce-2"))
    }

    @Test func aServerThatCallsEveryNonceStaleIsGivenUpOn() throws {
        let h = TurnClientHarness()
        h.feed(.allocate)
        h.feed(.received(try h.server.challenge(h.lastRequest())))
        for i in 0..<5 {
            guard h.client.state == .allocating else { break }
            h.feed(.received(try h.server.staleNonce(h.lastRequest(), newNonce: "n\(i)")))
        }
        #expect(h.client.state == .failed)
        #expect(h.client.failureReason?.contains("438") == true)
    }

    @Test func grantedLifetimesAreClampedBeforeScheduling() throws {
        // (granted, expected refresh delay): a minute early, halfway for short ones, clamped to 10...3600 s.
        let cases: [(UInt32, Duration)] = [(600, .seconds(540)), (100, .seconds(50)), (0, .seconds(5)),
                                           (UInt32.max, .seconds(3540)), (3600, .seconds(3540)), (121, .seconds(61))]
        for (granted, delay) in cases {
            let h = TurnClientHarness()
            try h.allocate(lifetime: granted)
            #expect(h.client.state == .allocated)
            #expect(h.deadline == TransportTime.zero + delay, "granted \(granted)")
        }
    }

    @Test func wrongPasswordFailsAfterTheSecond401() throws {
        let h = TurnClientHarness { $0.credentials.password = "wrong" }
        h.feed(.allocate)
        h.feed(.received(try h.server.challenge(h.lastRequest())))
        let signed = try h.lastRequest()
        #expect(!h.server.isAuthenticated(signed))
        h.feed(.received(try h.server.challenge(signed)))
        #expect(h.client.state == .failed)
        #expect(h.client.failureReason?.contains("401") == true)
        #expect(h.events.last == .failed(reason: h.client.failureReason!))
        #expect(h.deadline == nil)
    }

    @Test func allocateErrorsFailWithTheServersReason() throws {
        for (code, reason) in [(486, "Allocation Quota Reached"), (508, "Insufficient Capacity"), (442, "Unsupported Transport Protocol")] {
            let h = TurnClientHarness()
            h.feed(.allocate)
            h.feed(.received(try h.server.challenge(h.lastRequest())))
            h.feed(.received(try h.server.error(h.lastRequest(), code: code, reason: reason)))
            #expect(h.client.state == .failed)
            #expect(h.client.failureReason?.contains("\(code)") == true)
            #expect(h.client.failureReason?.contains(reason) == true)
        }
    }

    @Test func refreshRefusedWith437LosesTheAllocation() throws {
        let h = TurnClientHarness()
        try h.allocate()
        h.advance(by: .seconds(540))
        h.feed(.received(try h.server.error(h.lastRequest(), code: 437, reason: "Allocation Mismatch")))
        #expect(h.client.state == .failed)
        #expect(h.client.failureReason?.contains("437") == true)
    }

    @Test func retransmissionsFollowRFC8489AndThenFail() throws {
        let h = TurnClientHarness()
        h.feed(.allocate)
        var sendTimes: [Duration] = [h.now - .zero]
        var count = h.sent.count
        while h.client.state == .allocating, let d = h.deadline {
            h.now = d
            h.feed(.timeout)
            if h.sent.count > count { sendTimes.append(h.now - .zero); count = h.sent.count }
        }
        // §6.2.1: sent at 0, 500, 1500, 3500, 7500, 15500, 31500 ms; failed at 39500 ms (Rm = 16).
        #expect(sendTimes == [0, 500, 1500, 3500, 7500, 15500, 31500].map { Duration.milliseconds($0) })
        #expect(h.now - .zero == .milliseconds(39_500))
        #expect(h.client.state == .failed)
        #expect(Set(h.sent).count == 1, "retransmissions are the same bytes")
    }

    @Test func overAStreamRequestsAreSentOnceAndTimeOutAfterTi() throws {
        let h = TurnClientHarness { $0.reliableTransport = true }
        h.feed(.allocate)
        #expect(h.deadline == .zero + .milliseconds(39_500))
        h.advance(by: .seconds(40))
        #expect(h.sent.count == 1)
        #expect(h.client.state == .failed)
    }

    @Test func aSuccessWithABadOrMissingSignatureIsIgnored() throws {
        let h = TurnClientHarness()
        h.feed(.allocate)
        h.feed(.received(try h.server.challenge(h.lastRequest())))
        let request = try h.lastRequest()
        h.feed(.received(try h.server.success(request, [.xorRelayedAddress(h.server.relayed), .lifetime(600)], key: [1, 2, 3])))
        let unsigned = try StunMessage(type: StunMessageType(method: .allocate, stunClass: .successResponse),
                                       transactionID: request.transactionID,
                                       attributes: [.xorRelayedAddress(h.server.relayed)]).encode()
        h.feed(.received(unsigned))
        #expect(h.client.state == .allocating)
        #expect(h.client.droppedReceives == 2)
        // The retransmission goes on, and the genuine answer still counts.
        h.advance(by: .milliseconds(500))
        #expect(h.sent.last == h.sent[h.sent.count - 2])
        h.feed(.received(try h.server.allocateSuccess(request)))
        #expect(h.client.state == .allocated)
    }

    @Test func closeSendsASignedRefreshWithLifetimeZero() throws {
        let h = TurnClientHarness()
        try h.allocate()
        h.feed(.close)
        let refresh = try h.lastRequest()
        #expect(refresh.type.method == .refresh)
        #expect(refresh.lifetime == 0)
        #expect(h.server.isAuthenticated(refresh))
        #expect(h.client.state == .closing)
        h.feed(.received(try h.server.success(refresh, [.lifetime(0)])))
        #expect(h.client.state == .closed)
        #expect(h.events.last == .closed)
        #expect(h.deadline == nil)
    }

    @Test func closeBeforeAnAllocationIsImmediate() {
        let h = TurnClientHarness()
        h.feed(.close)
        #expect(h.client.state == .closed)
        #expect(h.sent.isEmpty)
    }

    @Test func anAllocationWithoutARelayedAddressFails() throws {
        let h = TurnClientHarness()
        h.feed(.allocate)
        h.feed(.received(try h.server.challenge(h.lastRequest())))
        h.feed(.received(try h.server.success(h.lastRequest(), [.lifetime(600)])))
        #expect(h.client.state == .failed)
    }

    @Test func aTooLongUsernameFailsWithoutTrapping() throws {
        let h = TurnClientHarness { $0.credentials.username = String(repeating: "u", count: 600) }
        h.feed(.allocate)
        h.feed(.received(try h.server.challenge(h.lastRequest())))
        #expect(h.client.state == .failed)
    }
}
