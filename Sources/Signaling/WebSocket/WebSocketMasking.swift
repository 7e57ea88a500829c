/// The masking transform of RFC 6455 §5.3 (its own inverse): "octet i of the transformed data is the
/// XOR of octet i of the original data with octet at index i modulo 4 of the masking key". Every
/// client frame the server reads goes through here, so it works on eight bytes at a time.
enum WebSocketMasking {
    static func apply(key: (UInt8, UInt8, UInt8, UInt8), to bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { apply(key: key, to: $0) }
    }

    static func apply(key: (UInt8, UInt8, UInt8, UInt8), to buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress else { return }
        apply(key: key, from: UnsafeRawPointer(base), to: base, count: buffer.count)
    }

    /// The payload of a masked frame, unmasked while it is copied out of the receive buffer (one
    /// pass over the bytes instead of a copy and then a transform).
    static func unmasked(_ source: UnsafeRawBufferPointer, key: (UInt8, UInt8, UInt8, UInt8)) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: source.count) { destination, initialized in
            if let from = source.baseAddress, let to = destination.baseAddress {
                apply(key: key, from: from, to: UnsafeMutableRawPointer(to), count: source.count)
            }
            initialized = source.count
        }
    }

    /// `source` and `destination` are either the same bytes or do not overlap.
    private static func apply(key: (UInt8, UInt8, UInt8, UInt8), from source: UnsafeRawPointer,
                              to base: UnsafeMutableRawPointer, count: Int) {
        // The key's four octets in memory order, twice: a word loaded at an offset that is a multiple
        // of 8 (so of 4) meets octet j of the key at its byte j, whatever the machine's byte order.
        var key8: UInt64 = 0
        withUnsafeMutableBytes(of: &key8) { k in
            k[0] = key.0; k[1] = key.1; k[2] = key.2; k[3] = key.3
            k[4] = key.0; k[5] = key.1; k[6] = key.2; k[7] = key.3
        }
        var i = 0
        while i + 8 <= count {
            let word = source.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            base.storeBytes(of: word ^ key8, toByteOffset: i, as: UInt64.self)
            i += 8
        }
        while i < count {
            let k: UInt8
            switch i & 3 {
            case 0: k = key.0
            case 1: k = key.1
            case 2: k = key.2
            default: k = key.3
            }
            base.storeBytes(of: source.load(fromByteOffset: i, as: UInt8.self) ^ k, toByteOffset: i, as: UInt8.self)
            i += 1
        }
    }
}
