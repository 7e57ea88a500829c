/// Parses SDP text. Lenient where RFC 8866 allows (unknown lines and attributes are kept verbatim, garbage lines
/// are dropped) and strict where meaning depends on it (a `v=` line must exist, `m=` lines must be well formed).
extension SessionDescription {
    public init(parsing text: String) throws {
        func bad(_ r: String) -> EngineError { .malformed(what: "SDP", reason: r) }
        // Before any splitting: the text is a remote party's, and the limit bounds what parsing it may cost.
        guard text.utf8.count <= RemoteInputLimits.sdpBytes else {
            throw bad("\(text.utf8.count) bytes; at most \(RemoteInputLimits.sdpBytes) are accepted")
        }
        self.init(origin: SdpOrigin(sessionID: "0", sessionVersion: "0"))
        var sawVersion = false
        for rawLine in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            var line = Substring(rawLine)
            if line.hasSuffix("\r") { line = line.dropLast() }
            // RFC 8866 §5: <type>=<value>, type a single letter. Anything else is not SDP: ignore it.
            guard line.count >= 2, let type = line.first, type.isASCII, type.isLetter,
                  line[line.index(after: line.startIndex)] == "=" else { continue }
            let value = line.dropFirst(2)
            switch type {
            case "v":
                guard let v = Int(value) else { throw bad("version \(RemoteInputLimits.quote(value))") }
                version = v
                sawVersion = true
            case "m":
                media.append(try Self.parseMediaLine(value))
            case "a":
                let (name, attrValue) = Self.splitAttribute(value)
                if media.isEmpty {
                    applySessionAttribute(name: name, value: attrValue)
                } else {
                    media[media.count - 1].apply(name: name, value: attrValue)
                }
            case "c":
                if media.isEmpty { connection = String(value) } else { media[media.count - 1].connection = String(value) }
            case "o" where media.isEmpty:
                let f = value.split(separator: " ")
                if f.count == 6 {
                    origin = SdpOrigin(sessionID: String(f[1]), sessionVersion: String(f[2]))
                    origin.username = String(f[0])
                    origin.netType = String(f[3])
                    origin.addrType = String(f[4])
                    origin.address = String(f[5])
                } else {
                    otherLines.append(String(line))
                }
            case "s" where media.isEmpty:
                sessionName = String(value)
            case "t" where media.isEmpty:
                timing = String(value)
            default:
                if media.isEmpty { otherLines.append(String(line)) } else { media[media.count - 1].otherLines.append(String(line)) }
            }
        }
        guard sawVersion else { throw bad("no v= line") }
    }

    /// `m=<media> <port>[/<count>] <proto> <fmt> ...` (RFC 8866 §5.14).
    static func parseMediaLine(_ value: Substring) throws -> MediaDescription {
        let f = value.split(separator: " ")
        guard f.count >= 3, let port = UInt16(f[1].split(separator: "/").first ?? "") else {
            throw EngineError.malformed(what: "SDP", reason: "m= line \(RemoteInputLimits.quote(value))")
        }
        return MediaDescription(kind: String(f[0]), port: port, proto: String(f[2]), formats: f.dropFirst(3).map(String.init),
                                connection: nil)
    }

    static func splitAttribute(_ v: Substring) -> (String, Substring?) {
        guard let colon = v.firstIndex(of: ":") else { return (String(v), nil) }
        return (String(v[..<colon]), v[v.index(after: colon)...])
    }

    mutating func applySessionAttribute(name: String, value: Substring?) {
        switch (name, value) {
        case ("group", let v?):
            let parts = v.split(separator: " ")
            if let semantics = parts.first {
                groups.append(SdpGroup(semantics: String(semantics), mids: parts.dropFirst().map { Mid(rawValue: String($0)) }))
                return
            }
        case ("ice-lite", nil): iceLite = true; return
        case ("ice-ufrag", let v?): iceUfrag = String(v); return
        case ("ice-pwd", let v?): icePwd = String(v); return
        case ("ice-options", let v?): iceOptions = String(v); return
        case ("fingerprint", let v?):
            if let fp = try? DtlsFingerprint(parsing: v) { fingerprints.append(fp); return }
        case ("setup", let v?):
            if let s = DtlsSetup(rawValue: String(v)) { setup = s; return }
        default: break
        }
        attributes.append(SdpAttribute(name: name, value: value.map(String.init)))
    }
}

extension MediaDescription {
    /// Interprets one media-level attribute; unknown or malformed ones are kept verbatim in `attributes`.
    mutating func apply(name: String, value: Substring?) {
        switch (name, value) {
        case ("mid", let v?): mid = Mid(rawValue: String(v)); return
        case ("msid", let v?): if let m = MediaStreamID(parsing: v) { msids.append(m); return }
        case ("ice-ufrag", let v?): iceUfrag = String(v); return
        case ("ice-pwd", let v?): icePwd = String(v); return
        case ("ice-options", let v?): iceOptions = String(v); return
        case ("fingerprint", let v?): if let fp = try? DtlsFingerprint(parsing: v) { fingerprints.append(fp); return }
        case ("setup", let v?): if let s = DtlsSetup(rawValue: String(v)) { setup = s; return }
        case ("candidate", let v?): if let c = try? IceCandidate(parsing: "candidate:" + v) { candidates.append(c); return }
        case ("end-of-candidates", nil): endOfCandidates = true; return
        case ("rtcp-mux", nil): rtcpMux = true; return
        case ("rtcp-rsize", nil): rtcpRsize = true; return
        case ("rtpmap", let v?): if let m = RtpMap(parsing: v) { rtpMaps.append(m); return }
        case ("fmtp", let v?): if let f = FormatParameters(parsing: v) { formatParameters.append(f); return }
        case ("rtcp-fb", let v?): if let f = RtcpFeedback(parsing: v) { rtcpFeedback.append(f); return }
        case ("extmap", let v?): if let e = Extmap(parsing: v) { extmaps.append(e); return }
        case ("ssrc", let v?): if let s = SsrcAttribute(parsing: v) { ssrcs.append(s); return }
        case ("ssrc-group", let v?): if let g = SsrcGroup(parsing: v) { ssrcGroups.append(g); return }
        case (let d, nil) where MediaDirection(rawValue: d) != nil: direction = MediaDirection(rawValue: d); return
        default: break
        }
        attributes.append(SdpAttribute(name: name, value: value.map(String.init)))
    }
}
