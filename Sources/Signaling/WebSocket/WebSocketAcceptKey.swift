import Foundation
import COpenSSL

/// The opening-handshake key proof of RFC 6455 §4.2.2 (5.4):
/// `Sec-WebSocket-Accept = base64(SHA-1(Sec-WebSocket-Key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))`.
public enum WebSocketAcceptKey {
    public static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    public static func accept(forKey key: String) -> String {
        let input = Array((key + guid).utf8)
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        // No CryptoKit on Linux; OpenSSL is already linked for TLS (docs/toolchain-pitfalls.md §4c).
        let ok = input.withUnsafeBufferPointer { inp in
            EVP_Digest(inp.baseAddress, inp.count, &digest, &length, EVP_sha1(), nil)
        }
        precondition(ok == 1 && length == 20, "EVP_Digest(SHA-1) failed")
        return Data(digest[0..<20]).base64EncodedString()
    }

    /// A fresh client key: §4.1 "a randomly selected 16-byte value that has been base64-encoded".
    public static func randomKey() -> String {
        var g = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &g) }
        return Data(bytes).base64EncodedString()
    }

    /// §4.2.1 (5): the key "when decoded, is 16 bytes in length".
    public static func isValidKey(_ key: String) -> Bool {
        Data(base64Encoded: key)?.count == 16
    }
}
