/// The secret a WebSocket connection's member presents to reconnect as itself (docs/skyrtc-protocol.md §10):
/// 128 bits from the system's CSPRNG as 32 lowercase hex digits. A capability (whoever holds it can take the
/// member's place), so the server sends it only to its owner, in `_peers` on that same connection, and never logs it.
enum ResumeToken {
    static func random() -> String {
        var rng = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(32)
        for _ in 0..<2 {
            let word: UInt64 = rng.next()
            for shift in stride(from: 60, through: 0, by: -4) {
                text.append(digits[Int((word >> UInt64(shift)) & 0xF)])
            }
        }
        return String(decoding: text, as: UTF8.self)
    }
}
