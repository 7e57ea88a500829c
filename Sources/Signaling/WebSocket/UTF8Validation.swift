/// UTF-8 well-formedness over bytes, without building a `String`. RFC 6455 §8.1: "When an endpoint
/// is to interpret a byte stream as UTF-8 but finds that the byte stream is not, in fact, a valid
/// UTF-8 stream, that endpoint MUST _Fail the WebSocket Connection_." The server checks every text
/// message, so ASCII (nearly all signaling bytes) is checked eight bytes at a time.
enum UTF8Validation {
    static func isValid(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { isValid($0) }
    }

    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        let raw = UnsafeRawPointer(base)
        var i = 0
        while i < count {
            // No byte of the word has its top bit set: eight ASCII characters.
            while i + 8 <= count, raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                i += 8
            }
            guard i < count else { return true }
            let b0 = base[i]
            if b0 < 0x80 {
                i += 1
                continue
            }
            // The well-formed sequences (no overlong forms, no surrogates, nothing past U+10FFFF):
            //   UTF8-2 = %xC2-DF UTF8-tail
            //   UTF8-3 = %xE0 %xA0-BF UTF8-tail / %xE1-EC 2( UTF8-tail ) / %xED %x80-9F UTF8-tail / %xEE-EF 2( UTF8-tail )
            //   UTF8-4 = %xF0 %x90-BF 2( UTF8-tail ) / %xF1-F3 3( UTF8-tail ) / %xF4 %x80-8F 2( UTF8-tail )
            let length: Int
            var low: UInt8 = 0x80, high: UInt8 = 0xBF
            switch b0 {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F
            default: return false
            }
            guard count - i >= length else { return false }
            let b1 = base[i + 1]
            guard b1 >= low && b1 <= high else { return false }
            for j in 2..<length where base[i + j] & 0xC0 != 0x80 { return false }
            i += length
        }
        return true
    }
}
