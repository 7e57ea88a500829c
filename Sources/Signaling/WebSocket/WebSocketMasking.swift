/// The masking transform of RFC 6455 §5.3 (its own inverse).
enum WebSocketMasking {
    static func apply(key: (UInt8, UInt8, UInt8, UInt8), to bytes: inout [UInt8]) {
        let k = [key.0, key.1, key.2, key.3]
        bytes.withUnsafeMutableBufferPointer { buffer in
            for i in buffer.indices { buffer[i] ^= k[i & 3] }
        }
    }
}
