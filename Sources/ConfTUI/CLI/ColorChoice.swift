import Renderer

/// The `--color` option of every command that draws video (`demo`, `join`, `preview`): declared and parsed here
/// once, so they accept the same words.
enum ColorChoice: Equatable {
    /// Detected from the terminal (COLORTERM, TERM and, where the command reads it, terminfo).
    case auto
    case fixed(ColorMode)

    static let option = OptionSpec.value("color", "MODE", "auto, truecolor, 256, 16 or mono (default: auto, from the terminal)")

    /// `--color`: `auto` or what `ColorMode(argument:)` takes (`truecolor`, `256`, `16`, `mono` and their aliases).
    static func parse(_ args: ParsedArguments) throws -> ColorChoice {
        guard let text = args.value("color"), text.lowercased() != "auto" else { return .auto }
        guard let mode = ColorMode(argument: text) else {
            throw UsageError("--color takes auto, truecolor, 256, 16 or mono, not '\(text)'")
        }
        return .fixed(mode)
    }

    /// The renderer's colour mode: the override, or detected from COLORTERM, TERM and `terminfoColors` when known
    /// (asked only when detecting: reading terminfo starts a curses screen).
    func renderMode(environment: [String: String], terminfoColors: @autoclosure () -> Int? = nil) -> ColorMode {
        switch self {
        case .auto: return ColorMode.detect(environment: environment, terminfoColors: terminfoColors())
        case .fixed(let mode): return mode
        }
    }

    /// Whether the chrome (labels, status bar) may use colour: not when the user asked for none.
    var allowsColor: Bool { self != .fixed(.monochrome) }
}
