/// How many colours the terminal can show, which decides the SGR sequences the renderer writes.
public enum ColorMode: String, Sendable, CaseIterable, CustomStringConvertible {
    /// 24-bit `38;2;r;g;b` / `48;2;r;g;b`.
    case truecolor
    /// The xterm 256-colour palette (`38;5;n`), restricted to entries 16-255 (see `Palette`).
    case palette256 = "256"
    /// The 16 ANSI colours (`30-37`, `90-97`, `40-47`, `100-107`).
    case palette16 = "16"
    /// No colour: the terminal's default foreground and background only (one bit a pixel).
    case monochrome = "mono"

    public var description: String { rawValue }

    /// Parses a `--color` value: `truecolor`/`24bit`/`direct`, `256`, `16`/`ansi`, `mono`/`none`/`2`.
    public init?(argument: String) {
        switch argument.lowercased() {
        case "truecolor", "24bit", "24-bit", "direct", "rgb": self = .truecolor
        case "256", "palette256", "xterm-256": self = .palette256
        case "16", "ansi", "palette16", "8": self = .palette16
        case "mono", "monochrome", "none", "2", "1": self = .monochrome
        default: return nil
        }
    }

    /// Detects the mode from the environment and the terminfo `colors` capability.
    ///
    /// `COLORTERM=truecolor|24bit` is the de-facto signal for 24-bit colour (terminfo has no
    /// portable capability for it; only `*-direct` entries and `RGB` do). Otherwise terminfo's
    /// `colors` decides; without terminfo, `TERM` names such as `*-256color` do. `NO_COLOR`
    /// (no-color.org) and `TERM=dumb` ask for none.
    public static func detect(environment env: [String: String], terminfoColors: Int?) -> ColorMode {
        if let v = env["NO_COLOR"], !v.isEmpty { return .monochrome }
        let term = (env["TERM"] ?? "").lowercased()
        if term == "dumb" { return .monochrome }
        let colorterm = (env["COLORTERM"] ?? "").lowercased()
        if colorterm == "truecolor" || colorterm == "24bit" { return .truecolor }
        if term.hasSuffix("-direct") || term.contains("truecolor") { return .truecolor }
        if let n = terminfoColors, n > 0 {
            if n >= 1 << 24 { return .truecolor }
            if n >= 256 { return .palette256 }
            if n >= 8 { return .palette16 }
            return .monochrome
        }
        if term.contains("256color") { return .palette256 }
        if term.isEmpty { return .monochrome }
        return .palette16
    }
}
