/// The browser client page that `conftui serve` returns for `GET /`.
/// Embedded as a string so the single `conftui` binary serves it with no files beside it.
public enum BrowserPage {
    public static let html: String = #"""
    <!doctype html>
    <html><head><meta charset="utf-8"><title>conftui</title></head>
    <body><p>conftui browser client: under construction.</p></body></html>
    """#
}
