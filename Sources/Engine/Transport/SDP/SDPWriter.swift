/// Prints SDP with CRLF line ends (RFC 8866 §5) in the order Chrome uses, so diffs against browser SDP stay readable.
extension SessionDescription {
    public var sdpText: String {
        var lines: [String] = [
            "v=\(version)",
            "o=\(origin.username) \(origin.sessionID) \(origin.sessionVersion) \(origin.netType) \(origin.addrType) \(origin.address)",
            "s=\(sessionName)",
        ]
        lines += otherLines
        if let connection { lines.append("c=\(connection)") }
        lines.append("t=\(timing)")
        for g in groups { lines.append("a=group:" + ([g.semantics] + g.mids.map(\.rawValue)).joined(separator: " ")) }
        if iceLite { lines.append("a=ice-lite") }
        if let iceUfrag { lines.append("a=ice-ufrag:\(iceUfrag)") }
        if let icePwd { lines.append("a=ice-pwd:\(icePwd)") }
        if let iceOptions { lines.append("a=ice-options:\(iceOptions)") }
        for f in fingerprints { lines.append("a=fingerprint:\(f)") }
        if let setup { lines.append("a=setup:\(setup.rawValue)") }
        lines += attributes.map(\.sdpLine)
        for m in media { lines += m.sdpLines }
        return lines.joined(separator: "\r\n") + "\r\n"
    }
}

extension MediaDescription {
    var sdpLines: [String] {
        var lines = ["m=" + ([kind, String(port), proto] + formats).joined(separator: " ")]
        if let connection { lines.append("c=\(connection)") }
        lines += otherLines
        lines += candidates.map { "a=\($0.sdpValue)" }
        if let iceUfrag { lines.append("a=ice-ufrag:\(iceUfrag)") }
        if let icePwd { lines.append("a=ice-pwd:\(icePwd)") }
        if let iceOptions { lines.append("a=ice-options:\(iceOptions)") }
        for f in fingerprints { lines.append("a=fingerprint:\(f)") }
        if let setup { lines.append("a=setup:\(setup.rawValue)") }
        if let mid { lines.append("a=mid:\(mid)") }
        lines += extmaps.map { "a=extmap:\($0.sdpValue)" }
        if let direction { lines.append("a=\(direction.rawValue)") }
        lines += msids.map { "a=msid:\($0.sdpValue)" }
        if rtcpMux { lines.append("a=rtcp-mux") }
        if rtcpRsize { lines.append("a=rtcp-rsize") }
        // Per format, in m= line order: rtpmap, rtcp-fb, fmtp (Chrome's grouping); leftovers after.
        var printedMaps = Set<Int>(), printedFb = Set<Int>(), printedFmtp = Set<Int>()
        for pt in payloadTypes {
            for (i, m) in rtpMaps.enumerated() where m.payloadType == pt && !printedMaps.contains(i) {
                lines.append("a=rtpmap:\(m.sdpValue)"); printedMaps.insert(i)
            }
            for (i, f) in rtcpFeedback.enumerated() where f.payloadType == pt && !printedFb.contains(i) {
                lines.append("a=rtcp-fb:\(f.sdpValue)"); printedFb.insert(i)
            }
            for (i, f) in formatParameters.enumerated() where f.payloadType == pt && !printedFmtp.contains(i) {
                lines.append("a=fmtp:\(f.sdpValue)"); printedFmtp.insert(i)
            }
        }
        lines += rtpMaps.enumerated().filter { !printedMaps.contains($0.offset) }.map { "a=rtpmap:\($0.element.sdpValue)" }
        lines += rtcpFeedback.enumerated().filter { !printedFb.contains($0.offset) }.map { "a=rtcp-fb:\($0.element.sdpValue)" }
        lines += formatParameters.enumerated().filter { !printedFmtp.contains($0.offset) }.map { "a=fmtp:\($0.element.sdpValue)" }
        lines += ssrcGroups.map { "a=ssrc-group:\($0.sdpValue)" }
        lines += ssrcs.map { "a=ssrc:\($0.sdpValue)" }
        lines += attributes.map(\.sdpLine)
        if endOfCandidates { lines.append("a=end-of-candidates") }
        return lines
    }
}
