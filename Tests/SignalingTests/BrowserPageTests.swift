import Foundation
import Testing
@testable import Signaling

/// The page compiled in by the EmbedBrowserPage plugin is exactly the page's files with the stylesheet and
/// script inlined, so what `GET /` serves is what is checked in (and what `node --check` parsed).
@Suite struct BrowserPageTests {
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/Signaling/BrowserPage")

    static func file(_ name: String) throws -> String {
        try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
    }

    @Test func theCompiledPageIsTheFilesWithStylesheetAndScriptInlined() throws {
        let expected = try Self.file("page.html")
            .replacingOccurrences(of: #"<link rel="stylesheet" href="page.css">"#,
                                  with: "<style>\n" + (try Self.file("page.css")) + "</style>")
            .replacingOccurrences(of: #"<script src="page.js"></script>"#,
                                  with: "<script>\n" + (try Self.file("page.js")) + "</script>")
        #expect(BrowserPage.html == expected)
        #expect(!BrowserPage.html.contains("<script src=") && !BrowserPage.html.contains(#"rel="stylesheet""#))
    }
}
