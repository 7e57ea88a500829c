import Foundation

/// Turns the page's HTML and the stylesheet and script it names into one self-contained document, the one
/// `GET /` serves. The rule is deliberately line-exact so that Tests/Interop/browser_page.py can apply the
/// very same one and serve the same bytes:
///
/// - a line that is exactly `<link rel="stylesheet" href="NAME.css">` becomes `<style>`, a line break, the
///   file's text, `</style>`;
/// - a line that is exactly `<script src="NAME.js"></script>` becomes `<script>`, a line break, the file's
///   text, `</script>`;
/// - NAME is letters, digits, `-` and `_`, and the file sits beside the HTML; every other line is kept as is;
/// - line endings become LF everywhere, and each inlined file ends with a line break.
///
/// An inlined text holding `</style` or `</script` would end its element early, so it is refused.
enum PageInliner {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func inline(htmlAt htmlURL: URL) throws -> String {
        let directory = htmlURL.deletingLastPathComponent()
        var output: [String] = []
        for line in try readText(htmlURL).split(separator: "\n", omittingEmptySubsequences: false) {
            if let name = reference(in: line, prefix: #"<link rel="stylesheet" href=""#, suffix: #"">"#, fileExtension: ".css") {
                output.append("<style>\n" + (try inlinedText(directory.appendingPathComponent(name), closingTag: "</style")) + "</style>")
            } else if let name = reference(in: line, prefix: #"<script src=""#, suffix: #""></script>"#, fileExtension: ".js") {
                output.append("<script>\n" + (try inlinedText(directory.appendingPathComponent(name), closingTag: "</script")) + "</script>")
            } else {
                output.append(String(line))
            }
        }
        return output.joined(separator: "\n")
    }

    /// NAME when `line` is exactly prefix + NAME + fileExtension + suffix.
    static func reference(in line: Substring, prefix: String, suffix: String, fileExtension: String) -> String? {
        guard line.hasPrefix(prefix), line.hasSuffix(suffix), line.count > prefix.count + suffix.count else { return nil }
        let name = String(line.dropFirst(prefix.count).dropLast(suffix.count))
        guard name.hasSuffix(fileExtension) else { return nil }
        let stem = name.dropLast(fileExtension.count)
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")
        guard !stem.isEmpty, stem.allSatisfy(allowed.contains) else { return nil }
        return name
    }

    static func inlinedText(_ url: URL, closingTag: String) throws -> String {
        var text = try readText(url)
        if text.lowercased().contains(closingTag) {
            throw Failure(description: "\(url.lastPathComponent) contains \(closingTag), which would end the inlined element early")
        }
        if !text.hasSuffix("\n") { text += "\n" }
        return text
    }

    static func readText(_ url: URL) throws -> String {
        let data: Data
        do { data = try Data(contentsOf: url) } catch { throw Failure(description: "cannot read \(url.path)") }
        guard let text = String(data: data, encoding: .utf8) else { throw Failure(description: "\(url.lastPathComponent) is not UTF-8") }
        return text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
    }
}
