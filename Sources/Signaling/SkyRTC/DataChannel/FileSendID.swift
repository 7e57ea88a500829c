/// The id a sender gives one file offer, echoed in every `accept`, `refuse` and `chunk` of it.
///
/// The original client makes it with `(Math.random() * Date.now()).toString(36).toUpperCase()` and replaces
/// the fraction's `.` with `-`, so almost every id it sends has one `-`: accepted here, or no file from the
/// original could ever be received. Both letter cases are accepted; ids this side makes are uppercase base 36.
public struct FileSendID: Hashable, Sendable, CustomStringConvertible {
    public static let maxLength = 64
    /// How many base-36 characters `random` makes: 62 bits of entropy, plenty for ids that only need to
    /// differ among one sender's offers.
    public static let generatedLength = 12

    public let rawValue: String

    /// Nil unless `text` is 1-64 characters of [0-9A-Za-z-].
    public init?(_ text: String) {
        let bytes = text.utf8
        guard !bytes.isEmpty, bytes.count <= Self.maxLength, bytes.allSatisfy(Self.isAllowed) else { return nil }
        rawValue = text
    }

    /// A fresh uppercase base-36 id from `random` (injected, so tests can repeat it).
    public static func random(using random: inout some RandomNumberGenerator) -> FileSendID {
        let digits = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
        var text: [UInt8] = []
        for _ in 0..<generatedLength { text.append(digits[Int(random.next(upperBound: UInt64(digits.count)))]) }
        return FileSendID(String(decoding: text, as: UTF8.self))!
    }

    public var description: String { rawValue }

    private static func isAllowed(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D
    }
}
