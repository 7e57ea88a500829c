/// Reads a `data:<mime>;base64,<payload>` URL arriving in slices that may split anywhere, the header
/// included, and hands back the payload's bytes as they are decoded.
public struct DataURLStreamDecoder: Sendable {
    public enum Failure: Error, Equatable, Sendable {
        /// Not `data:`, no `;base64` before the comma, or a header longer than `maxHeaderLength`.
        case badHeader
        case badPayload(StreamingBase64Decoder.Failure)
    }

    /// Browsers write `data:` plus the file's MIME type (at most 127 + 1 + 127 characters by RFC 6838 §4.2)
    /// and `;base64,`: 300 leaves room and keeps a peer from making us hold an endless header.
    public static let maxHeaderLength = 300

    private var header: [UInt8] = []
    private var inPayload = false
    private var base64 = StreamingBase64Decoder()

    public init() {}

    public mutating func decode(_ text: some Collection<UInt8>, into out: inout [UInt8]) throws(Failure) {
        var rest = text[...]
        if !inPayload {
            guard let comma = rest.firstIndex(of: UInt8(ascii: ",")) else {
                header.append(contentsOf: rest)
                guard header.count <= Self.maxHeaderLength, Self.couldStart(header) else { throw .badHeader }
                return
            }
            header.append(contentsOf: rest[..<comma])
            guard header.count <= Self.maxHeaderLength, Self.isBase64Header(header) else { throw .badHeader }
            inPayload = true
            rest = rest[rest.index(after: comma)...]
        }
        do { try base64.decode(rest, into: &out) } catch { throw .badPayload(error) }
    }

    /// Ends the URL. A browser reads an empty file as just `data:`, which is accepted as zero bytes.
    public mutating func finish(into out: inout [UInt8]) throws(Failure) {
        guard inPayload else {
            guard header == Array("data:".utf8) else { throw .badHeader }
            return
        }
        do { try base64.finish(into: &out) } catch { throw .badPayload(error) }
    }

    private static let scheme = Array("data:".utf8)
    private static let marker = Array(";base64".utf8)

    /// Whether `bytes`, a header still arriving, can yet become `data:...`.
    private static func couldStart(_ bytes: [UInt8]) -> Bool {
        let n = min(bytes.count, scheme.count)
        return lowercased(bytes.prefix(n)) == Array(scheme.prefix(n))
    }

    private static func isBase64Header(_ bytes: [UInt8]) -> Bool {
        bytes.count >= scheme.count + marker.count && lowercased(bytes.prefix(scheme.count)) == scheme
            && lowercased(bytes.suffix(marker.count)) == marker
    }

    private static func lowercased(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
    }
}
