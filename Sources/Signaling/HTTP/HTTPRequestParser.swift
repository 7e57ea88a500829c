import Foundation

/// Parses an HTTP/1.1 request head from the bytes received so far. Sans-IO: the server calls it after
/// each read until it returns something other than `.incomplete`.
public enum HTTPRequestParser {
    public enum Outcome: Equatable, Sendable {
        /// The blank line ending the head has not arrived yet.
        case incomplete
        /// A full head; `consumed` bytes belong to it (anything after is the first bytes of the next protocol).
        case complete(HTTPRequestHead, consumed: Int)
        /// Not HTTP/1.1: answer 400.
        case invalid(String)
        /// The head grew past the limit without ending: answer 431 (RFC 6585 §5).
        case tooLarge
    }

    public static func parse(_ bytes: [UInt8], maxHeadBytes: Int) -> Outcome {
        guard let end = headEnd(bytes) else {
            return bytes.count > maxHeadBytes ? .tooLarge : .incomplete
        }
        guard end <= maxHeadBytes else { return .tooLarge }
        // Header bytes are ASCII by RFC 9110 §5.5 (obs-text is tolerated as Latin-1).
        let text = String(decoding: bytes[0..<(end - 4)], as: UTF8.self)
        var lines = text.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ", omittingEmptySubsequences: false)
        guard requestLine.count == 3, !requestLine[0].isEmpty, !requestLine[1].isEmpty,
              requestLine[2].hasPrefix("HTTP/1.") else {
            return .invalid("malformed request line")
        }
        var headers: [(name: String, value: String)] = []
        for line in lines {
            // RFC 9112 §5.2: obsolete line folding; we reject it rather than guess.
            guard let colon = line.firstIndex(of: ":"), !line.hasPrefix(" "), !line.hasPrefix("\t") else {
                return .invalid("malformed header line")
            }
            let name = line[..<colon]
            guard !name.isEmpty, !name.contains(" ") else { return .invalid("malformed header name") }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
            headers.append((name.lowercased(), value))
        }
        let head = HTTPRequestHead(method: String(requestLine[0]), target: String(requestLine[1]),
                                   version: String(requestLine[2]), headers: headers)
        return .complete(head, consumed: end)
    }

    /// The index just past "\r\n\r\n", if present.
    static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 3..<bytes.count where bytes[i] == 10 && bytes[i - 1] == 13 && bytes[i - 2] == 10 && bytes[i - 3] == 13 {
            return i + 1
        }
        return nil
    }
}
