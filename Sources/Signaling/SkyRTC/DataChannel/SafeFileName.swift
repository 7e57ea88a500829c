/// Turns a name a peer offers into one that is safe to create in the download directory, and numbers it
/// when taken. The peer chooses the name, so nothing of it may steer where the file lands or what the
/// terminal shows: directory parts, control and invisible format characters (a U+202E makes "gpj.exe" read
/// as "exe.jpg"), leading dots (hidden files, "." and "..") all go.
public enum SafeFileName {
    /// Below NAME_MAX (255) with room for " (100)" and a filesystem's own suffixes.
    public static let maxBytes = 200
    /// An extension longer than this is treated as part of the name when cutting to `maxBytes`.
    static let maxExtensionBytes = 16
    /// How many numbered names are tried before the offer fails.
    public static let maxAttempts = 100

    public static func sanitize(_ offered: String) -> String {
        // Base name: what follows the last separator of either convention.
        let base = offered.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "/" || $0 == "\\" }).last ?? ""
        var scalars = String.UnicodeScalarView()
        for scalar in base.unicodeScalars where !isUnsafe(scalar) { scalars.append(scalar) }
        var name = Substring(String(scalars))
        while name.first == "." { name.removeFirst() }
        let trimmed = String(name)
        let cut = cutToMaxBytes(trimmed)
        return cut.isEmpty ? "file" : cut
    }

    /// The name for the `attempt`th try: the name itself, then "stem (1).ext", "stem (2).ext", ...
    public static func numbered(_ name: String, attempt: Int) -> String {
        guard attempt > 0 else { return name }
        let (stem, ext) = split(name)
        return "\(stem) (\(attempt))\(ext)"
    }

    /// C0 and C1 controls, DEL, format characters (bidirectional overrides, zero-width ones) and line and
    /// paragraph separators.
    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned: return true
        default: return false
        }
    }

    /// "name.tar" → ("name", ".tar"); no extension, or a leading-dot-only one, → (name, "").
    static func split(_ name: String) -> (stem: Substring, ext: Substring) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex,
              name.utf8[dot...].count <= maxExtensionBytes else { return (name[...], "") }
        return (name[..<dot], name[dot...])
    }

    /// Cuts on a character boundary, keeping a short extension so the file still opens with the right program.
    static func cutToMaxBytes(_ name: String) -> String {
        guard name.utf8.count > maxBytes else { return name }
        let (stem, ext) = split(name)
        let budget = maxBytes - ext.utf8.count
        var kept = ""
        var used = 0
        for character in stem {
            let n = character.utf8.count
            if used + n > budget { break }
            kept.append(character)
            used += n
        }
        return String(kept) + ext
    }
}
