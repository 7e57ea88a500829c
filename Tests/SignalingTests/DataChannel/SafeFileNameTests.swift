import Testing
@testable import Signaling

@Suite struct SafeFileNameTests {
    @Test(arguments: [
        ("report.pdf", "report.pdf"),
        ("../../etc/passwd", "passwd"),
        ("a/b\\c", "c"),
        ("C:\\Users\\me\\x.txt", "x.txt"),
        ("dir/", "file"),
        ("\u{202E}gpj.exe", "gpj.exe"),
        ("a\u{0}b\u{1B}[31mc\u{7F}\u{85}d\u{200B}e\u{2028}", "ab[31mcde"),
        ("..", "file"),
        (".", "file"),
        ("", "file"),
        (".bashrc", "bashrc"),
        ("...hidden.txt", "hidden.txt"),
        ("résumé 2026.pdf", "résumé 2026.pdf"),
    ])
    func reducesToASafeBaseName(_ offered: String, _ safe: String) {
        #expect(SafeFileName.sanitize(offered) == safe)
    }

    @Test func longNamesAreCutOnACharacterBoundaryKeepingTheExtension() {
        let ascii = SafeFileName.sanitize(String(repeating: "a", count: 300) + ".pdf")
        #expect(ascii.utf8.count == SafeFileName.maxBytes)
        #expect(ascii.hasSuffix("a.pdf"))
        // 2-byte characters: 200 - 4 is even, so 98 of them fit; a 3-byte one never splits.
        let wide = SafeFileName.sanitize(String(repeating: "é", count: 150) + ".pdf")
        #expect(wide == String(repeating: "é", count: 98) + ".pdf")
        let threes = SafeFileName.sanitize(String(repeating: "€", count: 100))
        #expect(threes.utf8.count == 198 && threes == String(repeating: "€", count: 66))
        #expect(String(validating: Array(threes.utf8), as: UTF8.self) != nil)
        // An overlong "extension" is part of the name.
        let odd = SafeFileName.sanitize("x." + String(repeating: "b", count: 300))
        #expect(odd.utf8.count == SafeFileName.maxBytes && odd.hasPrefix("x.b"))
    }

    @Test(arguments: [
        ("report.pdf", 0, "report.pdf"), ("report.pdf", 1, "report (1).pdf"), ("report.pdf", 2, "report (2).pdf"),
        ("archive.tar.gz", 1, "archive.tar (1).gz"), ("README", 3, "README (3)"),
    ])
    func numbersNamesThatAreTaken(_ name: String, _ attempt: Int, _ numbered: String) {
        #expect(SafeFileName.numbered(name, attempt: attempt) == numbered)
    }
}
