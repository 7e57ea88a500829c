import Testing
@testable import EngineTransport

/// Each limit of `RemoteInputLimits` refuses what is over it with an error naming the value, and lets what browsers
/// and aiortc really send through.
@Suite struct RemoteInputLimitsTests {
    func chrome(_ edit: (String) -> String = { $0 }) throws -> SessionDescription {
        try SessionDescription(parsing: edit(SdpFixtures.chromeOffer))
    }

    func refusal(_ sd: SessionDescription) -> String? {
        do {
            try sd.checkRemoteLimits()
            return nil
        } catch {
            return error.description
        }
    }

    @Test func browserAndAiortcOffersPass() throws {
        #expect(refusal(try chrome()) == nil)
        #expect(refusal(try SessionDescription(parsing: SdpFixtures.aiortcOffer)) == nil)
    }

    @Test func iceUfragAndPwdFollowRFC8839() throws {
        for (ufrag, ok) in [("abc", false), ("abcd", true), (String(repeating: "u", count: 256), true),
                            (String(repeating: "u", count: 257), false), (String(repeating: "u", count: 70_000), false),
                            ("ab-cd", false), ("ab+/", true)] {
            let sd = try chrome { $0.replacingOccurrences(of: "a=ice-ufrag:EsAw", with: "a=ice-ufrag:\(ufrag)") }
            let why = refusal(sd)
            #expect((why == nil) == ok, "\(ufrag.prefix(10)) (\(ufrag.count)): \(why ?? "accepted")")
            if let why { #expect(why.contains("ice-ufrag") && why.utf8.count < 300, "\(why.prefix(300))") }
        }
        for (pwd, ok) in [(String(repeating: "p", count: 21), false), (String(repeating: "p", count: 22), true),
                          (String(repeating: "p", count: 256), true), (String(repeating: "p", count: 257), false),
                          (String(repeating: "p", count: 21) + "_", false)] {
            let sd = try chrome { $0.replacingOccurrences(of: "a=ice-pwd:bP+XJMM09aR8AiX1jdukzR6Y", with: "a=ice-pwd:\(pwd)") }
            #expect((refusal(sd) == nil) == ok, "\(pwd.count): \(refusal(sd) ?? "accepted")")
        }
    }

    @Test func midMsidCnameFingerprintAndExtmapLimits() throws {
        let long65 = String(repeating: "m", count: 65)
        let cases: [(String, String, String)] = [
            ("a=mid:1", "a=mid:\(long65)", "mid"),
            ("a=msid:8d5f0b2e-7b7a-4d3f-9b8a-3f1c2e4d5a6b 1e8c6a1b", "a=msid:\(long65) 1e8c6a1b", "msid"),
            ("a=ssrc:3473410720 cname:kF0OWkcZP8NQyFfW", "a=ssrc:3473410720 cname:\(String(repeating: "c", count: 256))", "cname"),
        ]
        for (from, to, word) in cases {
            let sd = try chrome { $0.replacingOccurrences(of: from, with: to) }
            let why = try #require(refusal(sd), "\(word) over its limit was accepted")
            #expect(why.contains(word), "\(why)")
        }
        var sd = try chrome()
        sd.media[0].fingerprints = [DtlsFingerprint(algorithm: "sha-256", bytes: [UInt8](repeating: 1, count: 200))]
        #expect(refusal(sd)?.contains("fingerprint") == true)
        sd = try chrome()
        sd.media[1].extmaps.append(Extmap(id: 300, uri: Extmap.midURI))
        #expect(refusal(sd)?.contains("extmap id 300") == true)
        sd = try chrome()
        sd.media = Array(repeating: sd.media[1], count: RemoteInputLimits.mediaSections + 1)
        #expect(refusal(sd)?.contains("m= sections") == true)
    }

    @Test func wholeSdpTextIsBounded() throws {
        let padding = String(repeating: "a=x-padding:\(String(repeating: "p", count: 100))\r\n", count: 3000)
        #expect(throws: EngineError.self) { try SessionDescription(parsing: SdpFixtures.chromeOffer + padding) }
        // An offer of 70,000-byte ufrag is under the size limit: it parses and `checkRemoteLimits` names the ufrag.
        let ufrag = try chrome { $0.replacingOccurrences(of: "a=ice-ufrag:EsAw", with: "a=ice-ufrag:\(String(repeating: "u", count: 70_000))") }
        #expect(refusal(ufrag)?.contains("ice-ufrag") == true)
    }

    @Test func candidateFieldsAreBounded() throws {
        let good = "candidate:3079375389 1 udp 2122260223 192.168.1.23 56143 typ host generation 0 network-id 1 network-cost 10"
        #expect(throws: Never.self) { try IceCandidate(parsing: good) }
        let bad: [(String, String)] = [
            ("candidate:\(String(repeating: "f", count: 33)) 1 udp 1 1.2.3.4 5 typ host", "foundation"),
            ("candidate:1 1 udp 1 \(String(repeating: "h", count: 250)).local 5 typ host", "address"),
            ("candidate:1 1 udp 1 1.2.3.4 5 typ host ufrag \(String(repeating: "u", count: 257))", "extension"),
            ("candidate:1 1 udp 1 1.2.3.4 5 typ host" + String(repeating: " n v", count: 17), "extension attributes"),
            (good + " x " + String(repeating: "y", count: 1000), "bytes"),
            (good + " x " + String(repeating: "y", count: 70_000), "bytes"),
        ]
        for (line, word) in bad {
            do {
                _ = try IceCandidate(parsing: line)
                Issue.record("accepted \(line.prefix(60))")
            } catch {
                #expect("\(error)".contains(word) && "\(error)".utf8.count < 300, "\("\(error)".prefix(300))")
            }
        }
        // A candidate built in code (not parsed) is checked by the same rules.
        let built = IceCandidate(foundation: String(repeating: "f", count: 40), priority: 1, address: .ip(IPAddress("1.2.3.4")!),
                                 port: 5, kind: .host)
        #expect(throws: EngineError.self) { try built.checkRemoteLimits() }
    }
}
