import COpenSSL

/// OpenSSL's thread-local error queue, read in one place for DTLS (Engine) and TLS (Signaling).
package enum OpenSSLErrors {
    /// Empties the queue and returns its oldest code (0 when it was empty) and every entry as text, oldest first.
    /// Reading all of them, not only the first, leaves the queue clean for the next call on this thread.
    package static func drain() -> (code: UInt, text: String) {
        var first: UInt = 0
        var parts: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            if first == 0 { first = code }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            parts.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return (first, parts.isEmpty ? "no OpenSSL error queued" : parts.joined(separator: "; "))
    }
}

/// An OpenSSL call that failed, with what the error queue said (drained when this is made).
package struct OpenSSLFailure: Error, Sendable, CustomStringConvertible {
    /// The failing call, e.g. "X509_sign".
    package let call: String
    /// The oldest queued error code, 0 when OpenSSL queued none.
    package let code: UInt
    package let text: String

    package init(call: String) {
        self.call = call
        (code, text) = OpenSSLErrors.drain()
    }

    package var description: String { "\(call): \(text)" }
}
