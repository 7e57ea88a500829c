/// CRC32c (Castagnoli, reflected polynomial 0x82F63B78), the SCTP checksum (RFC 9260 Appendix A). Sliced by
/// eight tables: a file transfer checksums every byte it carries, so the byte-at-a-time loop would dominate.
enum Crc32c {
    private static let tables: [[UInt32]] = {
        var t = [[UInt32]](repeating: [UInt32](repeating: 0, count: 256), count: 8)
        for n in 0..<256 {
            var c = UInt32(n)
            for _ in 0..<8 { c = (c & 1) != 0 ? 0x82F6_3B78 ^ (c >> 1) : c >> 1 }
            t[0][n] = c
        }
        for n in 0..<256 {
            for k in 1..<8 { t[k][n] = (t[k - 1][n] >> 8) ^ t[0][Int(t[k - 1][n] & 0xFF)] }
        }
        return t
    }()

    private static let flat: [UInt32] = tables.flatMap { $0 }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        flat.withUnsafeBufferPointer { t in
            bytes.withUnsafeBufferPointer { b in
                var i = 0
                let n = b.count
                while n - i >= 8 {
                    let lo = crc ^ (UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24)
                    let hi = UInt32(b[i + 4]) | UInt32(b[i + 5]) << 8 | UInt32(b[i + 6]) << 16 | UInt32(b[i + 7]) << 24
                    crc = t[7 * 256 + Int(lo & 0xFF)] ^ t[6 * 256 + Int((lo >> 8) & 0xFF)]
                        ^ t[5 * 256 + Int((lo >> 16) & 0xFF)] ^ t[4 * 256 + Int(lo >> 24)]
                        ^ t[3 * 256 + Int(hi & 0xFF)] ^ t[2 * 256 + Int((hi >> 8) & 0xFF)]
                        ^ t[1 * 256 + Int((hi >> 16) & 0xFF)] ^ t[Int(hi >> 24)]
                    i += 8
                }
                while i < n {
                    crc = t[Int((crc ^ UInt32(b[i])) & 0xFF)] ^ (crc >> 8)
                    i += 1
                }
            }
        }
        return crc ^ 0xFFFF_FFFF
    }
}
