import COpenSSL

/// Collects what OpenSSL writes, one array per `BIO_write`. A memory BIO would concatenate a whole flight into one
/// read (docs/toolchain-pitfalls.md §2); this custom BIO keeps DTLS records in the datagrams OpenSSL sized for the MTU.
final class DatagramSink {
    var datagrams: [[UInt8]] = []
}

enum DatagramWriteBIO {
    /// Created once; OpenSSL only reads it. `nonisolated(unsafe)` because OpaquePointer is not Sendable, and safe
    /// because it is written exactly once by the thread-safe lazy initialiser of a static and never mutated.
    nonisolated(unsafe) static let method: OpaquePointer = {
        let method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "conftui-datagram")!
        BIO_meth_set_write(method) { bio, data, length in
            guard let bio, let data, length >= 0, let raw = BIO_get_data(bio) else { return -1 }
            let sink = Unmanaged<DatagramSink>.fromOpaque(raw).takeUnretainedValue()
            sink.datagrams.append(Array(UnsafeRawBufferPointer(start: data, count: Int(length))))
            return length
        }
        BIO_meth_set_ctrl(method) { _, command, _, _ in
            // OpenSSL flushes after each flight; say yes. Everything else (MTU queries are off) is unsupported.
            command == BIO_CTRL_FLUSH ? 1 : 0
        }
        BIO_meth_set_create(method) { bio in
            BIO_set_init(bio, 1)
            return 1
        }
        return method
    }()

    /// A BIO writing into `sink`, which the caller keeps alive for the BIO's lifetime.
    static func make(sink: DatagramSink) -> OpaquePointer? {
        guard let bio = BIO_new(method) else { return nil }
        BIO_set_data(bio, Unmanaged.passUnretained(sink).toOpaque())
        return bio
    }
}
