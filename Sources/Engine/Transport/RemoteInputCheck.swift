/// Checks a remote description or candidate against `RemoteInputLimits` before anything uses it. Parsing stays
/// lenient about what it does not understand (RFC 8866 §5); these checks are strict about the size of what it does,
/// because those values are copied into STUN attributes, RTP header extensions and logs later on.
extension SessionDescription {
    /// Throws `EngineError.malformed` naming the first value over its limit.
    public func checkRemoteLimits() throws(EngineError) {
        let what = "remote SDP"
        guard media.count <= RemoteInputLimits.mediaSections else {
            throw RemoteInputLimits.refuse(what, "\(media.count) m= sections; at most \(RemoteInputLimits.mediaSections) are accepted")
        }
        try Self.checkCredentials(ufrag: iceUfrag, pwd: icePwd, what)
        for f in fingerprints { try f.checkRemoteLimits(what) }
        for g in groups {
            for mid in g.mids { try RemoteInputLimits.check(mid.rawValue, bytes: RemoteInputLimits.midBytes, what, "group mid", rule: "conftui's limit") }
        }
        for (index, section) in media.enumerated() { try section.checkRemoteLimits("\(what) section \(index)") }
    }

    static func checkCredentials(ufrag: String?, pwd: String?, _ what: String) throws(EngineError) {
        // RFC 8839 §5.4: ufrag = 4*256ice-char, password = 22*256ice-char. The ufrag goes into every connectivity
        // check's USERNAME (RFC 8445 §7.2.2), which RFC 5389 §15.3 caps at 512 bytes.
        if let ufrag {
            try RemoteInputLimits.check(ufrag, bytes: RemoteInputLimits.iceUfragLength, what, "ice-ufrag", rule: "RFC 8839 §5.4")
            guard RemoteInputLimits.isIceChars(ufrag) else {
                throw RemoteInputLimits.refuse(what, "ice-ufrag \(RemoteInputLimits.quote(ufrag)) has characters other than ice-char (RFC 8839 §5.4)")
            }
        }
        if let pwd {
            try RemoteInputLimits.check(pwd, bytes: RemoteInputLimits.icePwdLength, what, "ice-pwd", rule: "RFC 8839 §5.4")
            guard RemoteInputLimits.isIceChars(pwd) else {
                throw RemoteInputLimits.refuse(what, "ice-pwd has characters other than ice-char (RFC 8839 §5.4)")
            }
        }
    }
}

extension MediaDescription {
    func checkRemoteLimits(_ what: String) throws(EngineError) {
        typealias L = RemoteInputLimits
        if let mid { try L.check(mid.rawValue, bytes: L.midBytes, what, "mid", rule: "conftui's limit (RFC 8843 §15 sends it in RTP)") }
        try SessionDescription.checkCredentials(ufrag: iceUfrag, pwd: icePwd, what)
        for f in fingerprints { try f.checkRemoteLimits(what) }
        for m in msids {
            try L.check(m.stream, bytes: L.msidPartBytes, what, "msid stream id", rule: "RFC 8830 §2")
            if let track = m.track { try L.check(track, bytes: L.msidPartBytes, what, "msid track id", rule: "RFC 8830 §2") }
        }
        for s in ssrcs {
            switch s.name {
            case "cname": try L.check(s.value ?? "", bytes: L.cnameBytes, what, "ssrc cname", rule: "RFC 3550 §6.5")
            case "msid":
                for part in (s.value ?? "").split(separator: " ") {
                    try L.check(part, bytes: L.msidPartBytes, what, "ssrc msid", rule: "RFC 8830 §2")
                }
            default: break
            }
        }
        // RFC 8285 §5: extension ids are 1-14 (one-byte form) or 1-255 (two-byte form).
        for e in extmaps where !(1...255).contains(e.id) {
            throw L.refuse(what, "extmap id \(e.id); RFC 8285 §5 allows 1-255")
        }
        for c in candidates { try c.checkRemoteLimits() }
    }
}

extension DtlsFingerprint {
    func checkRemoteLimits(_ what: String) throws(EngineError) {
        try RemoteInputLimits.check(algorithm, bytes: RemoteInputLimits.fingerprintAlgorithmBytes, what, "fingerprint hash", rule: "RFC 8122 §5")
        let range = RemoteInputLimits.fingerprintBytes
        guard range.contains(bytes.count) else {
            throw RemoteInputLimits.refuse(what, "fingerprint of \(bytes.count) bytes; RFC 8122 §5 digests are \(range.lowerBound)-\(range.upperBound)")
        }
    }
}

extension IceCandidate {
    /// Throws `EngineError.malformed` when a field is over its limit (RFC 8839 §5.1 and `RemoteInputLimits`).
    public func checkRemoteLimits() throws(EngineError) {
        typealias L = RemoteInputLimits
        let what = "candidate"
        try L.check(foundation, bytes: L.foundationLength, what, "foundation", rule: "RFC 8839 §5.1")
        try L.check(address.description, bytes: L.candidateAddressBytes, what, "address", rule: "RFC 1035 §2.3.4")
        if let relatedAddress {
            try L.check(relatedAddress.description, bytes: L.candidateAddressBytes, what, "raddr", rule: "RFC 1035 §2.3.4")
        }
        guard extensions.count <= L.candidateExtensions else {
            throw L.refuse(what, "\(extensions.count) extension attributes; at most \(L.candidateExtensions) are accepted")
        }
        for e in extensions {
            try L.check(e.name, bytes: L.candidateExtensionBytes, what, "extension name", rule: "conftui's limit")
            try L.check(e.value, bytes: L.candidateExtensionBytes, what, "extension \(L.quote(e.name))", rule: "conftui's limit")
        }
    }
}
