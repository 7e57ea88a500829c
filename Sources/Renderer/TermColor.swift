/// A colour as the terminal holds it in one SGR slot: the default colour, a palette index or
/// 24-bit RGB. Packed in one word so the screen model compares cells cheaply.
public struct TermColor: Hashable, Sendable, CustomStringConvertible {
    public let raw: UInt32

    private static let indexedTag: UInt32 = 1 << 24
    private static let defaultForegroundTag: UInt32 = 2 << 24
    private static let defaultBackgroundTag: UInt32 = 3 << 24

    /// The terminal's default foreground (`39`): only the foreground slot can hold it.
    public static let defaultForeground = TermColor(raw: defaultForegroundTag)
    /// The terminal's default background (`49`, and what `0` and erasing leave): background slot only.
    public static let defaultBackground = TermColor(raw: defaultBackgroundTag)
    public static func rgb(_ c: RGB) -> TermColor { TermColor(raw: UInt32(c.r) << 16 | UInt32(c.g) << 8 | UInt32(c.b)) }
    public static func indexed(_ n: UInt8) -> TermColor { TermColor(raw: indexedTag | UInt32(n)) }

    public var isDefault: Bool { raw >= Self.defaultForegroundTag }
    /// Whether the colour can be put in the foreground (or background) slot.
    @inline(__always) func fits(background: Bool) -> Bool {
        background ? raw != Self.defaultForegroundTag : raw != Self.defaultBackgroundTag
    }
    public var index: UInt8? { raw & 0xFF00_0000 == Self.indexedTag ? UInt8(raw & 0xFF) : nil }
    public var rgbValue: RGB? {
        raw & 0xFF00_0000 == 0 ? RGB(UInt8(raw >> 16 & 0xFF), UInt8(raw >> 8 & 0xFF), UInt8(raw & 0xFF)) : nil
    }

    public var description: String {
        if raw == Self.defaultForegroundTag { return "defaultFg" }
        if raw == Self.defaultBackgroundTag { return "defaultBg" }
        if let i = index { return "idx(\(i))" }
        return rgbValue!.description
    }

    /// Appends this colour's SGR parameters for the foreground (or background) slot, without
    /// the `ESC [` and `m`. Indices 0-15 use the short ANSI forms (30-37/90-97, 40-47/100-107).
    @inline(__always) func appendParameters(background: Bool, to out: inout [UInt8]) {
        if isDefault {
            out.append(background ? 0x34 : 0x33); out.append(0x39)     // 49 / 39
        } else if let i = index {
            if i < 8 {
                out.append(background ? 0x34 : 0x33); out.append(0x30 + i)
            } else if i < 16 {
                if background { out.append(0x31); out.append(0x30); out.append(0x30 + i - 8) }   // 100-107
                else { out.append(0x39); out.append(0x30 + i - 8) }                               // 90-97
            } else {
                out.append(background ? 0x34 : 0x33); out.append(0x38); out.append(0x3B); out.append(0x35); out.append(0x3B)
                appendDecimal(Int(i), to: &out)
            }
        } else {
            out.append(background ? 0x34 : 0x33); out.append(0x38); out.append(0x3B); out.append(0x32); out.append(0x3B)
            appendDecimal(Int(raw >> 16 & 0xFF), to: &out); out.append(0x3B)
            appendDecimal(Int(raw >> 8 & 0xFF), to: &out); out.append(0x3B)
            appendDecimal(Int(raw & 0xFF), to: &out)
        }
    }

    /// The byte length of `appendParameters` (used to choose the cheapest glyph).
    @inline(__always) func parameterLength(background: Bool) -> Int {
        if isDefault { return 2 }
        if let i = index { return i < 8 ? 2 : i < 16 ? (background ? 3 : 2) : 5 + decimalLength(Int(i)) }
        return 5 + decimalLength(Int(raw >> 16 & 0xFF)) + decimalLength(Int(raw >> 8 & 0xFF)) + decimalLength(Int(raw & 0xFF)) + 2
    }
}

@inline(__always) func decimalLength(_ n: Int) -> Int { n < 10 ? 1 : n < 100 ? 2 : n < 1000 ? 3 : n < 10000 ? 4 : 5 }

@inline(__always) func appendDecimal(_ n: Int, to out: inout [UInt8]) {
    if n >= 10000 { out.append(0x30 + UInt8(n / 10000 % 10)) }
    if n >= 1000 { out.append(0x30 + UInt8(n / 1000 % 10)) }
    if n >= 100 { out.append(0x30 + UInt8(n / 100 % 10)) }
    if n >= 10 { out.append(0x30 + UInt8(n / 10 % 10)) }
    out.append(0x30 + UInt8(n % 10))
}
